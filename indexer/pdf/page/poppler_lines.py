"""Poppler's lines as the import's TextLines: each word's size and weight from the pdfium characters its box holds,
the lead-ins, drop caps and run-in titles put back into their lines, and the rows of cells or links joined."""

import unicodedata
from collections import Counter

from indexer.pdf.page.lines import TextLine, _median
from indexer.pdf.page.poppler_blocks import ROW_GAP
from indexer.pdf.page.poppler_boxes import Line, Page, Word, _touching_joined
from indexer.pdf.text import normalise

DROP_CAP = 1.8  # a lone capital this many times the height of the line beside it is an initial
BULLETS = "•▪●■◦‣➢►✓"


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
