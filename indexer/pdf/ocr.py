"""Pages without a text layer read by Debian's tesseract (tesseract-ocr + tesseract-ocr-fra), one process
per page, two at a time: the lines come back positioned, and go through the same cleaning as text pages."""

import os
import shutil
import subprocess
from concurrent.futures import ThreadPoolExecutor
from io import BytesIO

from indexer.errors import PdfError
from indexer.pdf.layout import MARGIN_ZONE, PageText, TextLine, split_page
from indexer.pdf.numbering import printed_number
from indexer.pdf.text import normalise

DPI = 150
STRIP_GAP = 40  # pixels of white between the top and bottom strips, so tesseract keeps them apart


def check_tesseract() -> str:
    exe = shutil.which("tesseract")
    if exe is None:
        raise PdfError("tesseract est introuvable : installez tesseract-ocr et tesseract-ocr-fra (make ocr-deps)")
    return exe


def _tsv_lines(tsv: str, scale: float, para: tuple = ()) -> list[TextLine]:
    """tesseract's TSV (one row per word, with its block, paragraph and line) -> lines in PDF points."""
    lines: dict[tuple, list[list[str]]] = {}
    for row in tsv.splitlines()[1:]:
        cols = row.split("\t")
        if len(cols) < 12 or cols[0] != "5" or not cols[11].strip():
            continue
        lines.setdefault((int(cols[2]), int(cols[3]), int(cols[4])), []).append(cols)
    out = []
    for key, words in lines.items():
        left = [int(w[6]) for w in words]
        top = [int(w[7]) for w in words]
        right = [int(w[6]) + int(w[8]) for w in words]
        bottom = [int(w[7]) + int(w[9]) for w in words]
        # A word's box height is about 1.4 x-heights for mixed text: the line's tallest box stands for the size.
        size = max(int(w[9]) for w in words) * scale
        text = normalise(" ".join(w[11] for w in words))
        # Words far apart on one line are table cells: the line is then a row, kept on its own.
        cells = 1 + sum(1 for a, b in zip(words, words[1:])
                        if int(b[6]) - int(a[6]) - int(a[8]) > 2 * max(int(a[9]), int(b[9])))
        out.append(TextLine(text, min(left) * scale, min(top) * scale, max(right) * scale, max(bottom) * scale,
                            round(size), False, cells=cells, para=(*para, *key[:2])))
    return out


def ocr_pages(doc, indexes: list[int], lang: str = "fra") -> dict[int, PageText]:
    exe = check_tesseract()
    # pdfium is not thread-safe: pages are rendered here one by one, and only tesseract runs in parallel.
    with ThreadPoolExecutor(max_workers=2) as pool:
        futures = {}
        for i in indexes:
            futures[i] = pool.submit(_run_rendered, _render(doc, i), i, exe, lang)
        return {i: f.result() for i, f in futures.items()}


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
    strip = int(image.height * MARGIN_ZONE)
    strips = Image.new("L", (image.width, 2 * strip + STRIP_GAP), 255)
    strips.paste(image.crop((0, 0, image.width, strip)), (0, 0))
    strips.paste(image.crop((0, image.height - strip, image.width, image.height)), (0, strip + STRIP_GAP))
    return width, height, _png(image), (strip, image.height, _png(strips))


def _tesseract(exe: str, png: bytes, lang: str, psm: int, index: int) -> str:
    env = {**os.environ, "OMP_THREAD_LIMIT": "1"}  # one core per page; pages run in parallel instead
    result = subprocess.run([exe, "stdin", "stdout", "-l", lang, "--dpi", str(DPI), "--psm", str(psm), "tsv"],
                            input=png, capture_output=True, env=env, timeout=120)
    if result.returncode != 0:
        message = result.stderr.decode("utf-8", "replace").strip().splitlines()
        raise PdfError(f"tesseract a échoué sur la page {index + 1} : {message[-1] if message else 'erreur'}")
    return result.stdout.decode("utf-8", "replace")


def _run_rendered(rendered, index: int, exe: str, lang: str) -> PageText:
    width, height, png, (strip, pixels, strips) = rendered
    scale = 72 / DPI
    page = split_page(index, width, height, _tsv_lines(_tesseract(exe, png, lang, 3, index), scale))
    if not any(printed_number(line.text) for line in page.margin):
        for line in _tsv_lines(_tesseract(exe, strips, lang, 6, index), scale, para=(-1,)):
            if line.top / scale > strip:  # from the bottom strip: back to its place on the page
                shift = (pixels - strip - (strip + STRIP_GAP)) * scale
                line.top, line.bottom = line.top + shift, line.bottom + shift
            if printed_number(line.text):
                page.margin.append(line)
    return page
