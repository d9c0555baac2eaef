"""A page's characters -> its lines: the characters on one baseline, cut into words by their gaps.

- Lines: characters sharing a baseline (so an italic, bold or monospace word whose font box sits higher
  stays in its sentence), small raised or lowered glyphs (footnote marks) joined to the line they touch.
- Words: a gap wider than the line's own letter spacing plus half its word spacing (between 0.06 and 0.15
  of the font size) is a word break, as is a real space glyph (TeX draws none).
- Pieces: a gap of two font sizes splits the line (a column gutter, a cell), and so does a white river
  that runs down four lines or more at one place (two columns set close together, LaTeX's multicol).
"""

from dataclasses import dataclass

from indexer.pdf.text import normalise

WORD_GAP = 0.15  # of the font size, beyond the line's own letter spacing
CELL_GAP = 2.0  # font sizes: a wider gap separates columns or table cells
RIVER_GAP = 0.6  # font sizes: a narrower gap at the same place on RIVER_ROWS lines or more is a gutter
RIVER_ROWS = 4


@dataclass(slots=True)
class TextLine:
    text: str
    x0: float
    top: float
    x1: float
    bottom: float
    size: float
    bold: bool
    column: int = 0  # 0 full width or single column, 1 left, 2 right
    cells: int = 1  # pieces separated by wide gaps on the row (a table row when > 1)
    para: tuple | None = None  # OCR only: tesseract's (block, paragraph), a better guide than line gaps
    block: int | None = None  # poppler's text block (poppler.py): lines of two blocks are two paragraphs
    baseline: float = 0.0
    table: object = None  # a tables.Table this line stands for (its text: the cells, for classification)
    link: bool = False  # the line is a link of its own (an entry of a table of contents, a link back)
    beside: bool = False  # a lone number with text on its line (kept: a page number in a table of contents)
    lead_bold: int = 0  # characters in bold that open a line not bold (a run-in term: "Brume Carte grise…")
    mono: bool = False  # mostly in a monospace font: code, whose indents and short lines are its own


def _median(values) -> float:
    """statistics.median, without its cost on the many short lists of a page (sizes, mostly equal)."""
    ordered = sorted(values)
    n = len(ordered)
    if not n:
        raise ValueError("no median of nothing")
    return ordered[n // 2] if n % 2 else (ordered[n // 2 - 1] + ordered[n // 2]) / 2


def clusters(chars) -> list[list]:
    """Characters grouped by baseline; small raised or lowered glyphs go with the line whose box holds them."""
    rows = _baseline_rows(chars)
    if len(rows) < 2:
        return rows
    sizes = [_median(c.size for c in row) for row in rows]
    kept: list[int] = []
    for i, row in enumerate(rows):
        if len(row) <= 6:
            _join_neighbour(rows, sizes, i)
        if row:
            kept.append(i)
    return [rows[i] for i in kept if rows[i]]


def _baseline_rows(chars) -> list[list]:
    """The characters in rows, down the page: a character within a quarter of its size below the row's first
    baseline joins the row."""
    rows: list[list] = []
    for c in sorted(chars, key=lambda c: c.baseline):
        if rows and c.baseline - rows[-1][0].baseline <= 0.25 * max(min(c.size, rows[-1][0].size), 1):
            rows[-1].append(c)
        else:
            rows.append([c])
    return rows


def _join_neighbour(rows: list[list], sizes: list[float], i: int) -> None:
    """Short row i (a footnote mark, an exponent) moved into the longer row above or below it, in a size no
    smaller, whose box holds it: row i is left empty then."""
    row = rows[i]
    for j in (i - 1, i + 1):
        if (0 <= j < len(rows) and sizes[i] <= sizes[j] and len(rows[j]) > len(row)
                and _held_by(row, rows[j], sizes[j])):
            rows[j].extend(row)
            row.clear()
            return


def _held_by(row: list, big: list, size: float) -> bool:
    """Each glyph of `row` within the box of the line `big` (of font size `size`), raised (an exponent, "XXe")
    or lowered (an index) by up to half the line's size."""
    top, bottom = min(c.top for c in big), max(c.bottom for c in big)
    x0, x1 = min(c.x0 for c in big), max(c.x1 for c in big)
    return all(top - 0.5 * size <= c.top and c.bottom <= bottom + 0.4 * size and x0 - size <= c.x0 <= x1 + size
               for c in row)


def _rivers(rows: list[list]) -> list[list[float]]:
    """For each row (its characters sorted by x), the x of the white rivers that cross it: a gap of
    RIVER_GAP font sizes or more at one place on RIVER_ROWS lines or more, which lines with text on one
    side only (a heading, a paragraph's short last line) do not interrupt but may narrow."""
    cuts: list[list[float]] = [[] for _ in rows]
    runs: list[list] = []  # [lo, hi, first row, rows with text on both sides]

    def close(run, end):
        if run[3] >= RIVER_ROWS:
            for k in range(run[2], end):
                cuts[k].append((run[0] + run[1]) / 2)

    for i, row in enumerate(rows):
        em = _median(c.size for c in row) or 1.0
        inner = [(a.x1, b.x0) for a, b in zip(row, row[1:]) if b.x0 - a.x1 >= RIVER_GAP * em]
        # White before the line's first glyph and after its last one goes on a river too, inner gaps only
        # count as the river's own.
        free = [(-1e9, row[0].x0, False)] + [(a, b, True) for a, b in inner] + [(row[-1].x1, 1e9, False)]
        going, used = [], set()
        for lo, hi, start, both in runs:
            best = max(((min(hi, b) - max(lo, a), max(lo, a), min(hi, b), own, (a, b)) for a, b, own in free),
                       default=None)
            if best is None or best[0] < 0.3 * em:
                close((lo, hi, start, both), i)
                continue
            _, lo, hi, own, gap = best
            used.add(gap)
            going.append([lo, hi, start, both + own])
        runs = going + [[a, b, i, 1] for a, b in inner if (a, b) not in used]
    for run in runs:
        close(run, len(rows))
    return cuts


def segments(chars, fonts, columns: list[float] = ()) -> list[TextLine]:
    """Each baseline's characters cut into words and pieces by their gaps. `columns`: x where every line is
    cut too (a table's column boundaries)."""
    out = []
    rows = clusters(chars)
    for row in rows:
        row.sort(key=lambda c: c.x0)
    rivers = _rivers(rows) if len(rows) >= RIVER_ROWS else [[] for _ in rows]
    for row, cuts in zip(rows, rivers):
        out += _row_pieces(row, cuts + list(columns), fonts)
    return [line for line in out if line.text]


def _row_pieces(row: list, cuts: list[float], fonts) -> list[TextLine]:
    """One baseline's characters (sorted by x) as pieces of words: a piece ends at a cell's gap or at a cut,
    a word at a space, a gap wider than the word threshold, or the end of a raised mark."""
    out = []
    em = _median(c.size for c in row) or 1.0
    threshold = _word_threshold(row, em)
    piece, word, words = [row[0]], [row[0].text], []
    marks = _raised(row[0], em)  # the word so far is only a raised mark (a footnote number)
    for prev, c in zip(row, row[1:]):
        gap = c.x0 - prev.x1
        size = max(min(prev.size, c.size), 1.0)
        if gap > CELL_GAP * max(prev.size, c.size) or (cuts and any(prev.x1 <= x <= c.x0 for x in cuts)):
            words.append("".join(word))
            out.append(_line(piece, words, fonts))
            piece, word, words = [c], [c.text], []
            marks = _raised(c, em)
            continue
        if c.space_before or gap > threshold * size / em or (marks and not _raised(c, em)):
            words.append("".join(word))
            word = []
            marks = _raised(c, em)
        word.append(c.text)
        piece.append(c)
    words.append("".join(word))
    out.append(_line(piece, words, fonts))
    return out


def _word_threshold(row: list, em: float) -> float:
    """The gap (in points, for a glyph of size `em`) past which a row's characters belong to two words."""
    gaps = [(b.x0 - a.x1) / em for a, b in zip(row, row[1:]) if not b.space_before and b.x0 - a.x1 < 0.5 * em]
    # The line's own letter spacing (most gaps are inside words), then its word spacing: a justified
    # line may squeeze word gaps to a fifth of an em, a tracked title widen letter gaps.
    spacing = min(max(_median(gaps), 0.0), 0.2) if gaps else 0.0
    words_gap = _word_spacing(row, em, gaps, spacing)
    return (spacing + max(0.06, min(WORD_GAP, words_gap / 2))) * em


def _word_spacing(row: list, em: float, gaps: list[float], spacing: float) -> float:
    """The row's gap between words, in font sizes beyond its letter `spacing`: the median of its wide `gaps`,
    else of its spaces' gaps, else twice WORD_GAP."""
    wide = [g for g in gaps if g > spacing + 0.08]
    if len(wide) >= 2:
        return _median(wide) - spacing
    # Where the producer wrote spaces, their gaps are the line's word spacing too: a space it left out
    # (Chromium's after "Exemple :") is then a gap of that width.
    spaced = [(b.x0 - a.x1) / em - spacing for a, b in zip(row, row[1:]) if b.space_before]
    return _median(spaced) if spaced and _median(spaced) > 0.1 else 2 * WORD_GAP


def _raised(c, em: float) -> bool:
    """A small glyph above the line's baseline: a footnote mark, which starts a footnote as a word."""
    return c.size < 0.85 * em and c.text.isdigit()


def _line(chars, words: list[str], fonts) -> TextLine:
    sizes = _median(c.size for c in chars)
    letters = [c for c in chars if c.text.isalnum()] or chars
    bold = sum(1 for c in letters if fonts[c.font].bold) > len(letters) / 2
    mono = sum(1 for c in letters if fonts[c.font].mono) > len(letters) / 2
    lead = 0
    while lead < len(chars) and fonts[chars[lead].font].bold:
        lead += 1
    return TextLine(normalise(" ".join(words)), min(c.x0 for c in chars), min(c.top for c in chars),
                    max(c.x1 for c in chars), max(c.bottom for c in chars), round(sizes, 2), bold,
                    baseline=_median(c.baseline for c in chars), lead_bold=0 if bold else lead, mono=mono)


