"""Poppler's blocks mended where its layout analysis misreads a page set by a publisher or a typesetter: close
columns read as one, loose justified lines cut into one-word blocks, glossaries read as two columns, a paragraph's
end read before its column, list markers and dot leaders cut from their lines."""

import re

from indexer.pdf.page.poppler_boxes import Block, Line, Page, Word, _touching_joined

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
