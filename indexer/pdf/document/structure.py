"""Positioned lines -> the rulebook's blocks: headings (from font size and weight), paragraphs (lines joined,
hyphenated words rejoined, a paragraph running over a column or page break kept whole and citing both
pages), list items (a bullet, or a number that starts an item: "1.", "b)"), tables (tables.py, each row on
its own page, a table continued on the next page joined) and the rows of pieces left (kept as lines).
The lines are the numbered pages' (`numbered_lines`), navigation's left out first (navigation.drop_lines)."""

import re
from collections import Counter
from dataclasses import dataclass

from indexer.pdf.document.blocks import Block
from indexer.pdf.document.paragraphs import ENDS_CLAUSE, ENDS_SENTENCE, _continues, _goes_on
from indexer.pdf.page.layout import PageText, TextLine
from indexer.pdf.text import BULLET, CAPTION, LEADER, join_hyphenated, reads_as_text

# A numbered item, step or section ("1.", "b)", "2.3"): the number is part of its text.
NUMBERED = re.compile(r"^(?:\d{1,2}[.)]|\d{1,2}(?:\.\d{1,2})+\.?|[a-z][.)])\s+\S")
# Who wrote or drew the rulebook: a line of the title page, never a heading.
AUTHOR = re.compile(r"(?i)^(?:(?:un|une)\s+(?:jeu|livret|manuel|règle)s?\b.{0,40}?\s(?:de|par)\s|par\s|"
                    r"(?:auteur|autrice|auteurs|illustrat\w*|illustré|traduct\w*|rédig\w*|conçu|imaginé|écrit)"
                    r"\b[^:]{0,20}?(?::|\s(?:de|par)\s)\s*)\S|[\w.+-]+@[\w-]+\.\w")
DASH = re.compile(r"^[–—-]\s+")  # a dash starts a list item, or goes on a sentence wrapped before it
NOT_A_TITLE = re.compile(r"[.,;]$")  # a heading does not end like a sentence or a clause
WORD = re.compile(r"\w[\w'-]*\w|\w")
BARE = re.compile(r"^\W*\d{1,7}\W*$")  # a lone number (a page or footnote number, a bar number)
HEADING_RATIO = 1.12  # a line this much larger than the body text is a heading
BOLD_HEADING_RATIO = 1.07  # a bold line this much larger too


def _body_size(lines: list[TextLine]) -> float:
    sizes = Counter()
    for line in lines:
        sizes[round(line.size * 2) / 2] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


SECTION_NUMBER = re.compile(r"^\d+(?:\.\d+)*\.?\s+")


class _Styles:
    def __init__(self, lines: list[TextLine]):
        self.body = _body_size(lines)
        # A heading is larger than the text, or a little larger and bold (LaTeX's 12 pt \large sections
        # over 11 pt text).
        big = {round(line.size * 2) / 2 for line in lines if line.size >= self.body * HEADING_RATIO
               and len(line.text) <= 120}
        self.bold_only = {round(line.size * 2) / 2 for line in lines if line.bold and line.para is None
                          and self.body * BOLD_HEADING_RATIO <= line.size < self.body * HEADING_RATIO
                          and len(line.text) <= 120}
        self.levels = {size: min(i + 1, 3) for i, size in enumerate(sorted(big | self.bold_only, reverse=True))}
        self.bold_level = min(len(self.levels) + 1, 3)

    def kind(self, line: TextLine, alone: bool = True) -> tuple[str, int]:
        size = round(line.size * 2) / 2
        # OCR: a title is a paragraph of its own in tesseract's layout, not a line of a longer one.
        reads = reads_as_text(line.text) and not NOT_A_TITLE.search(line.text) and not CAPTION.match(line.text)
        if self._sized_title(line, size, reads, alone):
            return "h", self.levels[size]
        if self._bold_title(line, reads, alone):
            return "h", self.bold_level
        if BULLET.match(line.text) or NUMBERED.match(line.text):
            return "li", 0
        if line.cells > 1:
            return "row", 0
        return "p", 0

    def _sized_title(self, line: TextLine, size: float, reads: bool, alone: bool) -> bool:
        """A line in a heading's size (and weight, where only bold makes that size a heading), standing alone."""
        # A large title wrapped after a comma ("Sentinelles d'Orage, / l'application de table") is one.
        wrapped = line.text.endswith(",") and size not in self.bold_only and reads_as_text(line.text) and alone
        titled = (reads and alone) or wrapped
        return (size in self.levels and (line.bold or size not in self.bold_only) and titled
                and not AUTHOR.search(line.text))

    def _bold_title(self, line: TextLine, reads: bool, alone: bool) -> bool:
        """A bold line of the text's size that opens the poppler block it titles (a step's name over its text)."""
        if not (line.bold and abs(line.size - self.body) < 0.6 and len(line.text) <= 60):
            return False
        return ((reads and alone) or (reads and line.block is not None)) and not ENDS_SENTENCE.search(line.text) \
            and SECTION_NUMBER.sub("", line.text)[:1].isupper() and not AUTHOR.search(line.text)


def _box(page: PageText, number: int, line: TextLine) -> tuple:
    return (number, *page.fraction(line))


def _right_edges(stream) -> dict[tuple[int, int], dict[int, float]]:
    """(page index, column) -> left margin rounded to 2 pt -> the furthest right its lines reach."""
    out: dict[tuple[int, int], dict[int, float]] = {}
    for page, _, line in stream:
        if line.table is None:
            margins = out.setdefault((page.index, line.column), {})
            margin = round(line.x0 / 2)
            margins[margin] = max(margins.get(margin, 0.0), line.x1)
    return out


def _right_of(rights: dict, page_index: int, line: TextLine) -> float | None:
    """The right edge of the lines that start at the line's margin or left of it (the column's own, where an
    indented definition sits under its term)."""
    margin = round(line.x0 / 2) + 1
    return max((r for m, r in rights.get((page_index, line.column), {}).items() if m <= margin), default=None)


def _pitches(stream) -> dict:
    """The usual distance between the baselines of two lines of one paragraph, per font size: the mode of
    the distances between a line and the next one that goes on its sentence in lowercase (a list spaced
    wider than its paragraphs' lines must not set it), else of all consecutive lines of one size. Also per
    font size and left margin (keys (size, margin)), from the wrapped lines alone: a list's items may be
    set with more leading than the paragraphs around them (DocBook's stylesheets)."""
    seen: dict[float, Counter] = {}
    wrapped: dict = {}
    for (page, _, a), (other, _, b) in zip(stream, stream[1:]):
        if (page is other and a.column == b.column and a.para is None and abs(a.size - b.size) < 0.3
                and a.table is None and b.table is None and not a.mono and not b.mono):  # code is set tighter
            delta = b.baseline - a.baseline
            if 0.8 * b.size < delta < 2.5 * b.size:
                key, step = round(b.size * 2) / 2, round(delta * 2) / 2
                seen.setdefault(key, Counter())[step] += 1
                if not ENDS_CLAUSE.search(a.text) and b.text[:1].islower():
                    wrapped.setdefault(key, Counter())[step] += 1
                    wrapped.setdefault((key, _margin(b)), Counter())[step] += 1
    out: dict = {size: c.most_common(1)[0][0] for size, c in seen.items() if sum(c.values()) >= 3}
    out.update({key: c.most_common(1)[0][0] for key, c in wrapped.items() if sum(c.values()) >= 2})
    return out


def _margin(line: TextLine) -> int:
    return round(line.x0 / 2)


def _pitch(pitches: dict, line: TextLine) -> float:
    size = round(line.size * 2) / 2
    return pitches.get((size, _margin(line))) or pitches.get(size, 0.0)


def _justified(stream, body: float) -> dict[tuple[int, int], float]:
    """(page index, column) -> the right edge its text is justified to, when the document's text is
    justified (many of its long lines of body text end at their column's right edge, not just the one
    that sets it)."""
    lines: dict[tuple[int, int], list[TextLine]] = {}
    for page, _, line in stream:
        if line.table is None and line.para is None and abs(line.size - body) < 0.6:
            lines.setdefault((page.index, line.column), []).append(line)
    edges, long, flush = {}, 0, 0
    for where, group in lines.items():
        edge, left = max(line.x1 for line in group), min(line.x0 for line in group)
        wide = [line for line in group if line.x1 - line.x0 >= 0.6 * (edge - left)]
        long += len(wide)
        flush += sum(1 for line in wide if line.x1 >= edge - 1.5) - 1  # one line ends there in any text
        edges[where] = edge
    # Justified or ragged is the document's choice: a page with too few lines to tell follows the others.
    return edges if long and flush >= 0.3 * long else {}


def _dash_goes_on(block: Block | None, line: TextLine, page_index: int) -> bool:
    """A dash at a line start that continues the sentence of the line before ("le joueur – s'il le veut –
    pioche"): the paragraph is unfinished, on the same page and column, and the line is not indented."""
    if block is None or block.kind != "p" or ENDS_CLAUSE.search(block.text):
        return False
    last = block._last
    return (page_index == block._last_page and last.column == line.column and line.top > last.top
            and line.x0 <= last.x0 + 0.5 * line.size and line.top - last.bottom < 0.6 * line.size
            and abs(last.size - line.size) < 0.6)


def numbered_lines(pages: list[PageText | None], numbers: list[int | None]) -> list[tuple]:
    """The (page, printed number, line) of the numbered pages' lines, in reading order, without rows of symbols
    or music glyphs and lone numbers. A line with a dot leader stays, whatever else it holds: it is an entry
    of a table of contents, list of tables or index, that navigation.drop_lines leaves out and counts."""
    return [(page, numbers[page.index], line) for page in pages
            if page is not None and numbers[page.index] is not None
            for line in page.lines if _kept(line)]


def _kept(line: TextLine) -> bool:
    if line.table is not None or LEADER.search(line.text):
        return True
    return reads_as_text(line.text, numbers_too=True) and not BARE.match(line.text)


@dataclass
class _Document:
    """What all the lines say about each one: their styles, spacing, margins, OCR paragraphs and words."""
    styles: _Styles
    pitches: dict  # the usual baseline distance, per font size (and left margin)
    edges: dict[tuple[int, int], float]  # (page index, column) -> the right edge of justified text
    rights: dict  # (page index, column) -> left margin -> the furthest right its lines reach
    paragraphs: Counter  # (page index, OCR paragraph) -> its lines
    vocabulary: set[str]  # the document's words, lowercased (a hyphen at a line end is kept or not)

    @classmethod
    def of(cls, stream: list[tuple]) -> "_Document":
        styles = _Styles([line for _, _, line in stream if line.table is None])
        return cls(styles, _pitches(stream), _justified(stream, styles.body), _right_edges(stream),
                   Counter((page.index, _group(line)) for page, _, line in stream if _group(line) is not None),
                   {w.lower() for _, _, line in stream for w in WORD.findall(line.text)})


def _group(line: TextLine) -> tuple | None:
    """The lines the reader set together with this one: tesseract's paragraph, or poppler's block. A title is
    alone in it (a lead-in set larger opens its paragraph, and is none)."""
    return line.para if line.para is not None else ("block", line.block) if line.block is not None else None


def build_blocks(stream: list[tuple]) -> list[Block]:
    """The blocks of the (page, printed number, line) stream (numbered_lines, navigation's lines left out)."""
    document = _Document.of(stream)
    blocks: list[Block] = []
    for page, number, line in stream:
        if line.table is not None:
            _add_table(blocks, page, number, line)
        else:
            _add_line(blocks, document, page, number, line)
    return [b for b in blocks if b.text.strip() or b.rows]


def _add_line(blocks: list[Block], document: _Document, page: PageText, number: int, line: TextLine) -> None:
    """The line goes on the last block, or starts a block of its own."""
    current = _open_paragraph(blocks, line, page.index)
    kind, level, numbered, text = _line_kind(document.styles, document.paragraphs, current, page, line)
    if current is not None and current is not (blocks[-1] if blocks else None):
        current.text = _joined(current, text, document.vocabulary)  # a paragraph found again (_open_paragraph)
    elif current is not None and _continues(current, kind, level, line, page.index,
                                          _pitch(document.pitches, line),
                                          document.edges.get((page.index, line.column)),
                                          _right_of(document.rights, current._last_page, current._last)):
        current.text = _joined(current, text, document.vocabulary)
    else:
        current = Block(kind, text, level, bold=line.bold, numbered=numbered, link=line.link,
                        mono=line.mono, _first=line, _x0=line.x0, _size=line.size)
        blocks.append(current)
    current._last, current._last_page = line, page.index
    if number not in current.pages:
        current.pages.append(number)
    current.boxes.append(_box(page, number, line))


LOOK_BACK = 8  # blocks searched for the paragraph a line of poppler's next block goes on


def _open_paragraph(blocks: list[Block], line: TextLine, page_index: int) -> Block | None:
    """The block the line may go on: the last one, or, for the first line of a poppler block that goes on an
    unfinished sentence in lowercase, the nearest paragraph left unfinished before a list or a caption that
    the reading order put after it (the paragraph at the foot of one column, its end at the top of the next)."""
    last = blocks[-1] if blocks else None
    if (last is None or last.kind == "p" or line.block is None or last._last.block == line.block
            or not line.text[:1].islower()):
        return last
    for block in reversed(blocks[-LOOK_BACK:-1]):
        if (block.kind == "p" and block._last_page in (page_index, page_index - 1) and block._last.block is not None
                and _goes_on(block, line)):
            return block
    return last


def _line_kind(styles: _Styles, paragraphs: Counter, current: Block | None, page: PageText,
               line: TextLine) -> tuple[str, int, bool, str]:
    """(kind, heading level, a list item that starts with its number, text): the line's text without its
    soft hyphens, and without its bullet when it opens a list item."""
    text = line.text
    if text.endswith("\u00ad"):
        text = text[:-1] + "-"
    text = text.replace("\u00ad", "")
    kind, level = styles.kind(line, _group(line) is None or paragraphs[(page.index, _group(line))] == 1)
    numbered = kind == "li" and not BULLET.match(text)
    if kind == "li" and (DASH.match(text) or numbered) and _dash_goes_on(current, line, page.index):
        kind = "p"
    elif kind == "h" and line.bold and level == styles.bold_level and _dash_goes_on(current, line, page.index):
        kind = "p"  # emphasis inside a sentence, not a title
    elif kind == "li" and not numbered:
        text = BULLET.sub("", text)
    return kind, level, kind == "li" and numbered, text


def _joined(block: Block, text: str, vocabulary: set[str]) -> str:
    """The block's text with the next line's, a word hyphenated over the line end rejoined."""
    if block.text.endswith("-") and block.text[-2:-1].isalpha():
        if block._last.mono:
            return block.text + text  # code is never hyphenated: its hyphen at a line end is its own
        return join_hyphenated(block.text, text, vocabulary)
    return f"{block.text} {text}"


def _add_table(blocks: list[Block], page: PageText, number: int, line: TextLine) -> None:
    """A table's block; a table that goes on at the top of the next page (as many columns, nothing between)
    joins the one before, its header repeated there left out."""
    table = line.table
    rows = [(cells, number, (number, *page.fraction(_row_line(box))))
            for cells, box in zip(table.rows, table.row_boxes)]
    # A header over no row is a row: its text is all the table has.
    header = rows.pop(0)[0] if table.header and any(any(cells) for cells, _, _ in rows[1:]) else []
    last = blocks[-1] if blocks else None
    if (last is not None and last.kind == "table" and last._last_page == page.index - 1 and rows and last.rows
            and len(last.rows[0][0]) == len(rows[0][0]) and (not header or header == last.header)):
        last.rows += rows
        last.pages += [number] if number not in last.pages else []
        last._last, last._last_page = line, page.index
        return
    block = Block("table", line.text, header=header, rows=rows, pages=[number], boxes=[_box(page, number, line)],
                  ruled=table.ruled, _x0=line.x0, _size=line.size)
    block._last, block._last_page = line, page.index
    blocks.append(block)


def _row_line(box) -> TextLine:
    return TextLine("", box[0], box[1], box[2], box[3], 0, False)
