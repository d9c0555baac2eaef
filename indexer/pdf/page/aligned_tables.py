"""Tables without rules: lines whose pieces line up in the same columns row after row (a scoring table set with
tabs), read as a table like a ruled one (tables.py)."""

import statistics

from indexer.pdf.page.tables import ALIGN, MARKER, SHORT, Table, _box, _merge_box, _text_grid


def _row_groups(pieces) -> list[list]:
    rows: list[list] = []
    for p in sorted(pieces, key=lambda p: p.baseline or p.bottom):
        base = p.baseline or p.bottom
        if rows and abs((rows[-1][0].baseline or rows[-1][0].bottom) - base) <= 0.3 * max(p.size, 1):
            rows[-1].append(p)
        else:
            rows.append([p])
    return [sorted(row, key=lambda p: p.x0) for row in rows]


def _column_of(piece, starts: list[float], ends: list[float]) -> int | None:
    for j, (a, b) in enumerate(zip(starts, ends)):
        if abs(piece.x0 - a) <= ALIGN or abs(piece.x1 - b) <= ALIGN:
            return j
    return None


def aligned_tables(pieces) -> tuple[list[Table], list]:
    """(tables, the pieces outside them) for rows of pieces aligned in columns, without rules."""
    rows = _row_groups(pieces)
    tables, used, i = [], set(), 0
    while i < len(rows):
        found = _aligned_table(rows, i) if len(rows[i]) >= 2 else None
        if found is None:
            i += 1
            continue
        table, flat, i = found
        tables.append(table)
        used.update(id(p) for p in flat)
    return tables, [p for p in pieces if id(p) not in used]


def _aligned_table(rows: list[list], i: int) -> tuple[Table, list, int] | None:
    """(the table, its pieces, the index of the row after it) that row i opens, the rows under it aligned on
    its pieces' columns; None when they do not make a table."""
    row = rows[i]
    starts, ends = [p.x0 for p in row], [p.x1 for p in row]
    grid = [[p.text for p in row]]
    members, boxes = [list(row)], [_box(row)]
    j = i + 1
    while j < len(rows) and _add_aligned_row(rows[j], row, starts, ends, grid, members, boxes):
        j += 1
    flat = [p for m in members for p in m]
    if len(grid) < 3 or not _tabular(grid, flat, len(starts)) or not _text_grid(grid):
        return None
    table = Table(grid, False, *_box(flat), statistics.median(p.size for p in flat), False, boxes)
    # A header in bold over rows that are not: the first row, unless the last one is bold too.
    table.header = all(p.bold for p in row) and not any(p.bold for p in members[-1])
    return table, flat, j


def _add_aligned_row(nxt: list, row: list, starts: list[float], ends: list[float], grid: list[list[str]],
                     members: list[list], boxes: list) -> bool:
    """Row `nxt` added to the table that `row` opens (`grid`, its `members` and `boxes`), when its pieces fall
    one a column, close under the last row and in the first row's size; a row without a first cell wraps
    the cells of the row above."""
    where = [_column_of(p, starts, ends) for p in nxt]
    gap = (nxt[0].baseline or nxt[0].bottom) - (members[-1][0].baseline or members[-1][0].bottom)
    size = max(row[0].size, 1)
    if not _one_a_column(where) or gap > 2.6 * size or any(abs(p.size - size) > 1 for p in nxt):
        return False
    cells = [""] * len(starts)
    for p, col in zip(nxt, where):
        cells[col] = p.text
    if 0 not in where:  # a wrapped cell
        grid[-1] = [f"{a} {b}".strip() for a, b in zip(grid[-1], cells)]
        boxes[-1] = _merge_box(boxes[-1], _box(nxt))
    else:
        grid.append(cells)
        boxes.append(_box(nxt))
    members.append(nxt)
    return True


def _one_a_column(where: list[int | None]) -> bool:
    """Each piece of a row under a column of its own."""
    return None not in where and len(set(where)) == len(where)


def _tabular(grid: list[list[str]], pieces, width: int) -> bool:
    """Rows of short cells in one size, not two columns of prose that happen to share their baselines: no
    column but the last holds long text, none holds a heading, no sentence wraps from one row to the next."""
    if sum(1 for row in grid if sum(1 for c in row if c) >= 2) < 2:
        return False
    if any(statistics.median(len(row[k]) for row in grid) > SHORT for k in range(width - 1)):
        return False
    sizes = [p.size for p in pieces]
    if max(sizes) - min(sizes) > 1.0:
        return False
    firsts = [row[0] for row in grid]
    # Two narrow columns of prose side by side wrap a sentence here and there, in any column.
    wrapped = sum(_wrapped_rows([row[k] for row in grid]) for k in range(width))
    return not _list_marks(firsts) and wrapped <= 1


def _list_marks(firsts: list[str]) -> bool:
    """The first column is a list's bullets or numbers set apart by a tab, or a listing's line numbers."""
    if all(MARKER.match(cell) for cell in firsts if cell):
        return True
    numbers = [int(cell) for cell in firsts if cell.isdigit()]
    return len(numbers) >= 0.8 * len(firsts) and all(b == a + 1 for a, b in zip(numbers, numbers[1:]))


def _wrapped_rows(firsts: list[str]) -> int:
    """First cells that carry on the one above (no end of sentence, then a lowercase start): prose wrapped."""
    return sum(1 for a, b in zip(firsts, firsts[1:]) if a and b[:1].islower() and not a[-1:] in ".!?:;,)")
