"""Positioned lines -> the rulebook's blocks: headings (from font size and weight), paragraphs (lines joined,
hyphenated words rejoined, a paragraph running over a column or page break kept whole and citing both
pages), list items and table rows (kept as lines)."""

import re
from collections import Counter
from dataclasses import dataclass, field

from indexer.pdf.layout import PageText, TextLine
from indexer.pdf.numbering import body_margin_lines
from indexer.pdf.text import join_hyphenated

BULLET = re.compile(r"^[•▪◦‣●■□➢►✓–—*+-]\s+")  # "+": how tesseract often reads a bullet
ENDS_SENTENCE = re.compile(r"[.!?:…»\"')]$")
WORD = re.compile(r"\w[\w'-]*\w|\w")
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

    def kind(self, line: TextLine) -> tuple[str, int]:
        size = round(line.size * 2) / 2
        if size in self.levels and any(c.isalpha() for c in line.text):
            return "h", self.levels[size]
        if (line.bold and abs(line.size - self.body) < 0.6 and len(line.text) <= 60
                and not ENDS_SENTENCE.search(line.text) and line.text[:1].isupper()):
            return "h", self.bold_level
        if BULLET.match(line.text):
            return "li", 0
        if line.cells > 1:
            return "row", 0
        return "p", 0


def _box(page: PageText, number: int, line: TextLine) -> tuple:
    return (number, round(line.x0 / page.width, 4), round(line.top / page.height, 4),
            round(line.x1 / page.width, 4), round(line.bottom / page.height, 4))


def _continues(block: Block, kind: str, level: int, line: TextLine, page_index: int) -> bool:
    last = block._last
    if block.kind == "row":  # a table row is one line
        return False
    if block.kind == "h":  # a heading goes on only with a line of the same level (a two-line title)
        if kind != "h" or level != block.level:
            return False
    elif kind != "p":  # a paragraph or a list item goes on with plain lines only
        return False
    # OCR sizes come from box heights, which vary with ascenders and descenders: compare them loosely.
    if abs(last.size - line.size) > max(0.6, 0.2 * line.size) or last.bold != line.bold:
        return False
    same_flow = page_index == block._last_page and last.column == line.column and line.top > last.top
    if same_flow and last.para is not None and line.para is not None:
        return last.para == line.para and (block.kind != "li" or line.x0 > block._x0 + 1)
    if same_flow:
        if block.kind == "li" and line.x0 <= block._x0 + 1:
            return False
        return line.top - last.bottom < 0.6 * line.size
    # Over a column or page break: only an unfinished sentence that goes on in lowercase.
    return block.kind != "h" and not ENDS_SENTENCE.search(block.text) and line.text[:1].islower()


def build_blocks(pages: list[PageText | None], numbers: list[int | None], running: set[str]) -> list[Block]:
    stream = []
    for page in pages:
        if page is None or numbers[page.index] is None:
            continue
        extra = body_margin_lines(page, running)
        top = [line for line in extra if line.top < page.height / 2]
        bottom = [line for line in extra if line.top >= page.height / 2]
        for line in top + page.lines + bottom:
            stream.append((page, numbers[page.index], line))
    styles = _Styles([line for _, _, line in stream])
    vocabulary = {w.lower() for _, _, line in stream for w in WORD.findall(line.text)}
    blocks: list[Block] = []
    for page, number, line in stream:
        text = line.text
        if text.endswith("\u00ad"):
            text = text[:-1] + "-"
        text = text.replace("\u00ad", "")
        kind, level = styles.kind(line)
        if kind == "li":
            text = BULLET.sub("", text)
        current = blocks[-1] if blocks else None
        if current is not None and _continues(current, kind, level, line, page.index):
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
