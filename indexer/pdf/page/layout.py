"""Open a rulebook PDF and rebuild each page's lines from its characters' own geometry (lines.py), its tables
first (tables.py), then read them in order (columns resolved).

- The first and last rows of a page's text are kept apart as candidates (running header or footer, page number),
  decided across pages by `numbering`, then put back in reading order if they are neither.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

from indexer.errors import PdfError
from indexer.pdf.page.lines import CELL_GAP, TextLine, segments
from indexer.pdf.text import BULLET, LEADER, normalise, reads_as_text

EDGE_ZONE = 0.2  # share of the page height, at the top and at the bottom, searched again by OCR
EDGE_ROWS = 2  # rows at each end that may be running text or carry the page number
SIDE_ZONE = 0.12  # share of the width, left and right, where a lone page number may sit
TILT = 0.2  # radians (11°): a text box set at a slight angle, that poppler reads as lines, is still text


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
    ordered: bool = False  # the lines' order is final (the reader's own reading order): `finish` keeps it
    sheet: int | None = None  # the PDF page a half of a spread is on (None: the page is `index`'s own)
    half: int = 0  # 1 the left half of a spread, 2 its right half (0: a whole page)

    def where(self) -> int | dict:
        """Where the page is in the PDF, as the layout sidecar says it: its PDF index, or the sheet and half."""
        sheet = self.index if self.sheet is None else self.sheet
        return sheet if not self.half else {"page": sheet, "half": self.half}

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


# Where a complete PDF's end marker is looked for: its last bytes (a few whitespace or a trailing comment at most).
TAIL_BYTES = 2048


def open_pdf(path: Path):
    """The pypdfium2 document, or a PdfError with one French sentence (pdfium's own English never shows)."""
    import pypdfium2 as pdfium

    path = Path(path)
    if not path.is_file():
        raise PdfError(f"fichier introuvable : {path}")
    with path.open("rb") as f:
        head = f.read(1024)
        f.seek(max(0, path.stat().st_size - TAIL_BYTES))
        tail = f.read()
    if b"%PDF-" not in head:
        raise PdfError(f"{path.name} n'est pas un PDF")
    if b"%%EOF" not in tail:
        # A PDF writer ends the file with %%EOF (each incremental update too): without it the file was cut
        # short (a download or a copy interrupted). pdfium may read what is left, but pages would be missing.
        raise PdfError(f"{path.name} est tronqué (sa fin manque) : téléchargez ou copiez-le à nouveau")
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


def table_line(table) -> TextLine:
    """A table as one line of the page, at its place, its cells for text."""
    text = normalise(" ".join(cell for row in table.rows for cell in row if cell))
    return TextLine(text, table.x0, table.top, table.x1, table.bottom, round(table.size, 2), False,
                    cells=max(len(row) for row in table.rows), baseline=table.top + table.size, table=table)


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
    rows = [row for row in _rows(page.lines) if not any(line.table is not None for line in row)]
    page.edges = _edge_rows(rows, height)
    taken = {id(p) for r in page.edges for p in r.pieces}
    page.edges += [_row([line], "side") for line in page.lines
                   if id(line) not in taken and line.text.isdigit() and _in_side_margin(line, width)]
    return page


def _edge_rows(rows: list[list[TextLine]], height: float) -> list[Row]:
    """Wherever the text block sits on the sheet (a letter-size block on A4 leaves its footer at 75 % of the
    height): the first and last rows of the page's text, in the upper and lower halves."""
    top = [row for row in rows[:EDGE_ROWS] if min(p.top for p in row) < height / 2]
    bottom = [row for row in rows[-EDGE_ROWS:] if min(p.top for p in row) >= height / 2
              and not any(row is t for t in top)]
    return [_row(row, "top") for row in top] + [_row(row, "bottom") for row in bottom]


def _in_side_margin(line: TextLine, width: float) -> bool:
    return line.x1 < width * SIDE_ZONE or line.x0 > width * (1 - SIDE_ZONE)


def _row(pieces: list[TextLine], end: str) -> Row:
    pieces = sorted(pieces, key=lambda p: p.x0)
    return Row(normalise(" ".join(p.text for p in pieces)), min(p.top for p in pieces),
               max(p.bottom for p in pieces), max(p.size for p in pieces), end, pieces)


def finish(page: PageText) -> PageText:
    """Drop what `numbering` marked (running text, page numbers) and put the rest in reading order."""
    body = [line for line in page.lines if id(line) not in page.dropped]
    page.lines = body if page.ordered else _reading_order(body, page.width)
    page.edges = []
    return page


FOLIO = re.compile(r"[0-9]{1,4}")  # a printed page number ("❶" is a digit to Python, and no page number)
SPREAD = 1.2  # a page this much wider than high may be two printed pages side by side


def spread_halves(page: PageText) -> list[PageText] | None:
    """A booklet's spread (two printed pages exported as one PDF page) as its two pages, each with its own lines
    and edges: a landscape page whose foot or head prints a lone number in each half, the right one the left's
    next, and no line across the middle. None for any other page."""
    if page.width < SPREAD * page.height or page.rotation:
        return None
    middle = page.width / 2
    folios = {}
    for row in page.edges:
        for piece in row.pieces:
            if FOLIO.fullmatch(piece.text) and (piece.x1 <= middle or piece.x0 >= middle):
                folios.setdefault(1 if piece.x1 <= middle else 2, set()).add(int(piece.text))
    if not any(n + 1 in folios.get(2, ()) for n in folios.get(1, ())):
        return None
    if any(line.x0 < middle - 1 < middle + 1 < line.x1 for line in page.lines):
        return None
    halves = []
    for half in (1, 2):
        mine = [line for line in page.lines if ((line.x0 + line.x1) / 2 < middle) == (half == 1)]
        if half == 2:
            for line in mine:
                line.x0, line.x1 = line.x0 - middle, line.x1 - middle
        cut = split_page(page.index, middle, page.height, mine)
        cut.ordered, cut.sheet, cut.half = page.ordered, page.index, half
        halves.append(cut)
    return halves


def _gutter(lines: list[TextLine], width: float) -> float | None:
    """The x of a vertical gap that splits the body lines into two side-by-side columns, if there is one.
    A few lines may cross it (a title over both columns); the two sides must share some height."""
    import numpy as np

    # Dot leaders and page numbers set far right in a table of contents are no column.
    lines = [line for line in lines if not (LEADER.search(line.text) or line.text.isdigit())]
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
    # The right column starts near the gutter: right-aligned lines ("Retour au sommaire") make no column.
    near = np.where(right, x0[None, :], big).min(axis=1) - xs <= 0.15 * width
    ok = left.any(axis=1) & right.any(axis=1) & (overlap > 0) & near
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
        if any(line.table is not None for line in row):  # a table stays whole, beside whatever is there
            out.extend(row)
            continue
        first = row[0]
        for line in row[1:]:
            # Pieces a word space apart are one cell: a footnote mark or a superscript set on its own
            # baseline, not a table's column.
            cells = first.cells + line.cells - (line.x0 - first.x1 < CELL_GAP * max(first.size, line.size))
            first = TextLine(f"{first.text} {line.text}", first.x0, min(first.top, line.top), line.x1,
                             max(first.bottom, line.bottom), max(first.size, line.size), first.bold and line.bold,
                             first.column, cells, first.para, first.baseline,
                             link=first.link and line.link, lead_bold=first.lead_bold, mono=first.mono and line.mono)
        out.append(first)
    return out


def _restore_bullets(lines: list[TextLine], marks: list[tuple]) -> None:
    """A bullet drawn as a shape (Chromium's list discs) is no character: written back as "•" before the line
    it marks, so that each item of the list starts as one (text.BULLET)."""
    for x0, top, x1, bottom in marks:
        middle = (top + bottom) / 2
        for line in lines:
            if (line.top <= middle <= line.bottom and bottom - top < line.size and 0 <= line.x0 - x1 < 1.5 * line.size
                    and not BULLET.match(line.text)):
                # The line starts where its bullet does, as with a bullet glyph: its next lines, under the
                # text, are indented from it.
                line.text, line.x0 = "• " + line.text, x0
                break


def _place(lines: list[TextLine], table: TextLine, ordered: bool) -> None:
    """A table among the page's lines: at the end where the order is yet to be found, else before the first
    line under its top that shares its width."""
    if ordered:
        for i, line in enumerate(lines):
            if line.top >= table.top - 1 and line.x0 < table.x1 and table.x0 < line.x1:
                lines.insert(i, table)
                return
    lines.append(table)


def read_page(doc, index: int, laid_out=None) -> PageText | None:
    """One page's text from pdfium (None when it has no text layer: a scan, read by OCR instead). `laid_out`:
    the page as poppler laid it out (poppler.py), whose words, lines, blocks and order are then the page's."""
    from indexer.pdf.page.tables import ruled_tables

    chars, rules, links = _page_layers(doc, index, laid_out)
    if not chars.chars:
        return None
    w, h = chars.box[2] - chars.box[0], chars.box[3] - chars.box[1]
    # Tables first, from the characters, so that a cell holding a lone number or letter stays in its row.
    tables, rest = ruled_tables(chars.chars, chars.fonts, rules, segments)
    if chars.rotation != 0:
        laid_out = None
    more, pieces = _text_pieces(chars, rest, tables, laid_out)
    lines = _readable(pieces, links)
    if laid_out is not None:
        from indexer.pdf.page.poppler_lines import join_cell_rows, join_link_rows

        lines = join_cell_rows(join_link_rows(lines))
    _restore_bullets(lines, rules.marks if rules else [])
    for table in map(table_line, tables + more):
        _place(lines, table, ordered=laid_out is not None)
    page = split_page(index, w, h, lines, chars.rotation)
    page.ordered = laid_out is not None
    edges = {id(piece) for row in page.edges for piece in row.pieces}
    page.lines = [line for line in page.lines if id(line) in edges or not line.text.isdigit() or line.beside]
    return page


def _page_layers(doc, index: int, laid_out):
    """The page's characters, its ruled lines and its links, read from pdfium; the page closed after."""
    from indexer.pdf.page.chars import UPRIGHT, page_chars
    from indexer.pdf.page.rules import page_links, page_rules

    try:
        page = doc[index]
    except Exception:  # pdfium on a damaged page tree (its message is English)
        raise PdfError(f"la page {index + 1} du PDF est illisible ou endommagée") from None
    try:
        chars = page_chars(page, TILT if laid_out is not None else UPRIGHT)
        rules = page_rules(page, chars.box) if chars.chars else None
        links = page_links(page, chars.box) if chars.chars else []
    except Exception:
        raise PdfError(f"la page {index + 1} du PDF est illisible ou endommagée") from None
    finally:
        page.close()
    return chars, rules, links


def _text_pieces(chars, rest, tables, laid_out) -> tuple[list, list[TextLine]]:
    """(tables found by alignment, the page's lines): poppler's lines where it laid the page out, else lines
    built from the glyphs left outside the ruled tables."""
    from indexer.pdf.page.aligned_tables import aligned_tables

    if laid_out is not None:
        from indexer.pdf.page.poppler_lines import join_lone_numbers, text_lines

        more, pieces = aligned_tables(text_lines(laid_out, chars.chars, chars.fonts,
                                                 [(t.x0, t.top, t.x1, t.bottom) for t in tables]))
        return more, join_lone_numbers(pieces)
    return aligned_tables([line for line in segments(rest, chars.fonts) if line.text])


def _readable(pieces: list[TextLine], links: list) -> list[TextLine]:
    """The lines that can be rule text, each marked when a lone number beside text or a link of its own."""
    # What cannot be rule text is not kept until the end (a page of music is thousands of glyph pieces):
    # a lone number stays only among the edge rows, where it may be the page's.
    lines = [line for line in pieces if line.text.isdigit() or reads_as_text(line.text, numbers_too=True)]
    # A lone number beside text on its line stays with it (a page number in a table of contents).
    texts = [(line.baseline, line.size) for line in lines if not line.text.isdigit()]
    for line in lines:
        if line.text.isdigit():
            line.beside = any(abs(b - line.baseline) <= 0.3 * max(s, 1) for b, s in texts)
    for line in lines:
        line.link = any(x0 <= line.x0 + 1 and line.x1 - 1 <= x1 and top <= (line.top + line.bottom) / 2 <= bottom
                        for x0, top, x1, bottom in links)
    return lines
