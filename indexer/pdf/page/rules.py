"""The ruling lines a page draws (table borders, rules between rows and columns), read from pdfium's path
objects, and its links (a table of contents printed by Chromium or LaTeX's hyperref links each entry): every producer measured (LibreOffice, Chromium, pdfLaTeX, pandoc, groff + Ghostscript) draws a
table's rules as thin paths or thin filled rectangles, one per rule or per cell side. Collinear pieces
that touch are merged into one rule, so a table drawn cell by cell has the same rules as one drawn whole.
"""

import ctypes
from dataclasses import dataclass, field

THIN = 2.5  # points: a path this thin in one direction is a rule
MIN_LENGTH = 4.0  # points: shorter marks are dots, ticks or glyph pieces
# A list's bullet drawn as a shape, not a glyph (Chromium's discs and squares): small, about as wide as high.
MARK_SIZE = (1.5, 8.0)
BAND_HEIGHT = 40.0  # points: a filled rectangle this high at most may be a table's row (two lines of text)
RECTANGLE_SEGMENTS = 5  # a move and four lines (the last may close it): a rectangle, not a drawing
MAX_OBJECTS = 20000  # a page with more drawing objects (a drawing, music) is not read for rules
PATH = 2  # FPDF_PAGEOBJ_PATH


@dataclass(frozen=True, slots=True)
class Rule:
    """A horizontal (y, x0..x1) or vertical (x, y0..y1) rule, top-down page coordinates in points."""

    at: float
    start: float
    end: float


@dataclass
class Rules:
    horizontal: list[Rule]
    vertical: list[Rule]
    marks: list[tuple[float, float, float, float]] = field(default_factory=list)  # x0, top, x1, bottom


_FAST: dict = {}


def _fast():
    if not _FAST:
        import pypdfium2.raw as raw

        c, vp, f = ctypes, ctypes.c_void_p, ctypes.POINTER(ctypes.c_float)

        def bind(name, restype, *argtypes):
            _FAST[name] = c.CFUNCTYPE(restype, *argtypes)(c.cast(getattr(raw, name), vp).value)

        bind("FPDFPage_CountObjects", c.c_int, vp)
        bind("FPDFPage_GetObject", vp, vp, c.c_int)
        bind("FPDFPageObj_GetType", c.c_int, vp)
        bind("FPDFPageObj_GetBounds", c.c_int, vp, f, f, f, f)
        bind("FPDFPath_CountSegments", c.c_int, vp)
        bind("FPDFPath_GetDrawMode", c.c_int, vp, ctypes.POINTER(ctypes.c_int), ctypes.POINTER(ctypes.c_int))
    return _FAST


def page_rules(page, box: tuple[float, float, float, float]) -> Rules:
    """The page's rules; `box`: the visible box (left, bottom, right, top) the characters are measured in."""
    fast = _fast()
    handle = ctypes.cast(page.raw, ctypes.c_void_p).value
    count = fast["FPDFPage_CountObjects"](handle)
    if count > MAX_OBJECTS:
        return Rules([], [])
    left, _, _, top = box
    horizontal, vertical, marks, bands, frames = [], [], [], [], []
    fill, stroke = ctypes.c_int(), ctypes.c_int()
    refs_mode = (ctypes.byref(fill), ctypes.byref(stroke), fill, stroke)
    for obj, l, b, r, t in _paths(fast, handle, count):
        width, height = r - l, t - b
        if height <= THIN and width >= MIN_LENGTH:
            horizontal.append(Rule(top - (t + b) / 2, l - left, r - left))
        elif width <= THIN and height >= MIN_LENGTH:
            vertical.append(Rule((l + r) / 2 - left, top - t, top - b))
        elif _mark_sized(width, height):
            marks.append((l - left, top - t, r - left, top - b))
        elif width >= MIN_LENGTH and height >= MIN_LENGTH:
            shape = _table_rectangle(fast, obj, height, refs_mode)
            if shape:
                (bands if shape == "band" else frames).append((top - t, top - b, l - left, r - left))
    _add_table_sides(horizontal, vertical, bands, frames)
    return Rules(merge(horizontal), merge(vertical), marks)


def _paths(fast, handle, count: int):
    """Each path object of the page, with its bounds: (object, left, bottom, right, top) in PDF points."""
    l, b, r, t = (ctypes.c_float() for _ in range(4))
    refs = [ctypes.byref(v) for v in (l, b, r, t)]
    get, kind, bounds = fast["FPDFPage_GetObject"], fast["FPDFPageObj_GetType"], fast["FPDFPageObj_GetBounds"]
    for i in range(count):
        obj = get(handle, i)
        if obj and kind(obj) == PATH and bounds(obj, *refs):
            yield obj, l.value, b.value, r.value, t.value


def _mark_sized(width: float, height: float) -> bool:
    """The size of a bullet drawn as a shape: within MARK_SIZE, about as wide as high."""
    return MARK_SIZE[0] <= min(width, height) and max(width, height) <= MARK_SIZE[1] and width < 1.6 * height < 2.6 * width


def _add_table_sides(horizontal: list[Rule], vertical: list[Rule], bands: list, frames: list) -> None:
    """The sides of the bands and frames that draw a table, added to the page's rules."""
    # A table drawn by a stylesheet: bands of colour on every other row (zebra stripes) rather than a rule
    # between the rows, and the frame around them. Their sides are rules. A frame with nothing across it
    # is a box (a note, a sidebar): its text stays text.
    for y0, y1, x0, x1 in bands:
        horizontal += [Rule(y0, x0, x1), Rule(y1, x0, x1)]
        vertical += [Rule(x0, y0, y1), Rule(x1, y0, y1)]
    across = merge(horizontal)
    for y0, y1, x0, x1 in frames:
        if any(y0 + 3 < r.at < y1 - 3 and r.end - r.start >= 0.8 * (x1 - x0) for r in across):
            horizontal += [Rule(y0, x0, x1), Rule(y1, x0, x1)]
            vertical += [Rule(x0, y0, y1), Rule(x1, y0, y1)]


def _table_rectangle(fast, obj, height: float, mode) -> str | None:
    """A rectangle that draws a table: a frame (stroked, not filled), or a band of colour one row high (a
    zebra stripe). A filled box taller than that is a background (a sidebar, a note, a code listing), whose
    sides would cut its text into columns."""
    if fast["FPDFPath_CountSegments"](obj) > RECTANGLE_SEGMENTS:
        return False
    fill_ref, stroke_ref, fill, stroke = mode
    if not fast["FPDFPath_GetDrawMode"](obj, fill_ref, stroke_ref):
        return False
    if stroke.value and not fill.value:
        return "frame"
    return "band" if fill.value and height <= BAND_HEIGHT else None


def merge(rules: list[Rule], tolerance: float = 1.2, gap: float = 3.0) -> list[Rule]:
    """Collinear rules that touch, overlap or nearly do (a border drawn cell by cell, cells kept `gap` apart
    as HTML's default `border-spacing: 2px` does) become one."""
    groups: list[list[Rule]] = []
    for rule in sorted(rules, key=lambda r: r.at):
        if groups and rule.at - groups[-1][-1].at <= tolerance:
            groups[-1].append(rule)
        else:
            groups.append([rule])
    out = []
    for group in groups:
        at = sum(r.at for r in group) / len(group)
        span = None
        for rule in sorted(group, key=lambda r: r.start):
            if span and rule.start <= span[1] + gap:
                span[1] = max(span[1], rule.end)
            else:
                if span:
                    out.append(Rule(at, *span))
                span = [rule.start, rule.end]
        out.append(Rule(at, *span))
    return out


LINK = 2  # FPDF_ANNOT_LINK


def page_links(page, box: tuple[float, float, float, float]) -> list[tuple[float, float, float, float]]:
    """The boxes (x0, top, x1, bottom, top-down points) of the page's link annotations."""
    import pypdfium2.raw as raw

    left, _, _, top = box
    out = []
    rect = raw.FS_RECTF()
    for i in range(raw.FPDFPage_GetAnnotCount(page.raw)):
        annot = raw.FPDFPage_GetAnnot(page.raw, i)
        try:
            if raw.FPDFAnnot_GetSubtype(annot) == LINK and raw.FPDFAnnot_GetRect(annot, rect):
                out.append((rect.left - left, top - rect.top, rect.right - left, top - rect.bottom))
        finally:
            raw.FPDFPage_CloseAnnot(annot)
    return out
