"""A page's lines from poppler's own layout analysis (`pdftotext -bbox-layout`, Debian's poppler-utils, run as a
separate program: poppler is GPL), with the faces from pdfium's characters.

Poppler builds words from glyphs the way professional typesetting needs (tracking, kerning, justified spacing,
ligatures), and groups them into lines, blocks and flows in reading order (threaded text frames, columns, text
wrapped around pictures). What it does not give, each word's size and weight, comes from the pdfium characters
its box holds; tables ruled on the page are still read from those characters (tables.py). Each line carries its
poppler block (`para`), which says which lines are one paragraph, and the page's order is final.
"""

import re
import shutil
import subprocess
import unicodedata
from collections import Counter
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from indexer.errors import PdfError
from indexer.pdf.lines import TextLine, _median
from indexer.pdf.text import normalise

TIMEOUT = 300  # seconds for one chunk of pages
DROP_CAP = 1.8  # a lone capital this many times the height of the line beside it is an initial


@dataclass
class Word:
    text: str
    x0: float
    top: float
    x1: float
    bottom: float


@dataclass
class Line:
    words: list[Word]
    x0: float
    top: float
    x1: float
    bottom: float


@dataclass
class Block:
    lines: list[Line]
    flow: int


@dataclass
class Page:
    width: float
    height: float
    blocks: list[Block] = field(default_factory=list)


def available() -> bool:
    return shutil.which("pdftotext") is not None


def _box(el) -> tuple[float, float, float, float]:
    return tuple(float(el.get(k, 0)) for k in ("xMin", "yMin", "xMax", "yMax"))


def poppler_pages(pdf: Path, first: int, last: int) -> list[Page]:
    """Pages first..last (1-based, inclusive) as poppler lays them out, in its reading order."""
    exe = shutil.which("pdftotext")
    if exe is None:
        raise PdfError("pdftotext est introuvable : installez poppler-utils (make pdf-deps)")
    try:
        run = subprocess.run([exe, "-q", "-cropbox", "-bbox-layout", "-enc", "UTF-8", "-f", str(first), "-l", str(last),
                              str(pdf), "-"], capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise PdfError(f"{Path(pdf).name} : pdftotext n'a pas fini en {TIMEOUT} s") from None
    if run.returncode != 0:
        raise PdfError(f"{Path(pdf).name} : pdftotext a échoué (code {run.returncode})")
    return parse_bbox_layout(run.stdout)


def parse_bbox_layout(xhtml: bytes) -> list[Page]:
    """pdftotext's -bbox-layout XHTML -> pages of flows, blocks, lines and words (points, top-down), mended."""
    # Characters XML forbids (a glyph mapped to a control code) would stop the parser: they carry no text.
    xhtml = CONTROLS.sub(b"", xhtml)
    try:
        root = ET.fromstring(xhtml)
    except ET.ParseError as exc:
        raise PdfError(f"sortie de pdftotext illisible ({exc})") from None
    pages = [_page(el) for el in root.iter() if _tag(el) == "page"]
    for page in pages:
        split_rivers(page)
        rejoin_rows(page)
        interleave_terms(page)
        join_term_rows(page)
        defer_continuations(page)
    return pages


def _children(el, tag: str):
    return (child for child in el if _tag(child) == tag)


def _page(page_el) -> Page:
    page = Page(float(page_el.get("width", 0)), float(page_el.get("height", 0)))
    for f, flow in enumerate(_children(page_el, "flow")):
        for block_el in _children(flow, "block"):
            lines = _one_per_baseline([line for line in map(_line, _children(block_el, "line")) if line])
            if lines:
                page.blocks.append(Block(lines, f))
    return page


def _line(line_el) -> Line | None:
    """A line of words, its box its words' (what poppler writes, and all that is read); None without words."""
    words = [Word(w.text, *_box(w)) for w in _children(line_el, "word") if _letters(w.text)]
    if not words:
        return None
    return Line(words, min(w.x0 for w in words), min(w.top for w in words), max(w.x1 for w in words),
                max(w.bottom for w in words))


MARKER = re.compile(r"^(?:[^\w\s]{1,2}|\d{1,3}[.)]?|[a-zA-Z][.)]|\(\w{1,3}\))$")  # a bullet, "12.", "b)", "(ii)"
RIVER_ROWS = 4  # consecutive lines a white gap runs down at one place to be a gutter (lines.py's rule)
RIVER_GAP = 0.5  # line heights (0.6 font sizes): a narrower gap is a word space


def split_rivers(page: Page) -> None:
    """Two columns set close together that poppler read as one (LaTeX's multicol, 10 points apart): a white gap
    running down RIVER_ROWS rows of the page or more at one place, with words on both sides, cuts the blocks
    whose lines cross it there, the left column read first. A word across that place (a title over both) leaves
    its block whole."""
    import numpy as np

    rows: dict[int, list[Word]] = {}
    heights: dict[int, float] = {}
    for block in page.blocks:
        for line in block.lines:
            key = round(line.bottom)
            rows.setdefault(key, []).extend(line.words)
            heights[key] = line.bottom - line.top
    width = int(page.width) + 2
    if len(rows) < RIVER_ROWS or width < 3:
        return
    white = np.zeros((len(rows), width), dtype=bool)  # row r is white at x inside a wide gap between two words
    for r, key in enumerate(sorted(rows)):
        words = sorted(rows[key], key=lambda w: w.x0)
        for a, b in zip(words, words[1:]):
            # A list's marker and its item's text are set apart at one place down the list: no gutter.
            if b.x0 - a.x1 >= RIVER_GAP * heights[key] and not MARKER.match(a.text):
                white[r, max(int(a.x1) + 1, 0):max(int(b.x0), 0)] = True
    run, best = np.zeros(width, dtype=int), np.zeros(width, dtype=int)
    for row in white:
        run = np.where(row, run + 1, 0)
        best = np.maximum(best, run)
    river = best >= RIVER_ROWS
    # One cut in the middle of each stretch of river.
    edges = np.flatnonzero(np.diff(np.concatenate(([0], river.astype(int), [0]))))
    cuts = [(start + stop - 1) / 2 for start, stop in zip(edges[::2], edges[1::2])]
    if cuts:
        page.blocks = [part for block in page.blocks for part in _cut_all(block, cuts)]


def _cut_all(block: Block, cuts: list[float]) -> list[Block]:
    x0 = min(line.x0 for line in block.lines)
    x1 = max(line.x1 for line in block.lines)
    inside = [x for x in cuts if x0 < x < x1]
    if not inside:
        return [block]
    parts = _cut(block, inside[0])
    if len(parts) == 1:
        return _cut_all(block, inside[1:]) if len(inside) > 1 else parts
    return [piece for part in parts for piece in _cut_all(part, inside[1:])]


def _cut(block: Block, x: float) -> list[Block]:
    words = [w for line in block.lines for w in line.words]
    if any(w.x0 < x < w.x1 for w in words) or all(w.x1 <= x for w in words) or all(w.x0 >= x for w in words):
        return [block]
    if not all(_gutter_at(line, x) for line in block.lines):
        return [block]
    halves = ([Line(ws, ws[0].x0, line.top, ws[-1].x1, line.bottom) for line in block.lines
               if (ws := [w for w in line.words if (w.x1 <= x) == left])] for left in (True, False))
    return [Block(half, block.flow) for half in halves if half]


def _gutter_at(line: Line, x: float) -> bool:
    """Whether the line leaves the river's width of white at x, or holds words on one side of it only: a paragraph
    under a table, whose word spaces happen to fall under the table's column gaps, is no pair of columns."""
    left = [w for w in line.words if w.x1 <= x]
    right = [w for w in line.words if w.x0 >= x]
    if not left or not right:
        return True
    return min(w.x0 for w in right) - max(w.x1 for w in left) >= RIVER_GAP * (line.bottom - line.top)


ENDS = tuple(".!?:…»\")")


def defer_continuations(page: Page) -> None:
    """A column's top block that goes on a sentence left unfinished at the foot of the column to its left
    ("autrement." over the next column, read by poppler before it): moved after that paragraph."""
    blocks = page.blocks
    i = 0
    while i < len(blocks):
        first = blocks[i].lines[0].words[0].text
        top, x0 = blocks[i].lines[0].top, min(line.x0 for line in blocks[i].lines)
        if first[:1].islower() and not (i and _goes_on_into(blocks[i - 1], x0)):
            for j in range(i + 1, len(blocks)):
                last = blocks[j].lines[-1]
                if _goes_on_into(blocks[j], x0) and last.bottom > top:
                    blocks.insert(j, blocks.pop(i))
                    break
            else:
                i += 1
            continue
        i += 1


TERM_WORDS = 4  # a one-line block this short, one of several aligned down a page, may be a glossary's term


def interleave_terms(page: Page) -> None:
    """A glossary set as terms over (or beside) indented definitions, that poppler read as two columns (every term,
    then every definition): read term, definition, term, definition, by their height on the page."""
    blocks, i = page.blocks, 0
    while i < len(blocks):
        x0 = _left(blocks[i])
        j = i
        while (j < len(blocks) and len(blocks[j].lines) == 1 and abs(_left(blocks[j]) - x0) < 2
               and len(blocks[j].lines[0].words) <= TERM_WORDS):
            j += 1
        k = j
        while k < len(blocks) and _left(blocks[k]) > x0 + 5 and blocks[k].lines[0].top >= blocks[i].lines[0].top - 2:
            k += 1
        if j - i >= 2 and k - j >= 2:
            blocks[i:k] = sorted(blocks[i:k], key=lambda b: (round(b.lines[0].top), _left(b)))
            i = k
        else:
            i += 1


def join_term_rows(page: Page) -> None:
    """A glossary set as terms with one-line definitions beside them, further than a cell's gap (groff's tagged
    paragraphs): poppler gives each term a block of its own, beside its definition's, and downstream the narrower
    gaps are read as rows, the wider as a heading over a paragraph. Where two terms or more in a row, at one left
    edge, each start a definition of one line, the term goes at the head of that line. A definition of several
    lines hangs under its term (read as term and definition by units.py); a column's short last line beside the
    next column's first happens once, not row after row. A list's marker alone in its block goes on its item's
    line too."""
    blocks = page.blocks
    pairs = [i for i in range(len(blocks) - 1) if _term_beside(blocks[i], blocks[i + 1])]
    joined = {i for i in pairs if _marker_block(blocks[i])}
    for run in _glossaries(blocks, pairs):
        if len(run) >= 2 and all(len(blocks[i + 1].lines) == 1 for i in run):
            joined.update(run)
    for i in sorted(joined, reverse=True):
        term, line = blocks[i].lines[0], blocks[i + 1].lines[0]
        line.words = term.words + line.words
        line.x0, line.top = term.x0, min(line.top, term.top)
        del blocks[i]


def _glossaries(blocks: list[Block], pairs: list[int]) -> list[list[int]]:
    """The pairs (term, definition) one after the other down one left edge."""
    runs: list[list[int]] = []
    for i in pairs:
        if runs and i == runs[-1][-1] + 2 and abs(_left(blocks[i]) - _left(blocks[runs[-1][-1]])) < 2:
            runs[-1].append(i)
        else:
            runs.append([i])
    return runs


def _marker_block(block: Block) -> bool:
    """A list's marker alone in its block ("1." set apart from its item's text), which goes on its item's line."""
    return len(block.lines) == 1 and len(block.lines[0].words) == 1 and bool(MARKER.match(block.lines[0].words[0].text))


def _term_beside(term: Block, definition: Block) -> bool:
    if len(term.lines) != 1 or len(term.lines[0].words) > TERM_WORDS:
        return False
    line, first = term.lines[0], definition.lines[0]
    height = line.bottom - line.top
    # A table of contents' page number beside its entry is no definition.
    worded = sum(any(ch.isalpha() for ch in w.text) for w in first.words) >= 2
    return worded and abs(first.bottom - line.bottom) < 0.3 * height and first.x0 > line.x1


def _left(block: Block) -> float:
    return min(line.x0 for line in block.lines)


def _goes_on_into(block: Block, x0: float) -> bool:
    """The block is a paragraph (two lines or more: a title is one) that ends a sentence unfinished, left of x0 (a
    column before)."""
    return (len(block.lines) >= 2 and not block.lines[-1].words[-1].text.endswith(ENDS)
            and max(line.x1 for line in block.lines) <= x0)


PIECE_WORDS = 5  # poppler cuts a loose line at its widest spaces: its pieces are a few words
ROW_GAP = 1.7  # line heights (about two font sizes): a wider gap on one baseline separates columns or cells


def rejoin_rows(page: Page) -> None:
    """A loosely justified line that poppler cut at its widest word gaps into one-word blocks ("deux" | "points" |
    "à" | "la") is one line again: a one-line block on the baseline of a line ending just left of it joins that
    line. A gap of two font sizes or more stays a gutter or a table's cell, as in lines.py."""
    ends: list[Line] = []  # every line, to find the one a piece goes on
    kept = []
    for block in page.blocks:
        if len(block.lines) == 1 and (len(block.lines[0].words) <= PIECE_WORDS or _leaders(block.lines[0].words)):
            piece = block.lines[0]
            height = piece.bottom - piece.top
            # A line hyphenated at its end goes on below, not beside: what stands there is another column's.
            left = [line for line in ends if abs(line.bottom - piece.bottom) < 0.2 * height
                    and abs((line.bottom - line.top) - height) < 0.2 * height
                    and -0.5 * height <= piece.x0 - line.x1 < ROW_GAP * height
                    and not line.words[-1].text.endswith("-")]
            if left:
                line = max(left, key=lambda line: line.x1)
                line.words = _touching_joined(sorted(line.words + piece.words, key=lambda w: w.x0), height)
                line.x1 = max(line.x1, piece.x1)
                continue
        ends += block.lines
        kept.append(block)
    page.blocks = kept


def _leaders(words: list[Word]) -> bool:
    """A table of contents' dot leaders and page number, cut from their entry ("Avancer" | ". . . . 5")."""
    return all(set(w.text) <= set(".…·") for w in words[:-1]) and (words[-1].text.isdigit()
                                                                   or set(words[-1].text) <= set(".…·"))


CONTROLS = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
SPACING_ACCENTS = set("´`ˆ^¨˜~¸ˇ˘˙˚¯˛˝")


def _letters(text: str | None) -> bool:
    """A word with something to read: not empty, not an accent drawn apart (TeX's "ˆ" over "o"; pdfium's
    characters put it back on its letter, `_spelt`)."""
    return bool(text and text.strip() and not set(text.strip()) <= SPACING_ACCENTS)


def _one_per_baseline(lines: list[Line]) -> list[Line]:
    """Lines of one block on one baseline are one line (poppler cuts a line where a glyph drawn apart, an
    accent, overlaps its neighbours)."""
    out: list[Line] = []
    for line in lines:
        height = line.bottom - line.top
        same = next((o for o in out if abs(o.bottom - line.bottom) < 0.2 * height), None)
        if same is None:
            out.append(line)
            continue
        same.words = sorted(same.words + line.words, key=lambda w: w.x0)
        same.x0, same.x1 = min(same.x0, line.x0), max(same.x1, line.x1)
    for line in out:
        line.words = _touching_joined(line.words, line.bottom - line.top)
    return out


def _tag(el) -> str:
    return el.tag.rsplit("}", 1)[-1]


class _Faces:
    """The pdfium characters of a page, found by the box that holds their centre: a line's by its height, then
    each of its words' by its width."""

    def __init__(self, chars, fonts):
        import numpy as np

        self.fonts = fonts
        self.chars = sorted(chars, key=lambda c: c.top + c.bottom)
        self.cy = np.array([(c.top + c.bottom) / 2 for c in self.chars])
        self.cx = np.array([(c.x0 + c.x1) / 2 for c in self.chars])

    def words(self, line: "Line", words: list[Word]) -> list[list]:
        import numpy as np

        lo, hi = np.searchsorted(self.cy, line.top - 0.5), np.searchsorted(self.cy, line.bottom + 0.5, "right")
        xs = self.cx[lo:hi]
        order = np.argsort(xs, kind="stable")
        xs, index = xs[order], order + lo
        out = []
        for w in words:
            a, b = np.searchsorted(xs, w.x0 - 0.5), np.searchsorted(xs, w.x1 + 0.5, "right")
            out.append([self.chars[i] for i in index[a:b]])
        return out

    def bold(self, chars) -> bool:
        letters = [c for c in chars if c.text.isalnum()] or chars
        return bool(letters) and sum(self.fonts[c.font].bold for c in letters) > len(letters) / 2


def text_lines(page: Page, chars, fonts, skip=()) -> list[TextLine]:
    """The page's lines as the import's TextLines: size and weight from the characters each word holds, its
    poppler block as `block`. `skip`: boxes (x0, top, x1, bottom) whose words are read otherwise (tables)."""
    faces = _Faces(chars, fonts)
    out = []
    for b, block in enumerate(page.blocks):
        for line in block.lines:
            words = _touching_joined([w for w in line.words if not any(_centre_in(w, box) for box in skip)],
                                     line.bottom - line.top)
            words, held = _upright(words, faces.words(line, words) if words else [])
            cap = _initial(words, held) if words else None
            if cap is not None:
                out.append(cap)
            if words:
                out.append(_text_line(line, words, held, faces, b, cap is not None))
    return join_run_in_titles(join_drop_caps(out))


def _upright(words: list[Word], held: list[list]) -> tuple[list[Word], list[list]]:
    """The words with an upright glyph of pdfium's under them, and their glyphs: a word with none is set along a
    curve or turned (a label in the artwork, "Tem" "pête"), no line of the rules; a lone mark (a bullet) stays."""
    kept = [(w, cs) for w, cs in zip(words, held) if cs or not any(ch.isalnum() for ch in w.text)]
    return [w for w, _ in kept], [cs for _, cs in kept]


def _text_line(line: Line, words: list[Word], held: list[list], faces: _Faces, block: int, capped: bool) -> TextLine:
    """One poppler line as a TextLine, its face that of its text (a lead-in aside), its box its words' (a drop cap
    taken out of it no longer stretches it)."""
    every = [c for cs in held for c in cs]
    top, bottom = (min(c.top for c in every), max(c.bottom for c in every)) if capped and every else \
        (line.top, line.bottom)
    face = _text_face(every)
    height = line.bottom - line.top
    size = _median(c.size for c in face) if face else height / 1.2
    baseline = _median(c.baseline for c in every) if every else line.bottom - 0.2 * height
    bold = faces.bold(face)
    text = " ".join(_spelt(w, cs) for w, cs in zip(words, held))
    return TextLine(_bullet_apart(normalise(text)), min(w.x0 for w in words), top, max(w.x1 for w in words), bottom,
                    round(size, 2), bold, block=block, baseline=baseline,
                    lead_bold=0 if bold else _lead_bold(words, held, faces))


def _lead_bold(words: list[Word], held: list[list], faces: _Faces) -> int:
    """Characters of the words in bold that open the line (a run-in term)."""
    lead = 0
    for w, cs in zip(words, held):
        if not cs or not faces.bold(cs):
            break
        lead += len(w.text) + 1
    return lead


TOUCHING = 0.05  # of the line's height: words closer than this are one (poppler cut "72" at an empty glyph)
BULLETS = "•▪●■◦‣➢►✓"


def _touching_joined(words: list[Word], height: float) -> list[Word]:
    # A font whose boxes are far taller than its letters (Azul's, 37 points for 10-point text) would make every
    # word space "touching": the letters' own width bounds the size (a letter is about half an em wide).
    letters = sorted((w.x1 - w.x0) / len(w.text) for w in words if len(w.text) >= 3)
    if letters:
        height = min(height, 2 * letters[len(letters) // 2])
    out: list[Word] = []
    for w in words:
        if out and w.x0 - out[-1].x1 < TOUCHING * height and w.x0 > out[-1].x0:
            last = out[-1]
            out[-1] = Word(last.text + w.text, last.x0, min(last.top, w.top), max(last.x1, w.x1), max(last.bottom, w.bottom))
        else:
            out.append(w)
    return out


def _bullet_apart(text: str) -> str:
    """A bullet set tight against its item's first word ("•The") opens a list item all the same."""
    return f"{text[0]} {text[1:]}" if len(text) > 1 and text[0] in BULLETS and text[1].isalnum() else text


def _folded(text: str) -> str:
    return "".join(c for c in unicodedata.normalize("NFKD", text) if not unicodedata.combining(c) and not c.isspace())


def _spelt(word: Word, chars) -> str:
    """The word as pdfium's characters spell it where they are its letters with more accents: an accent drawn as
    a glyph of its own (TeX) is composed there (chars.py), poppler leaves it out ("materiel")."""
    if not chars or not any(unicodedata.combining(c) for c in unicodedata.normalize("NFD", "".join(x.text for x in chars))):
        return word.text
    spelt = "".join(c.text for c in sorted(chars, key=lambda c: c.x0))
    return spelt if _folded(spelt) == _folded(word.text) else word.text


def join_lone_numbers(lines: list[TextLine]) -> list[TextLine]:
    """A lone number on the baseline of a line to its left goes on that line as its last cell (an entry of a
    table of contents or a list of tables, its page number set far right), as the glyphs' rows have it."""
    return _onto_left(lines, lambda line: line.text.isdigit() and len(line.text) <= 4,
                      lambda o: o.table is None and not o.text.isdigit())


def _onto_left(lines: list[TextLine], piece, host) -> list[TextLine]:
    """Each `piece` line joins, as its last cell, the nearest `host` line left of it on its baseline."""
    out: list[TextLine] = []
    for line in lines:
        if piece(line):
            left = [o for o in out if host(o) and o.x1 < line.x0
                    and abs(o.baseline - line.baseline) < 0.3 * max(line.size, 1)]
            if left:
                row = max(left, key=lambda o: o.x1)
                row.text, row.x1, row.cells = f"{row.text} {line.text}", line.x1, row.cells + 1
                continue
        out.append(line)
    return out


CELL_WORDS = 3  # a piece this short, alone in its poppler block, may be one cell of a row
ROW_CELLS = 3  # pieces on one baseline that make a row of cells (a bar of links, a table's row)


def join_cell_rows(lines: list[TextLine]) -> list[TextLine]:
    """Three short pieces or more on one baseline, each alone in its poppler block, are one row of cells ("Précédent
    | Niveau supérieur | Sommaire | Suivant"), as the glyphs' rows have them."""
    alone = Counter(line.block for line in lines)
    cells = [line for line in lines if alone[line.block] == 1 and len(line.text.split()) <= CELL_WORDS
             and line.table is None]
    rows: list[list[TextLine]] = []
    for line in sorted(cells, key=lambda line: line.baseline):
        if rows and abs(rows[-1][0].baseline - line.baseline) < 0.3 * max(line.size, 1):
            rows[-1].append(line)
        else:
            rows.append([line])
    gone: set[int] = set()
    for row in rows:
        if len(row) >= ROW_CELLS:
            row.sort(key=lambda line: line.x0)
            first = row[0]
            first.text, first.x1, first.cells = " ".join(line.text for line in row), row[-1].x1, len(row)
            first.link = all(line.link for line in row)
            gone |= {id(line) for line in row[1:]}
    return [line for line in lines if id(line) not in gone]


def join_link_rows(lines: list[TextLine]) -> list[TextLine]:
    """Links side by side on one baseline are one row of cells (a web page's bar "Précédent | Sommaire | Suivant"),
    as the glyphs' rows have them, for navigation to read as one."""
    return _onto_left(lines, lambda line: line.link, lambda o: o.link)


def _centre_in(w: Word, box) -> bool:
    cx, cy = (w.x0 + w.x1) / 2, (w.top + w.bottom) / 2
    return box[0] <= cx <= box[2] and box[1] <= cy <= box[3]


LEAD_IN = 0.9  # a line's letters this much smaller than its largest are its text, the larger ones a lead-in


def _text_face(chars: list) -> list:
    """The characters that set a line's size and weight: those of its text, not those of a lead-in set larger
    ("Quand plus personne ne peut jouer," in 12.5 points bold, then the sentence in 10) that opens it; a line
    so set is a paragraph's first line, not a heading."""
    letters = [c for c in chars if c.text.isalnum()]
    if not letters:
        return chars
    largest = max(c.size for c in letters)
    text = [c for c in letters if c.size < LEAD_IN * largest]
    return text if len(text) >= 0.2 * len(letters) else chars


def _initial(words: list[Word], held: list[list]) -> TextLine | None:
    """A drop cap that poppler set in a line beside it ("Ujoueur", or "U" before "joueur"): a capital opening the
    line in a font DROP_CAP times the size of the rest, taken out of the line as a line of its own."""
    first = sorted(held[0], key=lambda c: c.x0)
    rest = first[1:] + [c for cs in held[1:] for c in cs]
    if not first or not rest or not (first[0].text.isalpha() and first[0].text.isupper()):
        return None
    c = first[0]
    if c.size < DROP_CAP * _median(x.size for x in rest) or not words[0].text.startswith(c.text):
        return None
    words[0].text = words[0].text[len(c.text):]
    held[0] = first[1:]
    if not words[0].text:
        del words[0], held[0]
    else:
        words[0].x0 = first[1].x0 if len(first) > 1 else words[0].x0
    return TextLine(c.text, c.x0, c.top, c.x1, c.bottom, round(c.size, 2), False, baseline=c.baseline)


RUN_IN_WORDS = 5  # a run-in title in bold ("3. Les lanternes") is a few words


def join_run_in_titles(lines: list[TextLine]) -> list[TextLine]:
    """A run-in title in bold that poppler cut from the rest of its line at the wider space after it (LaTeX's
    \\paragraph): the title opens its block, whose next line sits under it, and the rest of the first line is a
    block of one line of its own on the title's baseline. That line goes back after the title."""
    out = list(lines)
    for i, title in enumerate(lines[:-1]):
        below = lines[i + 1]
        if not (title.bold and below.block == title.block and not below.bold
                and len(title.text.split()) <= RUN_IN_WORDS and (i == 0 or lines[i - 1].block != title.block)):
            continue
        rest = [line for line in lines if line.block != title.block and not line.bold
                and abs(line.baseline - title.baseline) < 0.3 * title.size
                and 0 < line.x0 - title.x1 < ROW_GAP * title.size
                and sum(other.block == line.block for other in lines) == 1]
        if len(rest) == 1 and rest[0] in out:
            out.remove(rest[0])
            title.lead_bold = len(title.text) + 1  # as _lead_bold counts: each word and its space
            title.text = f"{title.text} {rest[0].text}"
            title.x1, title.bold = rest[0].x1, False
    return out


def join_drop_caps(lines: list[TextLine]) -> list[TextLine]:
    """A drop cap (a lone capital set large beside the first lines of its paragraph) goes back into its word:
    "U" + "ne chaude brise" -> "Une chaude brise"."""
    out = []
    for line in lines:
        if len(line.text) == 1 and line.text.isalpha() and line.text.isupper():
            word = _capped(line, lines)
            if word is not None:
                word.text = line.text + word.text
                word.x0 = line.x0
                continue
        out.append(line)
    return out


def _capped(cap: TextLine, lines: list[TextLine]) -> TextLine | None:
    """The line a drop cap opens: the first one to its right, starting within its height, a larger cap."""
    height = cap.bottom - cap.top
    best = None
    for line in lines:
        if line is cap or len(line.text) < 2:
            continue
        tall = line.bottom - line.top
        if (height >= DROP_CAP * tall and cap.top - 1.2 * tall <= line.top <= cap.top + 0.6 * height
                and 0 <= line.x0 - cap.x1 <= max(tall, 0.3 * height)):
            if best is None or line.top < best.top:
                best = line
    return best
