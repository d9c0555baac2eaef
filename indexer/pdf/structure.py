"""Positioned lines -> the rulebook's blocks: headings (from font size and weight), paragraphs (lines joined,
hyphenated words rejoined, a paragraph running over a column or page break kept whole and citing both
pages), list items and table rows (kept as lines)."""

import re
from collections import Counter
from dataclasses import dataclass, field

from indexer.pdf.layout import PageText, TextLine
from indexer.pdf.text import join_hyphenated, reads_as_text

BULLET = re.compile(r"^[•▪◦‣●■□➢►✓–—*+-]\s+")  # "+": how tesseract often reads a bullet
DASH = re.compile(r"^[–—-]\s+")  # a dash starts a list item, or goes on a sentence wrapped before it
ENDS_SENTENCE = re.compile(r"[.!?:…»\"')]$")
ENDS_CLAUSE = re.compile(r"[.!?:;…]$")
NOT_A_TITLE = re.compile(r"[.,;]$")  # a heading does not end like a sentence or a clause
# An entry of a table of contents or an index: a dot leader and page numbers ("Fin ....... 12").
LEADER = re.compile(r"(?:\.\s?){4,}|…{2,}|(?:\s\.){3,}")
WORD = re.compile(r"\w[\w'-]*\w|\w")
BARE = re.compile(r"^\W*\d{1,4}\W*$")  # a lone number (a page or footnote number, a bar number)
HEADING_RATIO = 1.12  # a line this much larger than the body text is a heading


@dataclass
class Block:
    kind: str  # "h", "p", "li" or "row"
    text: str
    level: int = 0  # headings: 1..3
    pages: list[int] = field(default_factory=list)
    # Where the block's lines are printed: (printed page, x0, top, x1, bottom) as fractions of the page.
    boxes: list[tuple] = field(default_factory=list)
    _last: TextLine | None = None
    _last_page: int = -1
    _x0: float = 0.0


def _body_size(lines: list[TextLine]) -> float:
    sizes = Counter()
    for line in lines:
        sizes[round(line.size * 2) / 2] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


class _Styles:
    def __init__(self, lines: list[TextLine]):
        self.body = _body_size(lines)
        big = sorted({round(line.size * 2) / 2 for line in lines
                      if line.size >= self.body * HEADING_RATIO and len(line.text) <= 120}, reverse=True)
        self.levels = {size: min(i + 1, 3) for i, size in enumerate(big)}
        self.bold_level = min(len(big) + 1, 3)

    def kind(self, line: TextLine, alone: bool = True) -> tuple[str, int]:
        size = round(line.size * 2) / 2
        # OCR: a title is a paragraph of its own in tesseract's layout, not a line of a longer one.
        title = reads_as_text(line.text) and not NOT_A_TITLE.search(line.text) and alone
        if size in self.levels and title:
            return "h", self.levels[size]
        if (line.bold and abs(line.size - self.body) < 0.6 and len(line.text) <= 60 and title
                and not ENDS_SENTENCE.search(line.text) and line.text[:1].isupper()):
            return "h", self.bold_level
        if BULLET.match(line.text):
            return "li", 0
        if line.cells > 1:
            return "row", 0
        return "p", 0


def _box(page: PageText, number: int, line: TextLine) -> tuple:
    return (number, *page.fraction(line))


def _continues(block: Block, kind: str, level: int, line: TextLine, page_index: int, pitch: float = 0.0) -> bool:
    last = block._last
    if block.kind == "row":  # a table row is one line
        return False
    if block.kind == "h":  # a heading goes on only with a line of the same level (a two-line title)
        if kind != "h" or level != block.level:
            return False
    elif kind != "p":  # a paragraph or a list item goes on with plain lines only
        return False
    same_flow = page_index == block._last_page and last.column == line.column and line.top > last.top
    if same_flow and last.para is not None and line.para is not None:
        # OCR: tesseract's own paragraphs say which lines go together, whatever their box heights.
        return last.para == line.para and (block.kind != "li" or line.x0 > block._x0 + 1)
    if abs(last.size - line.size) > max(0.6, 0.2 * line.size):
        return False
    # A line mostly in bold inside a sentence (a keyword wrapped onto it) goes on; after a finished
    # sentence, a change of weight starts a new block.
    if last.bold != line.bold and (block.kind == "h" or ENDS_SENTENCE.search(block.text)):
        return False
    if same_flow:
        if block.kind == "li" and line.x0 <= block._x0 + 1:
            return False
        if ENDS_SENTENCE.search(block.text) and abs(line.x0 - last.x0) > 0.8 * line.size:
            return False  # an indented first line, or the line after an indented quote: a new paragraph
        if pitch:
            return line.baseline - last.baseline <= pitch * 1.15
        return line.top - last.bottom < 0.6 * line.size
    # Over a column or page break: only an unfinished sentence that goes on in lowercase.
    return block.kind != "h" and not ENDS_SENTENCE.search(block.text) and line.text[:1].islower()


def _pitches(stream) -> dict[float, float]:
    """The usual distance between the baselines of two lines of one paragraph, per font size: the mode
    of the distances between consecutive lines of one size in one column (paragraph gaps are rarer)."""
    seen: dict[float, Counter] = {}
    for (page, _, a), (other, _, b) in zip(stream, stream[1:]):
        if page is other and a.column == b.column and a.para is None and abs(a.size - b.size) < 0.3:
            delta = b.baseline - a.baseline
            if 0.8 * b.size < delta < 2.5 * b.size:
                seen.setdefault(round(b.size * 2) / 2, Counter())[round(delta * 2) / 2] += 1
    return {size: c.most_common(1)[0][0] for size, c in seen.items() if sum(c.values()) >= 3}


def _dash_goes_on(block: Block | None, line: TextLine, page_index: int) -> bool:
    """A dash at a line start that continues the sentence of the line before ("le joueur – s'il le veut –
    pioche"): the paragraph is unfinished, on the same page and column, and the line is not indented."""
    if block is None or block.kind != "p" or ENDS_CLAUSE.search(block.text):
        return False
    last = block._last
    return (page_index == block._last_page and last.column == line.column and line.top > last.top
            and line.x0 <= last.x0 + 0.5 * line.size and line.top - last.bottom < 0.6 * line.size
            and abs(last.size - line.size) < 0.6)


def build_blocks(pages: list[PageText | None], numbers: list[int | None]) -> list[Block]:
    stream = []
    for page in pages:
        if page is None or numbers[page.index] is None:
            continue
        for line in page.lines:
            if LEADER.search(line.text) or not reads_as_text(line.text, numbers_too=True) or BARE.match(line.text):
                continue  # a table of contents or index entry, a row of symbols or music glyphs, a number
            stream.append((page, numbers[page.index], line))
    styles = _Styles([line for _, _, line in stream])
    pitches = _pitches(stream)
    paragraphs = Counter((page.index, line.para) for page, _, line in stream if line.para is not None)
    vocabulary = {w.lower() for _, _, line in stream for w in WORD.findall(line.text)}
    blocks: list[Block] = []
    for page, number, line in stream:
        text = line.text
        if text.endswith("\u00ad"):
            text = text[:-1] + "-"
        text = text.replace("\u00ad", "")
        current = blocks[-1] if blocks else None
        kind, level = styles.kind(line, line.para is None or paragraphs[(page.index, line.para)] == 1)
        if kind == "li" and DASH.match(text) and _dash_goes_on(current, line, page.index):
            kind = "p"
        elif kind == "h" and line.bold and level == styles.bold_level and _dash_goes_on(current, line, page.index):
            kind = "p"  # emphasis inside a sentence, not a title
        elif kind == "li":
            text = BULLET.sub("", text)
        if current is not None and _continues(current, kind, level, line, page.index,
                                              pitches.get(round(line.size * 2) / 2, 0.0)):
            if current.text.endswith("-") and current.text[-2:-1].isalpha():
                current.text = join_hyphenated(current.text, text, vocabulary)
            else:
                current.text = f"{current.text} {text}"
        else:
            current = Block(kind, text, level, _x0=line.x0)
            blocks.append(current)
        current._last, current._last_page = line, page.index
        if number not in current.pages:
            current.pages.append(number)
        current.boxes.append(_box(page, number, line))
    return [b for b in blocks if b.text.strip()]
