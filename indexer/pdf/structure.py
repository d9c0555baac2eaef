"""Positioned lines -> the rulebook's blocks: headings (from font size and weight), paragraphs (lines joined,
hyphenated words rejoined, a paragraph running over a column or page break kept whole and citing both
pages), list items (a bullet, or a number that starts an item: "1.", "b)"), tables (tables.py, each row on
its own page, a table continued on the next page joined) and the rows of pieces left (kept as lines)."""

import re
from collections import Counter
from dataclasses import dataclass, field

from indexer.pdf.layout import PageText, TextLine
from indexer.pdf.text import BULLET, LEADER, join_hyphenated, reads_as_text

# A numbered item, step or section ("1.", "b)", "2.3"): the number is part of its text.
NUMBERED = re.compile(r"^(?:\d{1,2}[.)]|\d{1,2}(?:\.\d{1,2})+\.?|[a-z][.)])\s+\S")
# Who wrote or drew the rulebook: a line of the title page, never a heading.
AUTHOR = re.compile(r"(?i)^(?:(?:un|une)\s+(?:jeu|livret|manuel|règle)s?\b.{0,40}?\s(?:de|par)\s|par\s|"
                    r"(?:auteur|autrice|auteurs|illustrat\w*|illustré|traduct\w*|rédig\w*|conçu|imaginé|écrit)"
                    r"\b[^:]{0,20}?(?::|\s(?:de|par)\s)\s*)\S|[\w.+-]+@[\w-]+\.\w")
DASH = re.compile(r"^[–—-]\s+")  # a dash starts a list item, or goes on a sentence wrapped before it
ENDS_SENTENCE = re.compile(r"[.!?:…»\"')]$")
ENDS_CLAUSE = re.compile(r"[.!?:;…]$")
NOT_A_TITLE = re.compile(r"[.,;]$")  # a heading does not end like a sentence or a clause
# An entry of a table of contents or an index: a dot leader and page numbers ("Fin ....... 12").
WORD = re.compile(r"\w[\w'-]*\w|\w")
BARE = re.compile(r"^\W*\d{1,7}\W*$")  # a lone number (a page or footnote number, a bar number)
HEADING_RATIO = 1.12  # a line this much larger than the body text is a heading
BOLD_HEADING_RATIO = 1.07  # a bold line this much larger too


@dataclass(slots=True)  # tens of thousands on a long manual: no dict each
class Block:
    kind: str  # "h", "p", "li", "row", "table"; units.py adds "term" and "qa"
    text: str
    level: int = 0  # headings: 1..3
    pages: list[int] = field(default_factory=list)
    # Where the block's lines are printed: (printed page, x0, top, x1, bottom) as fractions of the page.
    boxes: list[tuple] = field(default_factory=list)
    title: str = ""  # term: the term (text: its definition); qa: the question (text: the answer); table: its caption
    header: list[str] | tuple = ()  # table: the header's cells, empty when it has none
    rows: list[tuple] | tuple = ()  # table: (cells, printed page, box) per row
    bold: bool = False  # its first line mostly bold
    numbered: bool = False  # a list item that starts with its number
    link: bool = False  # its first line is a link of its own
    mono: bool = False  # its first line is in a monospace font (code)
    ruled: bool = False  # table: drawn with rules (else found from aligned pieces)
    title_pages: list[int] | tuple = ()  # term, qa, a captioned table: the pages of the title's lines
    role: str | None = None  # what the passage is when its form does not say it (kinds.py): example, meta, …
    text_pages: list[int] | tuple = ()  # term, qa: the pages of the text's lines
    _first: TextLine | None = None
    _last: TextLine | None = None
    _last_page: int = -1
    _x0: float = 0.0
    _size: float = 0.0


def _body_size(lines: list[TextLine]) -> float:
    sizes = Counter()
    for line in lines:
        sizes[round(line.size * 2) / 2] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


SECTION_NUMBER = re.compile(r"^\d+(?:\.\d+)*\.?\s+")
# A table's or a figure's caption: text to quote (a passage), not a section title.
CAPTION = re.compile(r"(?i)^(?:tableau|table|figure|fig\.|illustration|image|schéma|encadré)\s+[\dIVX]+\b")


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
        title = (reads_as_text(line.text) and not NOT_A_TITLE.search(line.text) and alone
                 and not CAPTION.match(line.text))
        # A large title wrapped after a comma ("Sentinelles d'Orage, / l'application de table") is one.
        wrapped = line.text.endswith(",") and size not in self.bold_only and reads_as_text(line.text) and alone
        if (size in self.levels and (line.bold or size not in self.bold_only) and (title or wrapped)
                and not AUTHOR.search(line.text)):
            return "h", self.levels[size]
        if (line.bold and abs(line.size - self.body) < 0.6 and len(line.text) <= 60 and title
                and not ENDS_SENTENCE.search(line.text) and SECTION_NUMBER.sub("", line.text)[:1].isupper()
                and not AUTHOR.search(line.text)):
            return "h", self.bold_level
        if BULLET.match(line.text) or NUMBERED.match(line.text):
            return "li", 0
        if line.cells > 1:
            return "row", 0
        return "p", 0


def _box(page: PageText, number: int, line: TextLine) -> tuple:
    return (number, *page.fraction(line))


def _continues(block: Block, kind: str, level: int, line: TextLine, page_index: int, pitch: float = 0.0,
               edge: float | None = None, right: float | None = None) -> bool:
    """`edge`: the right edge of justified text in the line's column (None when ragged); `right`: the furthest
    right the lines that start where the block's last one does reach (its margin's right edge)."""
    last = block._last
    if block.kind in ("row", "table") or line.table is not None:  # a row of pieces, a table: one line
        return False
    if line.link or last.link:  # a line that is a link of its own: an entry, on its own
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
    # Sizes read by OCR vary from line to line; a text layer's do not.
    if abs(last.size - line.size) > max(0.6, (0.2 if line.para is not None else 0.06) * line.size):
        return False
    # A line mostly in bold inside a sentence (a keyword wrapped onto it) goes on; after a finished
    # sentence, a change of weight starts a new block.
    if last.bold != line.bold and (block.kind == "h" or ENDS_SENTENCE.search(block.text)):
        return False
    if same_flow:
        # A bullet's next line is indented under its text; a numbered item's may start under its number.
        if block.kind == "li" and (line.x0 <= block._x0 + 1 if not block.numbered else line.x0 < block._x0 - 1):
            return False
        # An indented first line, or the line after an indented quote: a new paragraph. But the second line
        # of a paragraph whose first line is indented, or of an item hanging under its number, goes on.
        # A one-line sentence that had room for the next word, over a line set further left: the text broke
        # there on purpose (a definition's one line before the next term), not a paragraph's indented start.
        early = (right is not None and len(block.boxes) == 1 and line.x0 < last.x0
                 and abs(line.x0 + line.x1 - last.x0 - last.x1) > 2 * line.size  # not centred lines and ENDS_SENTENCE.search(block.text) is not None
                 and last.x1 + _first_word_width(line) + line.size < right)
        second = len(block.boxes) == 1 and not early and (line.x0 < last.x0 if block.kind == "p" else
                                                          block.kind == "li" and line.x0 > last.x0)
        if ENDS_SENTENCE.search(block.text) and abs(line.x0 - last.x0) > 0.8 * line.size and not second:
            return False
        if ENDS_SENTENCE.search(block.text) and line.lead_bold >= 2:
            return False  # a run-in term or title in bold opens the line: the next item of a list
        centred = abs(line.x0 + line.x1 - last.x0 - last.x1) < 2 * line.size
        if (block.kind == "p" and len(block.boxes) == 1 and len(block.text) <= 60 and not last.mono
                and line.x0 > last.x0 + 0.8 * line.size and not centred):
            return False  # a short line over an indented one: a term over its definition (not code)
        if (edge is not None and ENDS_SENTENCE.search(block.text) and last.x1 < edge - 1.5 * line.size
                and not line.text[:1].islower()):
            return False  # justified text: a sentence ended on a short line ends its paragraph
        if pitch:
            # An unfinished sentence going on in lower case may sit further down: a browser sets a line
            # holding inline code or a link in a taller face with more leading.
            unfinished = not ENDS_CLAUSE.search(block.text) and line.text[:1].islower()
            return line.baseline - last.baseline <= pitch * (1.6 if unfinished else 1.15)
        return line.top - last.bottom < 0.6 * line.size
    # Over a column or page break: only an unfinished sentence that goes on in lowercase.
    return block.kind != "h" and not ENDS_SENTENCE.search(block.text) and line.text[:1].islower()


def _first_word_width(line: TextLine) -> float:
    word = line.text.split(" ", 1)[0]
    return len(word) * (line.x1 - line.x0) / max(len(line.text), 1)


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


def build_blocks(pages: list[PageText | None], numbers: list[int | None], left_out: Counter | None = None) -> list[Block]:
    """`left_out`: counts of the navigation lines left out (navigation.py), by kind."""
    from indexer.pdf.navigation import TOC, filter_lines

    left_out = Counter() if left_out is None else left_out
    stream = []
    for page in pages:
        if page is None or numbers[page.index] is None:
            continue
        for line in page.lines:
            if line.table is None and LEADER.search(line.text):
                left_out[TOC] += 1  # a table of contents, list of tables or index entry with dot leaders
                continue
            if line.table is None and (not reads_as_text(line.text, numbers_too=True) or BARE.match(line.text)):
                continue  # a row of symbols or music glyphs, a number
            stream.append((page, numbers[page.index], line))
    stream = filter_lines(stream, left_out)
    styles = _Styles([line for _, _, line in stream if line.table is None])
    pitches = _pitches(stream)
    edges = _justified(stream, styles.body)
    rights = _right_edges(stream)
    paragraphs = Counter((page.index, line.para) for page, _, line in stream if line.para is not None)
    vocabulary = {w.lower() for _, _, line in stream for w in WORD.findall(line.text)}
    blocks: list[Block] = []
    for page, number, line in stream:
        if line.table is not None:
            _add_table(blocks, page, number, line)
            continue
        text = line.text
        if text.endswith("\u00ad"):
            text = text[:-1] + "-"
        text = text.replace("\u00ad", "")
        current = blocks[-1] if blocks else None
        kind, level = styles.kind(line, line.para is None or paragraphs[(page.index, line.para)] == 1)
        numbered = kind == "li" and not BULLET.match(text)
        if kind == "li" and (DASH.match(text) or numbered) and _dash_goes_on(current, line, page.index):
            kind = "p"
        elif kind == "h" and line.bold and level == styles.bold_level and _dash_goes_on(current, line, page.index):
            kind = "p"  # emphasis inside a sentence, not a title
        elif kind == "li" and not numbered:
            text = BULLET.sub("", text)
        if current is not None and _continues(current, kind, level, line, page.index,
                                              _pitch(pitches, line),
                                              edges.get((page.index, line.column)),
                                              _right_of(rights, current._last_page, current._last)):
            if current.text.endswith("-") and current.text[-2:-1].isalpha() and current._last.mono:
                current.text += text  # code is never hyphenated: its hyphen at a line end is its own
            elif current.text.endswith("-") and current.text[-2:-1].isalpha():
                current.text = join_hyphenated(current.text, text, vocabulary)
            else:
                current.text = f"{current.text} {text}"
        else:
            current = Block(kind, text, level, bold=line.bold, numbered=kind == "li" and numbered, link=line.link,
                            mono=line.mono, _first=line, _x0=line.x0, _size=line.size)
            blocks.append(current)
        current._last, current._last_page = line, page.index
        if number not in current.pages:
            current.pages.append(number)
        current.boxes.append(_box(page, number, line))
    return [b for b in blocks if b.text.strip() or b.rows]


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
