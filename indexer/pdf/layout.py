"""Open a rulebook PDF and rebuild each page's lines from its characters' own geometry, then read them in
order (columns resolved).

- Lines: characters sharing a baseline (so an italic, bold or monospace word whose font box sits higher
  stays in its sentence), small raised or lowered glyphs (footnote marks) joined to the line they touch.
- Words: a gap wider than the line's own letter spacing plus half its word spacing (between 0.06 and 0.15
  of the font size) is a word break, as is a real space glyph (TeX draws none); a gap of two font sizes
  splits the line (a column gutter, a cell).
- The first and last rows of a page's text are kept apart as candidates (running header or footer, page number),
  decided across pages by `numbering`, then put back in reading order if they are neither.
"""

import statistics
from dataclasses import dataclass, field
from pathlib import Path

from indexer.errors import PdfError
from indexer.pdf.text import normalise, reads_as_text

EDGE_ZONE = 0.2  # share of the page height, at the top and at the bottom, searched again by OCR
EDGE_ROWS = 2  # rows at each end that may be running text or carry the page number
SIDE_ZONE = 0.12  # share of the width, left and right, where a lone page number may sit
WORD_GAP = 0.15  # of the font size, beyond the line's own letter spacing
CELL_GAP = 2.0  # font sizes: a wider gap separates columns or table cells


@dataclass(slots=True)
class TextLine:
    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    size: float
    bold: bool
    column: int = 0  # 0 full width or single column, 1 left, 2 right
    cells: int = 1  # pieces separated by wide gaps on the row (a table row when > 1)
    para: tuple | None = None  # OCR only: tesseract's (block, paragraph), a better guide than line gaps
    baseline: float = 0.0


@dataclass
class Row:
    """Pieces of a page's text on one baseline across the whole width (a header is often two pieces)."""

    text: str
    top: float
    bottom: float
    size: float
    end: str  # "top" or "bottom" of the page, "side" for a lone number in a side margin
    pieces: list[TextLine]


@dataclass
class PageText:
    index: int  # 0-based position in the PDF
    width: float
    height: float
    lines: list[TextLine] = field(default_factory=list)  # reading order once `finish` ran
    edges: list[Row] = field(default_factory=list)  # candidate header, footer and page-number rows
    rotation: int = 0
    dropped: set = field(default_factory=set)  # ids of pieces removed as running text or page numbers

    def fraction(self, line: TextLine) -> tuple[float, float, float, float]:
        """The line's box as fractions of the page image as rendered (rotation applied)."""
        fx0, fy0, fx1, fy1 = line.x0 / self.width, line.top / self.height, line.x1 / self.width, line.bottom / self.height
        if self.rotation == 90:
            fx0, fy0, fx1, fy1 = 1 - fy1, fx0, 1 - fy0, fx1
        elif self.rotation == 180:
            fx0, fy0, fx1, fy1 = 1 - fx1, 1 - fy1, 1 - fx0, 1 - fy0
        elif self.rotation == 270:
            fx0, fy0, fx1, fy1 = fy0, 1 - fx1, fy1, 1 - fx0
        return tuple(round(min(max(v, 0.0), 1.0), 4) for v in (fx0, fy0, fx1, fy1))


def open_pdf(path: Path):
    """The pypdfium2 document, or a PdfError with one French sentence (pdfium's own English never shows)."""
    import pypdfium2 as pdfium

    path = Path(path)
    if not path.is_file():
        raise PdfError(f"fichier introuvable : {path}")
    with path.open("rb") as f:
        head = f.read(1024)
    if b"%PDF-" not in head:
        raise PdfError(f"{path.name} n'est pas un PDF")
    try:
        doc = pdfium.PdfDocument(str(path))
    except pdfium.PdfiumError as exc:
        raise PdfError(f"{path.name} {_pdfium_reason(exc)}") from None
    if len(doc) == 0:
        doc.close()
        raise PdfError(f"{path.name} ne contient aucune page")
    return doc


def _pdfium_reason(exc) -> str:
    code = getattr(exc, "err_code", None)
    text = str(exc).lower()
    if code == 4 or "password" in text:
        return "est chiffré (protégé par un mot de passe) : exportez-le sans protection"
    if code == 5 or "security" in text:
        return "utilise une protection que l'import ne sait pas lire : exportez-le sans protection"
    if code == 2 or "file access" in text:
        return "est illisible (fichier inaccessible)"
    return "est illisible ou endommagé (structure PDF invalide ou fichier tronqué)"


def page_labels(doc) -> list[str]:
    return [doc.get_page_label(i) or "" for i in range(len(doc))]


def _clusters(chars) -> list[list]:
    """Characters grouped by baseline; small raised or lowered glyphs go with the line whose box holds them."""
    rows: list[list] = []
    for c in sorted(chars, key=lambda c: c.baseline):
        if rows and c.baseline - rows[-1][0].baseline <= 0.25 * max(min(c.size, rows[-1][0].size), 1):
            rows[-1].append(c)
        else:
            rows.append([c])
    if len(rows) < 2:
        return rows
    sizes = [statistics.median(c.size for c in row) for row in rows]
    kept: list[int] = []
    for i, row in enumerate(rows):
        if len(row) <= 6:
            for j in (i - 1, i + 1):
                if 0 <= j < len(rows) and sizes[i] <= sizes[j] and len(rows[j]) > len(row):
                    big = rows[j]
                    top, bottom = min(c.top for c in big), max(c.bottom for c in big)
                    x0, x1 = min(c.x0 for c in big), max(c.x1 for c in big)
                    # Raised (an exponent, "XXe") or lowered (an index) by up to half the line's size.
                    if all(top - 0.5 * sizes[j] <= c.top and c.bottom <= bottom + 0.4 * sizes[j]
                           and x0 - sizes[j] <= c.x0 <= x1 + sizes[j] for c in row):
                        big.extend(row)
                        row.clear()
                        break
        if row:
            kept.append(i)
    return [rows[i] for i in kept if rows[i]]


def _segments(chars, fonts) -> list[TextLine]:
    """Each baseline's characters cut into words and pieces by their gaps."""
    out = []
    for row in _clusters(chars):
        row.sort(key=lambda c: c.x0)
        em = statistics.median(c.size for c in row) or 1.0
        gaps = [(b.x0 - a.x1) / em for a, b in zip(row, row[1:]) if not b.space_before and b.x0 - a.x1 < 0.5 * em]
        # The line's own letter spacing (most gaps are inside words), then its word spacing: a justified
        # line may squeeze word gaps to a fifth of an em, a tracked title widen letter gaps.
        spacing = min(max(statistics.median(gaps), 0.0), 0.2) if gaps else 0.0
        wide = [g for g in gaps if g > spacing + 0.08]
        words_gap = statistics.median(wide) - spacing if len(wide) >= 2 else 2 * WORD_GAP
        threshold = (spacing + max(0.06, min(WORD_GAP, words_gap / 2))) * em
        piece, word, words = [row[0]], [row[0].text], []
        marks = _raised(row[0], em)  # the word so far is only a raised mark (a footnote number)
        for prev, c in zip(row, row[1:]):
            gap = c.x0 - prev.x1
            size = max(min(prev.size, c.size), 1.0)
            if gap > CELL_GAP * max(prev.size, c.size):
                words.append("".join(word))
                out.append(_line(piece, words, fonts))
                piece, word, words = [c], [c.text], []
                marks = _raised(c, em)
                continue
            if c.space_before or gap > threshold * size / em or (marks and not _raised(c, em)):
                words.append("".join(word))
                word = []
                marks = _raised(c, em)
            word.append(c.text)
            piece.append(c)
        words.append("".join(word))
        out.append(_line(piece, words, fonts))
    return [line for line in out if line.text]


def _raised(c, em: float) -> bool:
    """A small glyph above the line's baseline: a footnote mark, which starts a footnote as a word."""
    return c.size < 0.85 * em and c.text.isdigit()


def _line(chars, words: list[str], fonts) -> TextLine:
    sizes = statistics.median(c.size for c in chars)
    letters = [c for c in chars if c.text.isalnum()] or chars
    bold = sum(1 for c in letters if fonts[c.font].bold) > len(letters) / 2
    return TextLine(normalise(" ".join(words)), min(c.x0 for c in chars), min(c.top for c in chars),
                    max(c.x1 for c in chars), max(c.bottom for c in chars), round(sizes, 2), bold,
                    baseline=statistics.median(c.baseline for c in chars))


def _rows(lines: list[TextLine]) -> list[list[TextLine]]:
    rows: list[list[TextLine]] = []
    for line in sorted(lines, key=lambda line: line.baseline or line.bottom):
        base = line.baseline or line.bottom
        if rows and abs((rows[-1][0].baseline or rows[-1][0].bottom) - base) <= 0.3 * max(line.size, 1):
            rows[-1].append(line)
        else:
            rows.append([line])
    return rows


def split_page(index: int, width: float, height: float, lines: list[TextLine], rotation: int = 0) -> PageText:
    """A page's lines, with its top and bottom rows (and lone numbers in the side margins) as candidates."""
    page = PageText(index, width, height, [line for line in lines if line.text], rotation=rotation)
    rows = _rows(page.lines)
    # Wherever the text block sits on the sheet (a letter-size block on A4 leaves its footer at 75 % of the
    # height): the first and last rows of the page's text, in the upper and lower halves.
    top = [row for row in rows[:EDGE_ROWS] if min(p.top for p in row) < height / 2]
    bottom = [row for row in rows[-EDGE_ROWS:] if min(p.top for p in row) >= height / 2
              and not any(row is t for t in top)]
    page.edges = [_row(row, "top") for row in top] + [_row(row, "bottom") for row in bottom]
    taken = {id(p) for r in page.edges for p in r.pieces}
    for line in page.lines:
        if id(line) not in taken and line.text.isdigit() and (line.x1 < width * SIDE_ZONE or
                                                                line.x0 > width * (1 - SIDE_ZONE)):
            page.edges.append(_row([line], "side"))
    return page


def _row(pieces: list[TextLine], end: str) -> Row:
    pieces = sorted(pieces, key=lambda p: p.x0)
    return Row(normalise(" ".join(p.text for p in pieces)), min(p.top for p in pieces),
               max(p.bottom for p in pieces), max(p.size for p in pieces), end, pieces)


def finish(page: PageText) -> PageText:
    """Drop what `numbering` marked (running text, page numbers) and put the rest in reading order."""
    body = [line for line in page.lines if id(line) not in page.dropped]
    page.lines = _reading_order(body, page.width)
    page.edges = []
    return page


def _gutter(lines: list[TextLine], width: float) -> float | None:
    """The x of a vertical gap that splits the body lines into two side-by-side columns, if there is one.
    A few lines may cross it (a title over both columns); the two sides must share some height."""
    import numpy as np

    if len(lines) < 2:
        return None
    x0 = np.array([line.x0 for line in lines])
    x1 = np.array([line.x1 for line in lines])
    top = np.array([line.top for line in lines])
    bottom = np.array([line.bottom for line in lines])
    xs = np.arange(int(width * 0.3), int(width * 0.7))
    if len(xs) == 0:
        return None
    cross = ((x0[None, :] < xs[:, None]) & (xs[:, None] < x1[None, :])).sum(axis=1)
    left = x1[None, :] <= xs[:, None]
    right = x0[None, :] >= xs[:, None]
    big, inf = 1e9, np.inf
    overlap = (np.minimum(np.where(left, bottom, -inf).max(axis=1), np.where(right, bottom, -inf).max(axis=1))
               - np.maximum(np.where(left, top, big).min(axis=1), np.where(right, top, big).min(axis=1)))
    ok = left.any(axis=1) & right.any(axis=1) & (overlap > 0)
    if not ok.any():
        return None
    fewest = cross[ok].min()
    if fewest > len(lines) * 0.25:
        return None
    candidates = xs[ok & (cross == fewest)]
    return float(candidates[np.argmin(np.abs(candidates - width / 2))])


def _reading_order(lines: list[TextLine], width: float) -> list[TextLine]:
    """Column by column; a line spanning the gutter (a title across the page) closes a band."""
    gutter = _gutter(lines, width)
    lines = sorted(lines, key=lambda line: (line.baseline or line.top, line.x0))
    if gutter is None:
        return _merge_rows(lines)
    out, band = [], []

    def flush():
        for col in (1, 2):
            out.extend(_merge_rows([line for line in band if line.column == col]))
        band.clear()

    for line in lines:
        if line.x0 < gutter < line.x1:
            flush()
            out.append(line)
        else:
            line.column = 1 if line.x1 <= gutter else 2
            band.append(line)
    flush()
    return out


def _merge_rows(lines: list[TextLine]) -> list[TextLine]:
    """Pieces of one row inside one column become one line again (a table row keeps its cells count)."""
    out: list[TextLine] = []
    for row in _rows(lines):
        row.sort(key=lambda line: line.x0)
        first = row[0]
        for line in row[1:]:
            first = TextLine(f"{first.text} {line.text}", first.x0, min(first.top, line.top), line.x1,
                             max(first.bottom, line.bottom), max(first.size, line.size), first.bold and line.bold,
                             first.column, first.cells + line.cells, first.para, first.baseline)
        out.append(first)
    return out


def read_page(doc, index: int) -> PageText | None:
    """One page's text from pdfium (None when it has no text layer: a scan, read by OCR instead)."""
    from indexer.pdf.chars import page_chars

    try:
        page = doc[index]
    except Exception:  # pdfium on a damaged page tree (its message is English)
        raise PdfError(f"la page {index + 1} du PDF est illisible ou endommagée") from None
    try:
        chars = page_chars(page)
    except Exception:
        raise PdfError(f"la page {index + 1} du PDF est illisible ou endommagée") from None
    finally:
        page.close()
    if not chars.chars:
        return None
    w, h = chars.box[2] - chars.box[0], chars.box[3] - chars.box[1]
    # What cannot be rule text is not kept until the end (a page of music is thousands of glyph pieces):
    # a lone number stays only among the edge rows, where it may be the page's.
    lines = [line for line in _segments(chars.chars, chars.fonts)
             if line.text.isdigit() or reads_as_text(line.text, numbers_too=True)]
    page = split_page(index, w, h, lines, chars.rotation)
    edges = {id(piece) for row in page.edges for piece in row.pieces}
    page.lines = [line for line in page.lines if id(line) in edges or not line.text.isdigit()]
    return page
