"""Open a rulebook PDF and read each page as positioned lines in reading order (columns resolved).

pypdfium2 opens and checks the file (errors, encryption, page labels, text layer); pdfplumber gives the
words with their font and position, from which lines and columns are rebuilt.
"""

import statistics
from dataclasses import dataclass, field
from pathlib import Path

from indexer.errors import PdfError
from indexer.pdf.text import normalise

MARGIN_ZONE = 0.085  # top and bottom share of a page where running headers, footers and numbers live
ROW_TOLERANCE = 2.0  # points: words whose tops differ less are on one row


@dataclass
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


@dataclass
class PageText:
    index: int  # 0-based position in the PDF
    width: float
    height: float
    lines: list[TextLine] = field(default_factory=list)  # reading order
    margin: list[TextLine] = field(default_factory=list)  # lines in the header and footer zones


def open_pdf(path: Path):
    """The pypdfium2 document, or a PdfError with one French sentence."""
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
        if "password" in str(exc).lower():
            raise PdfError(f"{path.name} est chiffré (protégé par un mot de passe) : exportez-le sans protection") from None
        raise PdfError(f"{path.name} est illisible ou endommagé ({exc})") from None
    if len(doc) == 0:
        doc.close()
        raise PdfError(f"{path.name} ne contient aucune page")
    return doc


def page_labels(doc) -> list[str]:
    return [doc.get_page_label(i) or "" for i in range(len(doc))]


def text_chars(doc) -> list[int]:
    """Characters of the text layer on each page (0 everywhere: a scan)."""
    counts = []
    for i in range(len(doc)):
        page = doc[i]
        textpage = page.get_textpage()
        counts.append(textpage.count_chars())
        textpage.close()
        page.close()
    return counts


def _bold(fontname: str) -> bool:
    name = fontname.split("+")[-1].lower()
    return any(w in name for w in ("bold", "black", "heavy", "semibold", "demi"))


def _segments(words: list[dict]) -> list[TextLine]:
    """Words grouped into rows, a row cut where the gap between two words is wider than two font sizes
    (a column gutter or a table cell)."""
    rows: list[list[dict]] = []
    for word in sorted(words, key=lambda w: (round(w["top"]), w["x0"])):
        if rows and abs(rows[-1][0]["top"] - word["top"]) <= ROW_TOLERANCE:
            rows[-1].append(word)
        else:
            rows.append([word])
    out = []
    for row in rows:
        row.sort(key=lambda w: w["x0"])
        piece = [row[0]]
        for word in row[1:]:
            if word["x0"] - piece[-1]["x1"] > 2 * max(word["size"], piece[-1]["size"]):
                out.append(_line(piece))
                piece = []
            piece.append(word)
        out.append(_line(piece))
    return out


def _line(words: list[dict]) -> TextLine:
    sizes = [w["size"] for w in words]
    chars = sum(len(w["text"]) for w in words)
    bold = sum(len(w["text"]) for w in words if _bold(w.get("fontname", ""))) > chars / 2
    return TextLine(normalise(" ".join(w["text"] for w in words)), min(w["x0"] for w in words),
                    min(w["top"] for w in words), max(w["x1"] for w in words), max(w["bottom"] for w in words),
                    statistics.median(sizes), bold)


def _gutter(lines: list[TextLine], width: float) -> float | None:
    """The x of a vertical gap that splits the body lines into two side-by-side columns, if there is one.
    A few lines may cross it (a title over both columns); the two sides must share some height."""
    if len(lines) < 2:
        return None
    best, best_cross = None, None
    for x in range(int(width * 0.3), int(width * 0.7)):
        cross = sum(1 for line in lines if line.x0 < x < line.x1)
        if best_cross is not None and cross > best_cross:
            continue
        left = [line for line in lines if line.x1 <= x]
        right = [line for line in lines if line.x0 >= x]
        if not left or not right:
            continue
        overlap = min(max(ln.bottom for ln in left), max(ln.bottom for ln in right)) - \
            max(min(ln.top for ln in left), min(ln.top for ln in right))
        if overlap <= 0:
            continue
        if best_cross is None or cross < best_cross or abs(x - width / 2) < abs(best - width / 2):
            best, best_cross = x, cross
    if best is None or best_cross > len(lines) * 0.25:
        return None
    return float(best)


def _reading_order(lines: list[TextLine], width: float) -> list[TextLine]:
    """Column by column; a line spanning the gutter (a title across the page) closes a band."""
    gutter = _gutter(lines, width)
    lines = sorted(lines, key=lambda line: (line.top, line.x0))
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
    for line in sorted(lines, key=lambda line: (line.top, line.x0)):
        prev = out[-1] if out else None
        if prev and abs(prev.top - line.top) <= ROW_TOLERANCE:
            out[-1] = TextLine(f"{prev.text} {line.text}", prev.x0, min(prev.top, line.top), line.x1,
                               max(prev.bottom, line.bottom), max(prev.size, line.size), prev.bold and line.bold,
                               prev.column, prev.cells + line.cells, prev.para)
        else:
            out.append(line)
    return out


def split_page(index: int, width: float, height: float, lines: list[TextLine]) -> PageText:
    page = PageText(index, width, height)
    body = []
    for line in lines:
        if not line.text:
            continue
        in_margin = line.bottom < height * MARGIN_ZONE or line.top > height * (1 - MARGIN_ZONE)
        (page.margin if in_margin else body).append(line)
    page.margin = _merge_rows(page.margin)
    page.lines = _reading_order(body, width)
    return page


def read_layout(path: Path, skip: set[int] = frozenset()) -> list[PageText | None]:
    """Every page's lines (None for the pages in `skip`, read by OCR instead)."""
    import pdfplumber

    pages: list[PageText | None] = []
    try:
        with pdfplumber.open(str(path)) as pdf:
            for i, page in enumerate(pdf.pages):
                if i in skip:
                    pages.append(None)
                    continue
                words = page.extract_words(extra_attrs=["fontname", "size"], use_text_flow=False)
                pages.append(split_page(i, float(page.width), float(page.height), _segments(words)))
    except Exception as exc:  # pdfminer raises many types on damaged files
        raise PdfError(f"{Path(path).name} est illisible ou endommagé ({type(exc).__name__})") from None
    return pages
