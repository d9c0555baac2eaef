"""Pages without a text layer read by Debian's tesseract (tesseract-ocr + tesseract-ocr-fra), one process
per page, two at a time. tesseract's hOCR keeps its own layout analysis: blocks, paragraphs and lines, and
each line's size (`x_size`, fitted on the whole line rather than one word's box). Lines are regrouped by
those paragraphs, not line by line, and every line of a paragraph gets the paragraph's size, so that a
line with tall letters is not read as a heading. The lines then go through the same cleaning as text pages.
"""

import os
import re
import shutil
import statistics
import subprocess
from concurrent.futures import ThreadPoolExecutor
from html.parser import HTMLParser
from io import BytesIO

from indexer.errors import PdfError
from indexer.pdf.page.layout import EDGE_ZONE, PageText, Row, TextLine, split_page, table_line
from indexer.pdf.page.numbering import printed_number
from indexer.pdf.page.aligned_tables import aligned_tables
from indexer.pdf.text import normalise

DPI = 150
STRIP_GAP = 40  # pixels of white between the top and bottom strips, so tesseract keeps them apart
STRIP_ZONE = 0.1  # share of the page height OCRed again at the top and bottom, for a lone page number
IN_FLIGHT = 4  # rendered pages waiting for tesseract at most (memory stays flat on a long scan)
# What tesseract makes of a bullet: a lone mark, or a mark glued to the first word ("_5 plateaux").
BULLET_MARKS = "•·●▪■◦*+_«»©®°o"
_BBOX = re.compile(r"bbox (-?\d+) (-?\d+) (-?\d+) (-?\d+)")
_XSIZE = re.compile(r"x_size ([\d.]+)")
_BASELINE = re.compile(r"baseline (-?[\d.]+) (-?[\d.]+)")
LINE_CLASSES = {"ocr_line", "ocr_header", "ocr_textfloat", "ocr_caption"}


def check_tesseract() -> str:
    exe = shutil.which("tesseract")
    if exe is None:
        raise PdfError("tesseract est introuvable : installez tesseract-ocr et tesseract-ocr-fra (make ocr-deps)")
    return exe


class _Hocr(HTMLParser):
    """hOCR -> [(block, paragraph, line bbox, x_size, baseline offset, [(text, bbox)])]."""

    def __init__(self):
        super().__init__()
        self.lines, self.stack = [], []
        self.block = self.par = 0
        self.word = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        cls, title = attrs.get("class", ""), attrs.get("title", "")
        self.stack.append(cls)
        if cls == "ocr_carea":
            self.block += 1
        elif cls == "ocr_par":
            self.par += 1
        elif cls in LINE_CLASSES:
            box = _BBOX.search(title)
            size = _XSIZE.search(title)
            base = _BASELINE.search(title)
            self.lines.append((self.block, self.par, tuple(map(int, box.groups())) if box else (0, 0, 0, 0),
                               float(size.group(1)) if size else 0.0, float(base.group(2)) if base else 0.0, []))
        elif cls == "ocrx_word" and self.lines:
            box = _BBOX.search(title)
            self.word = ["", tuple(map(int, box.groups())) if box else (0, 0, 0, 0)]
            self.lines[-1][5].append(self.word)

    def handle_endtag(self, tag):
        if self.stack:
            if self.stack.pop() == "ocrx_word":
                self.word = None

    def handle_data(self, data):
        if self.word is not None:
            self.word[0] += data


def hocr_lines(hocr: str, scale: float, para: tuple = ()) -> list[TextLine]:
    """tesseract's hOCR -> lines in PDF points, each with its paragraph and the paragraph's size."""
    parser = _Hocr()
    parser.feed(hocr)
    rows = [list(row) for row in parser.lines if any(w[0].strip() for w in row[5])]
    sizes = _paragraph_sizes(rows)
    _split_titles(rows, sizes)
    out = []
    for block, par, (_, y0, _, y1), _, offset, words in rows:
        words = [(w[0].strip(), w[1]) for w in words if w[0].strip()]
        size_px = statistics.median(sizes[(block, par)]) or (y1 - y0)
        texts = [t for t, _ in words]
        _mark_bullet(texts, words[0][1], size_px)
        # Words far apart on one line are table cells: one piece each, as on a text page (tables.py).
        for start, end in _cells(words, size_px):
            piece = words[start:end]
            out.append(TextLine(normalise(" ".join(texts[start:end])), piece[0][1][0] * scale, y0 * scale,
                                piece[-1][1][2] * scale, y1 * scale, round(size_px * scale * 2) / 2, False,
                                para=(*para, block, par), baseline=(y1 + offset) * scale))
    return out


def _paragraph_sizes(rows: list[list]) -> dict[tuple, list[float]]:
    """(block, paragraph) -> the sizes (x_size) of its lines, in order."""
    sizes: dict[tuple, list[float]] = {}
    for row in rows:
        sizes.setdefault((row[0], row[1]), []).append(row[3])
    return sizes


def _split_titles(rows: list[list], sizes: dict[tuple, list[float]]) -> None:
    """A title that tesseract put at the head of the paragraph it introduces ("Fin de partie" over "La
    partie s'arrête…"): a first line clearly larger than the others is a paragraph of its own, (par, "title")."""
    for i, row in enumerate(rows):
        key = (row[0], row[1])
        if _title_atop(rows, i, sizes[key]):
            sizes[key] = sizes[key][1:]
            row[1] = (row[1], "title")
            sizes[(row[0], row[1])] = [row[3]]


def _title_atop(rows: list[list], i: int, sizes: list[float]) -> bool:
    """Row i opens its paragraph (whose line sizes are `sizes`) in a size 1.2 times its other lines' or more."""
    row, rest = rows[i], sizes[1:]
    first = i == 0 or (rows[i - 1][0], rows[i - 1][1]) != (row[0], row[1])
    return bool(rest) and row[3] == sizes[0] and first and row[3] >= 1.2 * statistics.median(rest)


def _mark_bullet(texts: list[str], first_box: tuple, size_px: float) -> None:
    """The line's first word made a bullet "•" where tesseract read one as a mark or a letter."""
    first = texts[0]
    if _glued_mark(first):
        texts[0] = "• " + first[1:]  # a mark glued to the first word
        return
    # A dot too small to be a letter, read as one
    small = first_box[2] - first_box[0] <= 0.6 * size_px and first_box[3] - first_box[1] <= 0.45 * size_px
    if len(texts) > 1 and (first in BULLET_MARKS or _short_mark(first, small)):
        texts[0] = "•"  # a lone mark, or a dot too small to be a letter, read as a letter


def _glued_mark(word: str) -> bool:
    """A bullet's mark glued to the word after it ("_5 plateaux"); "o" is a letter there."""
    return len(word) > 1 and word[0] in BULLET_MARKS and word[0] != "o" and word[1].isalnum()


def _short_mark(word: str, small: bool) -> bool:
    """One or two characters, no number, that are no word: small as a dot, or not letters."""
    return len(word) <= 2 and not word.isdigit() and (small or not word.isalnum())


def _cells(words: list[tuple], size_px: float):
    """(start, end) of each run of words on a line with no gap wider than two sizes between them."""
    start = 0
    for k in range(1, len(words) + 1):
        if k < len(words) and words[k][1][0] - words[k - 1][1][2] <= 2 * size_px:
            continue
        yield start, k
        start = k


def ocr_pages(doc, indexes: list[int], lang: str = "fra") -> dict[int, PageText]:
    exe = check_tesseract()
    # pdfium is not thread-safe: pages are rendered here one by one, and only tesseract runs in parallel;
    # a few rendered pages wait at most.
    out, pending = {}, {}
    with ThreadPoolExecutor(max_workers=2) as pool:
        for i in indexes:
            if len(pending) >= IN_FLIGHT:
                first = next(iter(pending))
                out[first] = pending.pop(first).result()
            pending[i] = pool.submit(_run_rendered, _render(doc, i), i, exe, lang)
        for i, future in pending.items():
            out[i] = future.result()
    return out


def _png(image) -> bytes:
    buf = BytesIO()
    image.save(buf, "PNG")
    return buf.getvalue()


def _render(doc, index: int):
    from PIL import Image

    page = doc[index]
    width, height = page.get_size()
    image = page.render(scale=DPI / 72, grayscale=True).to_pil()
    page.close()
    # The margin strips again on their own, stacked in one small image (one tesseract start, not two):
    # page-layout analysis tends to drop a lone page number.
    strip = int(image.height * STRIP_ZONE)
    strips = Image.new("L", (image.width, 2 * strip + STRIP_GAP), 255)
    strips.paste(image.crop((0, 0, image.width, strip)), (0, 0))
    strips.paste(image.crop((0, image.height - strip, image.width, image.height)), (0, strip + STRIP_GAP))
    return width, height, _png(image), (strip, image.height, _png(strips))


def _tesseract(exe: str, png: bytes, lang: str, psm: int, index: int) -> str:
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}  # one core per page; pages run in parallel instead
    result = subprocess.run([exe, "stdin", "stdout", "-l", lang, "--dpi", str(DPI), "--psm", str(psm), "hocr"],
                            input=png, capture_output=True, env=env, timeout=120)
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PdfError(f"tesseract a échoué sur la page {index + 1} : {message[-1] if message else 'erreur'}")
    return result.stdout.decode("utf-8", "replace")


def _run_rendered(rendered, index: int, exe: str, lang: str) -> PageText:
    width, height, png, (strip, pixels, strips) = rendered
    scale = 72 / DPI
    tables, lines = aligned_tables(hocr_lines(_tesseract(exe, png, lang, 3, index), scale))
    page = split_page(index, width, height, lines + [table_line(table) for table in tables])
    if not any(printed_number(row.text) for row in page.edges):
        for line in hocr_lines(_tesseract(exe, strips, lang, 6, index), scale, para=(-1,)):
            bottom = line.top / scale > strip
            if bottom:  # from the bottom strip: back to its place on the page
                shift = (pixels - strip - (strip + STRIP_GAP)) * scale
                line.top, line.bottom, line.baseline = line.top + shift, line.bottom + shift, line.baseline + shift
            if printed_number(line.text) and (line.top < height * EDGE_ZONE or line.bottom > height * (1 - EDGE_ZONE)):
                page.edges.append(Row(line.text, line.top, line.bottom, line.size, "bottom" if bottom else "top",
                                      [line]))
    return page
