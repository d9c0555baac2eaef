"""Tables found on a page, each cell kept: a ruled table (rules.py) from its characters, an unruled one from
rows of short pieces aligned in columns.

- Ruled: horizontal rules stacked over one width frame the table; its columns are the vertical rules inside
  it or, without any (booktabs: rules above, below and under the header only), the white rivers that cross
  every row. Its rows are the bands between rules where rules separate the rows, else the baselines, a
  baseline whose first cell is empty going on the row above (a wrapped cell). A framed box (one column) is
  no table: its text stays text.
- Unruled (aligned_tables.py): three rows or more whose pieces (cut at a gap of two font sizes) start, or end, at the same x,
  the cells short (a two-column page of prose is no table); a line whose only pieces sit in columns after
  the first goes on the row above.

Each table becomes one `TextLine` carrying it, so that reading order and page numbers handle it like a line.
"""

import re
import statistics
from dataclasses import dataclass, field

from indexer.pdf.page.rules import Rules
from indexer.pdf.text import join_hyphenated, reads_as_text

ALIGN = 4.0  # points: column starts (or ends) this close are one column
RIVER = 0.8  # font sizes: a white gap this wide across every row separates two columns
MAX_BASELINES = 40  # a ruled band holding more lines is a framed page, not a table
SHORT = 30  # characters: the median cell of an unruled table's columns (but the last) is no longer
ROW_GAP = 80.0  # points: an older stack goes on over this gap at most (a row of a table, not a page)
OPEN_STACKS = 200  # stacks a rule may go on: the latest (a table's frame, past the link underlines inside it)
DOUBLE = 3.0  # points: two horizontal rules this close are one border drawn twice
MARKER = re.compile(r"^(?:[•▪◦‣●■□➢►✓–—*+-]|\(?(?:\d{1,2}|[a-zA-Z])[.)])$")


@dataclass
class Table:
    rows: list[list[str]]  # the header row first when `header`
    header: bool
    x0: float
    top: float
    x1: float
    bottom: float
    size: float
    ruled: bool
    row_boxes: list[tuple[float, float, float, float]] = field(default_factory=list)  # x0, top, x1, bottom


# ------------------------------------------------------------------ ruled tables, from characters


def _stacks(rules: Rules) -> list[list]:
    """Horizontal rules of one width, one above the other: a table's frame and the rules inside it."""
    stacks: list[list] = []
    for rule in sorted(rules.horizontal, key=lambda r: r.at):
        if rule.end - rule.start < 30:
            continue
        # The stack this rule goes on: the latest of its width (a link's underline inside a table, narrower,
        # starts a stack of its own without closing the table's).
        for k, stack in enumerate(reversed(stacks[-OPEN_STACKS:])):
            if (k == 0 or rule.at - stack[-1].at <= ROW_GAP) and _goes_on(stack, rule, rules):
                stack.append(rule)
                break
        else:
            stacks.append([rule])
    return [_single(s) for s in stacks if len(_single(s)) >= 2]


def _goes_on(stack: list, rule, rules: Rules) -> bool:
    first, last = stack[0], stack[-1]
    # A frame and the coloured bands inside it (zebra stripes) are one table: a few points inset.
    inset = 3.0
    if abs(last.start - rule.start) > inset or abs(last.end - rule.end) > inset:
        return False
    # Where the frame has vertical rules, one crosses the gap to this rule, else it is another table.
    lo, hi = min(r.start for r in stack) - 2, max(r.end for r in stack) + 2
    framed = [v for v in rules.vertical if lo <= v.at <= hi and v.start < last.at + 2 and v.end > first.at - 2]
    return not framed or any(v.start <= last.at + 2 and v.end >= rule.at - 2 for v in framed)


def _single(stack: list) -> list:
    """A stack's rules, a double border (HTML's separate cell borders: each cell's own bottom and the next
    one's top, two points apart) counted once."""
    out = [stack[0]]
    for rule in stack[1:]:
        if rule.at - out[-1].at > DOUBLE:
            out.append(rule)
    return out


def _inner_verticals(stack, rules: Rules) -> bool:
    x0, x1 = min(r.start for r in stack), max(r.end for r in stack)
    top, bottom = stack[0].at, stack[-1].at
    return any(x0 + 3 < v.at < x1 - 3 and v.start < bottom and v.end > top for v in rules.vertical)


def _columns(chars, x0: float, x1: float, top: float, bottom: float, rules: Rules, size: float) -> list[float]:
    """Column boundaries inside a ruled frame: its inner vertical rules, else white rivers."""
    height = bottom - top
    inner = sorted(v.at for v in rules.vertical if x0 + 3 < v.at < x1 - 3
                   and min(v.end, bottom) - max(v.start, top) >= min(0.4 * height, 8))
    cuts: list[float] = []
    for x in inner:
        if not cuts or x - cuts[-1] > 3:
            cuts.append(x)
    if cuts:
        return cuts
    if len({round(c.baseline) for c in chars}) < 2:
        return []
    covered = sorted((c.x0, c.x1) for c in chars)
    gaps, reach = [], covered[0][1]
    for a, b in covered[1:]:
        if a - reach >= RIVER * size:
            gaps.append((reach + a) / 2)
        reach = max(reach, b)
    return gaps


def _cell_text(pieces) -> str:
    """A cell's pieces in reading order, a word hyphenated at a cell's line end rejoined."""
    text, before = "", None
    for line in sorted(pieces, key=lambda line: (round(line.baseline), line.x0)):
        if text.endswith("-") and text[-2:-1].isalpha():
            # Code is never hyphenated: its hyphen at a line end is its own ("firefox-" / "esr").
            text = text + line.text if before is not None and before.mono else join_hyphenated(text, line.text, set())
        else:
            text = f"{text} {line.text}".strip()
        before = line
    return text


def _row(pieces, cuts: list[float]) -> tuple[list[str], tuple]:
    """A row's cells (each piece in the column its middle falls in) and its box."""
    cells: list[list] = [[] for _ in range(len(cuts) + 1)]
    for piece in pieces:
        cells[sum(1 for x in cuts if (piece.x0 + piece.x1) / 2 > x)].append(piece)
    return [_cell_text(cell) for cell in cells], _box(pieces)


def _lines(pieces) -> list[list]:
    """Pieces by line (their baselines), top to bottom."""
    lines: list[list] = []
    for piece in sorted(pieces, key=lambda p: p.baseline):
        if lines and piece.baseline - lines[-1][0].baseline <= 0.3 * max(piece.size, 1):
            lines[-1].append(piece)
        else:
            lines.append([piece])
    return lines


def _rows_of(bands: list[list], cuts) -> tuple[list[list[str]], list, bool]:
    """(rows of cells, their boxes, whether the first row is a header set apart by a rule), from each band's
    pieces (the text between two rules)."""
    if len(bands) >= 3:  # rules between the rows: a band is a row, its lines a cell's wrapped lines
        return _rows_between_rules(bands, cuts)
    return _rows_of_lines(bands, cuts)


def _rows_between_rules(bands: list[list], cuts) -> tuple[list[list[str]], list, bool]:
    """A row a band; the first band's bold lines a header of their own when rows in plain text share it."""
    first = _lines(bands[0])
    bold = [all(p.bold for p in line) for line in first]
    # Zebra stripes from the second row on: the header, in bold, shares the first band with a row.
    header = len(first) >= 2 and bold[0] and not all(bold)
    if header:
        head = [p for line, b in zip(first, bold) if b for p in line]
        bands = [head, [p for line, b in zip(first, bold) if not b for p in line], *bands[1:]]
    made = [_row(band, cuts) for band in bands]
    return [cells for cells, _ in made], [box for _, box in made], header


def _rows_of_lines(bands: list[list], cuts) -> tuple[list[list[str]], list, bool]:
    """One band or two: a row a line of the last band (a line without a first cell wraps the row above),
    under the first band as a header (over one line or more, booktabs-like) when there are two."""
    rows, boxes = [], []
    header = len(bands) == 2
    if header:
        cells, box = _row(bands[0], cuts)
        rows.append(cells)
        boxes.append(box)
    for line in _lines(bands[-1]):
        cells, box = _row(line, cuts)
        if len(rows) > header and not cells[0]:  # a wrapped cell goes on the row above
            rows[-1] = [f"{a} {b}".strip() for a, b in zip(rows[-1], cells)]
            boxes[-1] = _merge_box(boxes[-1], box)
        else:
            rows.append(cells)
            boxes.append(box)
    return rows, boxes, header


def ruled_tables(chars, fonts, rules: Rules, segments) -> tuple[list[Table], list]:
    """(tables, the characters outside them). `segments(chars, fonts, columns)`: the page's own line
    builder, run once on a table's characters, cut at its columns."""
    import numpy as np

    tables, used = [], set()
    # Two rules and no vertical rule between them frame a box (a note, a code listing) or a page, not a
    # table: a ruled table has a rule under its header, or rules between its columns.
    stacks = [stack for stack in _stacks(rules) if len(stack) >= 3 or _inner_verticals(stack, rules)]
    if not stacks:
        return [], chars
    baselines = np.fromiter((c.baseline for c in chars), float, len(chars))
    middles = np.fromiter(((c.x0 + c.x1) / 2 for c in chars), float, len(chars))
    for stack in stacks:
        x0, x1 = min(r.start for r in stack), max(r.end for r in stack)
        top, bottom = stack[0].at, stack[-1].at
        if len(stack) == 2 and bottom - top > 25 * MAX_BASELINES:
            continue  # a page framed by its header's and footer's rules
        where = np.nonzero((baselines > top) & (baselines <= bottom + 1) & (middles >= x0 - 1) & (middles <= x1 + 1))
        inside = [chars[i] for i in where[0] if id(chars[i]) not in used]
        table = _ruled_table(stack, inside, fonts, rules, segments)
        if table is not None:
            tables.append(table)
            used.update(id(c) for c in inside)
    return tables, [c for c in chars if id(c) not in used]


def _ruled_table(stack: list, inside: list, fonts, rules: Rules, segments) -> Table | None:
    """The table the stack of rules holds with the characters `inside` it, or None when it frames
    something else."""
    if _framed_text(stack, inside, fonts):
        return None
    x0, x1 = min(r.start for r in stack), max(r.end for r in stack)
    top, bottom = stack[0].at, stack[-1].at
    size = statistics.median(c.size for c in inside)
    cuts = _columns(inside, x0, x1, top, bottom, rules, size)
    if not cuts:
        return None  # a framed box: text
    bands = _bands(stack, inside, fonts, cuts, segments)
    if not bands or any(len(_lines(band)) > MAX_BASELINES for band in bands):
        return None  # a framed page
    rows, boxes, ruled_header = _rows_of(bands, cuts)
    heads = [p for p in bands[0] if p.baseline <= min(q.baseline for q in bands[0]) + 0.3 * p.size]
    bold = bool(heads) and all(p.bold for p in heads)
    return _table(rows, boxes, ruled_header or bold, x0, top, x1, bottom, size, True)


def _framed_text(stack: list, inside: list, fonts) -> bool:
    """The rules frame nothing, a listing of code, a page or a staff of music: no table (told before
    anything costlier)."""
    letters = [c for c in inside if c.text.isalnum()]
    if not letters or sum(1 for c in letters if fonts[c.font].mono) > len(letters) / 2:
        return True  # nothing, or a framed listing of code
    # More lines between two rules than a table's row holds: a page framed by its header's and footer's
    # rules, not a table.
    lines = sorted({round(c.baseline) for c in inside})
    if len(stack) == 2 and sum(1 for a, b in zip(lines, lines[1:]) if b - a > 2) >= MAX_BASELINES:
        return True
    size = statistics.median(c.size for c in inside)
    heights = [b.at - a.at for a, b in zip(stack, stack[1:])]
    return statistics.median(heights) < 0.9 * size  # rules closer than the text they hold: a staff of music


def _bands(stack: list, inside: list, fonts, cuts: list[float], segments) -> list[list]:
    """The table's lines (pieces) between each two rules of the stack, the empty bands left out."""
    at = [r.at for r in stack]
    bands: list[list] = [[] for _ in stack[1:]]
    for piece in _cell_lines(inside, fonts, cuts, segments):
        bands[min(max(sum(1 for y in at if piece.baseline > y + 0.5) - 1, 0), len(bands) - 1)].append(piece)
    return [band for band in bands if band]


def _cell_lines(chars, fonts, cuts: list[float], segments) -> list:
    """The table's lines, built column by column: a cell's two lines must not be read as one with the
    one-line cells beside it set halfway between them (cells centred vertically)."""
    columns: list[list] = [[] for _ in range(len(cuts) + 1)]
    for c in chars:
        columns[sum(1 for x in cuts if (c.x0 + c.x1) / 2 > x)].append(c)
    return [piece for column in columns if column for piece in segments(column, fonts)]


def _table(rows, boxes, header, x0, top, x1, bottom, size, ruled) -> Table | None:
    if len(rows) < 2 or not _text_grid(rows):
        return None
    return Table(rows, header, x0, top, x1, bottom, size, ruled, boxes)


def _text_grid(rows: list[list[str]]) -> bool:
    """Text in a grid, not a drawing's labels or a staff of music: most cells filled, most cells reading
    as words or figures, and a word on most rows."""
    cells = [cell for row in rows for cell in row if cell]
    if len(cells) < 0.5 * sum(len(row) for row in rows):
        return False
    legible = sum(1 for cell in cells if reads_as_text(cell, numbers_too=True) or len(cell) <= 4
                  or any(ch.isdigit() for ch in cell))  # "V:54, I:226" too
    if legible < 0.8 * len(cells):
        return False
    return sum(1 for row in rows if any(reads_as_text(cell) for cell in row)) >= 0.5 * len(rows)


# ------------------------------------------------------------------ unruled tables, from pieces


def _box(pieces) -> tuple[float, float, float, float]:
    return (min(p.x0 for p in pieces), min(p.top for p in pieces), max(p.x1 for p in pieces),
            max(p.bottom for p in pieces))


def _merge_box(a, b):
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])
