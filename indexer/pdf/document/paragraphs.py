"""Whether a line goes on the block above it, or starts one of its own: the same face, close below, no indent,
no run-in term, no sentence ended short; over a column or page break, only a sentence left unfinished. Poppler's
blocks say most of it (a block is a paragraph, unless a sentence left unfinished goes on in the next)."""

import re

from indexer.pdf.document.blocks import Block
from indexer.pdf.page.layout import TextLine

ENDS_SENTENCE = re.compile(r"[.!?:…»\"')]$")
ENDS_CLAUSE = re.compile(r"[.!?:;…]$")
PARSKIP = 1.3  # baseline pitches: lines further apart after a finished sentence are two paragraphs


def _continues(block: Block, kind: str, level: int, line: TextLine, page_index: int, pitch: float = 0.0,
               edge: float | None = None, right: float | None = None) -> bool:
    """`edge`: the right edge of justified text in the line's column (None when ragged); `right`: the furthest
    right the lines that start where the block's last one does reach (its margin's right edge)."""
    if not _joinable(block, kind, level, line):
        return False
    last = block._last
    same_flow = page_index == block._last_page and last.column == line.column and line.top > last.top
    if same_flow and last.para is not None and line.para is not None:
        # OCR: tesseract's own paragraphs say which lines go together, whatever their box heights.
        return last.para == line.para and (block.kind != "li" or line.x0 > block._x0 + 1)
    if last.block is not None and line.block is not None and (last.block != line.block or same_flow):
        return _continues_poppler(block, line, same_flow, pitch, right)
    if not _same_face(block, line):
        return False
    if same_flow:
        return not _new_block_below(block, line, edge, right) and _close_below(block, line, pitch)
    # Over a column or page break: only an unfinished sentence that goes on in lowercase.
    return _goes_on(block, line)


def _continues_poppler(block: Block, line: TextLine, same_flow: bool, pitch: float, right: float | None) -> bool:
    """Poppler's blocks: a new one is a new paragraph, unless a sentence left unfinished goes on there (a threaded
    frame, the next column or page). Inside one, its lines are set together: only an indent, a run-in term, a
    change of face or the space between two paragraphs (LaTeX's parskip) starts another (the page's justified edge
    is no column's: poppler's order has no columns)."""
    last = block._last
    if last.block != line.block:
        return _goes_on(block, line) or _next_line_of(block, line, pitch)
    spaced = pitch and ENDS_SENTENCE.search(block.text) and line.baseline - last.baseline > PARSKIP * pitch
    return (_same_face(block, line) and not spaced and not _new_block_below(block, line, None, right)
            and not _ended_short(block, line, right))


# A sentence's own end: a colon introduces what follows, a closing bracket may end a title ("Tunnels (3 tuiles)").
ENDS_FULL_STOP = re.compile(r"[.!?…][»\"')]?$")
SHORT = 3  # font sizes short of the column's right edge: a line ending a sentence there ends its paragraph


def _ended_short(block: Block, line: TextLine, right: float | None) -> bool:
    """Inside a poppler block, a sentence ended well short of the column's right edge, and the next line starts
    a sentence at the same indent or further right: two paragraphs set without space between them (LaTeX's
    indented paragraphs, both lines at the indent)."""
    last = block._last
    return (right is not None and ENDS_FULL_STOP.search(block.text) is not None
            and last.x1 < right - SHORT * line.size and line.x0 >= last.x0 - 1 and line.text[:1].isupper())


def _next_line_of(block: Block, line: TextLine, pitch: float) -> bool:
    """A new poppler block that is only the next line of the sentence left unfinished above it: at its left edge,
    one line pitch below, in its face ("... licence de documentation libre" / "GNU, version 1.3")."""
    last = block._last
    # A size with too few lines to have a usual pitch (a cover's fine print): a generous line spacing.
    most = 1.15 * pitch if pitch else 1.6 * line.size
    return (block.kind == "p" and not ENDS_SENTENCE.search(block.text) and abs(line.x0 - last.x0) < 1
            and 0 < line.baseline - last.baseline <= most and _same_face(block, line))


def _goes_on(block: Block, line: TextLine) -> bool:
    """The block's sentence is unfinished and the line goes on with it in lowercase."""
    return block.kind != "h" and not ENDS_SENTENCE.search(block.text) and line.text[:1].islower()


def _joinable(block: Block, kind: str, level: int, line: TextLine) -> bool:
    """Whether the block's kind and the line's allow them to be one block, wherever the line is."""
    if block.kind in ("row", "table") or line.table is not None:  # a row of pieces, a table: one line
        return False
    if line.link or block._last.link:  # a line that is a link of its own: an entry, on its own
        return False
    if block.kind == "h":  # a heading goes on only with a line of the same level (a two-line title)
        return kind == "h" and level == block.level
    return kind == "p"  # a paragraph or a list item goes on with plain lines only


def _same_face(block: Block, line: TextLine) -> bool:
    """The line is printed in the size of the block's last line, and in its weight unless inside a sentence."""
    last = block._last
    # Sizes read by OCR vary from line to line; a text layer's do not.
    if abs(last.size - line.size) > max(0.6, (0.2 if line.para is not None else 0.06) * line.size):
        return False
    # A line mostly in bold inside a sentence (a keyword wrapped onto it) goes on; after a finished
    # sentence, a change of weight starts a new block.
    return not (last.bold != line.bold and (block.kind == "h" or ENDS_SENTENCE.search(block.text)))


def _new_block_below(block: Block, line: TextLine, edge: float | None, right: float | None) -> bool:
    """The line under the block's last one, in its column, starts a block of its own: by its indent, a run-in
    term in bold, or the short line that ends the block's sentence."""
    ended = ENDS_SENTENCE.search(block.text) is not None
    if _item_ends(block, line) or (ended and _indented_anew(block, line, right)):
        return True
    if ended and line.lead_bold >= 2:
        return True  # a run-in term or title in bold opens the line: the next item of a list
    if _term_over_definition(block, line):
        return True
    # Justified text: a sentence ended on a short line ends its paragraph.
    return edge is not None and ended and block._last.x1 < edge - 1.5 * line.size and not line.text[:1].islower()


def _item_ends(block: Block, line: TextLine) -> bool:
    """A bullet's next line is indented under its text; a numbered item's may start under its number. In a
    narrow column an item's next line may start under its bullet: where the item's sentence is unfinished and
    the line goes on in lowercase, it is the item's ("• une potion de guérison," / "pour ressusciter…")."""
    if block.kind != "li" or (not ENDS_SENTENCE.search(block.text) and line.text[:1].islower()):
        return False
    return line.x0 <= block._x0 + 1 if not block.numbered else line.x0 < block._x0 - 1


def _indented_anew(block: Block, line: TextLine, right: float | None) -> bool:
    """An indented first line, or the line after an indented quote: a new paragraph. But the second line of a
    paragraph whose first line is indented, or of an item hanging under its number, goes on."""
    last = block._last
    early = _broke_early(block, line, right)
    second = len(block.boxes) == 1 and not early and (line.x0 < last.x0 if block.kind == "p" else
                                                      block.kind == "li" and line.x0 > last.x0)
    return abs(line.x0 - last.x0) > 0.8 * line.size and not second


def _term_over_definition(block: Block, line: TextLine) -> bool:
    """A short line over an indented one: a term over its definition (not code, not a centred title)."""
    last = block._last
    centred = abs(line.x0 + line.x1 - last.x0 - last.x1) < 2 * line.size
    return (block.kind == "p" and len(block.boxes) == 1 and len(block.text) <= 60 and not last.mono
            and line.x0 > last.x0 + 0.8 * line.size and not centred)


def _broke_early(block: Block, line: TextLine, right: float | None) -> bool:
    """A one-line block that had room for the next line's first word, over a line set further left (and not
    centred with it): the text broke there on purpose (a definition's one line before the next term), not a
    paragraph's indented start."""
    last = block._last
    return (right is not None and len(block.boxes) == 1 and line.x0 < last.x0
            and abs(line.x0 + line.x1 - last.x0 - last.x1) > 2 * line.size
            and last.x1 + _first_word_width(line) + line.size < right)


def _close_below(block: Block, line: TextLine, pitch: float) -> bool:
    """The line sits as close under the block's last one as a paragraph's lines do."""
    last = block._last
    if pitch:
        # An unfinished sentence going on in lower case may sit further down: a browser sets a line
        # holding inline code or a link in a taller face with more leading.
        unfinished = not ENDS_CLAUSE.search(block.text) and line.text[:1].islower()
        return line.baseline - last.baseline <= pitch * (1.6 if unfinished else 1.15)
    return line.top - last.bottom < 0.6 * line.size


def _first_word_width(line: TextLine) -> float:
    word = line.text.split(" ", 1)[0]
    return len(word) * (line.x1 - line.x0) / max(len(line.text), 1)
