"""One page's characters from pdfium's text layer, with their own geometry: the box of each glyph's advance
(its x extent and the font's ascent to descent), its baseline, size, font and whether it is upright.

pypdfium2 gives the same per-character facts as pdfplumber (pdfminer) at about seven times its speed on a
dense TeX page (the 20 pages/s target of `rulesqa import`). Accents drawn as their own glyph (TeX, older
DTP exports: "´" over "e") are composed here with the letter they sit over, so that nothing downstream
sees "mat´eriel".
"""

import ctypes
import itertools
import math
import re
import unicodedata
from dataclasses import dataclass

# Spacing accents (and combining marks drawn on their own) -> the combining mark they stand for.
ACCENTS = {"\u00b4": "\u0301", "\u02ca": "\u0301", "\u0060": "\u0300", "\u02cb": "\u0300", "\u02c6": "\u0302",
           "\u005e": "\u0302", "\u00a8": "\u0308", "\u02dc": "\u0303", "\u007e": "\u0303", "\u00b8": "\u0327",
           "\u02c7": "\u030c", "\u02d8": "\u0306", "\u02d9": "\u0307", "\u02da": "\u030a", "\u00af": "\u0304",
           "\u02db": "\u0328", "\u02dd": "\u030b"}
ACCENTS.update({chr(c): chr(c) for c in range(0x300, 0x370)})
DOTLESS = {"\u0131": "i", "\u0237": "j"}  # TeX draws "î" as a dotless i under a circumflex
_BOLD = re.compile(r"bold|black|heavy|semibold|demi|(?:^|[^a-z])(?:cm|ec|sf|lm\w*|t1)?bx\d", re.I)
_ITALIC = re.compile(r"italic|oblique|(?:^|[^a-z])(?:cm|ec)?(?:ti|sl)\d", re.I)
_MONO = re.compile(r"mono|courier|code|(?:^|[^a-z])(?:cm|ec)?tt\d", re.I)
FORCE_BOLD = 1 << 18
ITALIC_FLAG = 1 << 6
FIXED_PITCH = 1


@dataclass(slots=True)
class Char:
    text: str
    x0: float
    x1: float
    top: float  # distances from the top of the page, in points
    bottom: float
    baseline: float
    size: float
    font: int  # index into the page's fonts
    space_before: bool = False  # a real space glyph (not one pdfium guessed) precedes it
    obj: int = 0  # the text object that drew it


@dataclass(frozen=True, slots=True)
class Font:
    name: str
    bold: bool
    italic: bool
    mono: bool


@dataclass
class PageChars:
    width: float  # of the page as it is shown (rotation applied)
    height: float
    rotation: int  # degrees, clockwise, as shown
    box: tuple[float, float, float, float]  # crop box in PDF space: left, bottom, right, top
    chars: list[Char]
    fonts: list[Font]


def _font(raw, handle) -> Font:
    size = raw.FPDFFont_GetBaseFontName(handle, None, 0)
    buf = ctypes.create_string_buffer(max(size, 1))
    raw.FPDFFont_GetBaseFontName(handle, buf, size)
    name = buf.value.decode("latin-1", "replace").split("+")[-1]
    flags = max(raw.FPDFFont_GetFlags(handle), 0)  # -1: unknown
    angle = ctypes.c_int(0)
    raw.FPDFFont_GetItalicAngle(handle, ctypes.byref(angle))
    return Font(name, bool(_BOLD.search(name)) or bool(flags & FORCE_BOLD),
                bool(_ITALIC.search(name)) or angle.value != 0 or bool(flags & ITALIC_FLAG),
                bool(_MONO.search(name)) or bool(flags & FIXED_PITCH))


def _matrix(raw, textpage, k: int) -> tuple[float, float] | None:
    """(how much the character's matrix scales its font size across its baseline, the baseline's angle), or None.
    InDesign sets text at 1 point and scales it by the matrix, where pdfium's font size is the 1 point (the glyphs'
    spacing then read against 1 point cuts every word, and every line looks a paragraph apart); a slanted
    (synthetic italic) face skews the matrix, which pdfium's character angle counts as a turn."""
    m = raw.FS_MATRIX()
    if not raw.FPDFText_GetMatrix(textpage, k, ctypes.byref(m)):
        return None
    along = math.hypot(m.a, m.b)
    if along <= 0:
        return None
    return abs(m.a * m.d - m.b * m.c) / along or 1.0, math.atan2(m.b, m.a)


_FAST: dict = {}


def _fast():
    """pdfium's per-character calls with plain C types: a handle passed and returned as an address, not a
    pointer object (the per-call conversions cost more than pdfium's own work on a dense page)."""
    if not _FAST:
        import pypdfium2.raw as raw

        c, vp, i, d = ctypes, ctypes.c_void_p, ctypes.c_int, ctypes.POINTER(ctypes.c_double)

        def bind(name, restype, *argtypes):
            _FAST[name] = c.CFUNCTYPE(restype, *argtypes)(c.cast(getattr(raw, name), vp).value)

        bind("FPDFText_GetUnicode", c.c_uint, vp, i)
        bind("FPDFText_IsGenerated", i, vp, i)
        bind("FPDFText_GetTextObject", vp, vp, i)
        bind("FPDFText_GetLooseCharBox", i, vp, i, c.POINTER(raw.FS_RECTF))
        bind("FPDFText_GetCharOrigin", i, vp, i, d, d)
        bind("FPDFText_GetFontSize", c.c_double, vp, i)
        bind("FPDFText_GetCharAngle", c.c_float, vp, i)
    return _FAST


UPRIGHT = 0.02  # radians: a character turned further is no text line's (a label in the artwork)


def page_chars(page, tilt: float = UPRIGHT) -> PageChars:
    """The upright, visible characters of a pypdfium2 page, in content order, accents composed. `tilt`: the turn
    a character may have and still count as upright (a reader that builds lines itself, as poppler does, reads a
    text box set at a slight angle)."""
    # The visible box as pdfium renders it (inherited boxes resolved; get_cropbox() falls back to letter).
    box = page.get_bbox()
    rotation = page.get_rotation()
    width, height = page.get_size()
    textpage = page.get_textpage()
    try:
        reader = _TextPage(textpage, tilt)
        chars = reader.chars(box)
    finally:
        textpage.close()
    return PageChars(width, height, rotation, box, compose_accents(_dedupe(chars)), reader.fonts)


class _TextPage:
    """A pdfium text page read through its bare C calls (_fast), into buffers reused from one character to the
    next; the fonts of its text objects gathered as they come (`fonts`)."""

    def __init__(self, textpage, tilt: float):
        import pypdfium2.raw as raw

        self.raw, self.textpage, self.tilt = raw, textpage, tilt
        self.fast = _fast()
        self.tp = ctypes.cast(textpage.raw, ctypes.c_void_p).value
        self.rect, self.ox, self.oy = raw.FS_RECTF(), ctypes.c_double(), ctypes.c_double()
        self.rect_p, self.ox_p, self.oy_p = ctypes.byref(self.rect), ctypes.byref(self.ox), ctypes.byref(self.oy)
        self.fonts: list[Font] = []
        self.by_handle: dict[int, int] = {}

    def chars(self, box: tuple[float, float, float, float]) -> list[Char]:
        """The upright characters drawn inside `box` (left, bottom, right, top), in content order."""
        left, _, _, top = box
        fast, tp = self.fast, self.tp
        unicode, generated, text_object = fast["FPDFText_GetUnicode"], fast["FPDFText_IsGenerated"], \
            fast["FPDFText_GetTextObject"]
        loose, origin = fast["FPDFText_GetLooseCharBox"], fast["FPDFText_GetCharOrigin"]
        rect, oy, rect_p, ox_p, oy_p = self.rect, self.oy, self.rect_p, self.ox_p, self.oy_p
        count = self.raw.FPDFText_CountChars(self.textpage.raw)
        chars: list[Char] = []
        objects: dict[int, tuple] = {}  # text object -> (font, upright, size, baseline above box, box height)
        space = False
        for k in range(count):
            code = unicode(tp, k)
            if code in (0x20, 0xA0, 0x0D, 0x0A):
                if code != 0x0D and code != 0x0A and not generated(tp, k):
                    loose(tp, k, rect_p)
                    space = rect.left  # where the space starts: one the next glyph overlaps is no space
                continue
            key = text_object(tp, k) or 0
            known = objects.get(key)
            if known is None:
                known = objects[key] = self._object_style(k, key)
            if not known[1]:
                space = False
                continue
            loose(tp, k, rect_p)
            if abs(rect.top - rect.bottom - known[4]) < 0.01:
                oy.value = rect.bottom + known[3]
            else:
                origin(tp, k, ox_p, oy_p)
            text = "-" if code in (0xFFFE, 0x02) else chr(code)
            if _no_glyph(rect, text):
                continue
            # Text off the visible page (a table run past the bottom, clipped) is not printed there.
            if not _inside(rect, box):
                space = False
                continue
            # groff's PostScript writes spaces of no width inside words ("sauveg arde"), which Ghostscript keeps.
            real = space is not False and rect.left - space > 0.15 * known[2]
            chars.append(Char(text, rect.left - left, rect.right - left, top - rect.top, top - rect.bottom,
                              top - oy.value, known[2], known[0], real, key))
            space = False
        return chars

    def _object_style(self, k: int, key: int) -> tuple[int, bool, float, float, float]:
        """(font, upright, size, baseline above the glyph box, box height or -1) of the text object `key` that
        draws character k: one measure for all its characters."""
        raw, fast, tp = self.raw, self.fast, self.tp
        handle = raw.FPDFTextObj_GetFont(raw.FPDFText_GetTextObject(self.textpage.raw, k)) if key else None
        font = self._font_index(handle)
        matrix = _matrix(raw, self.textpage.raw, k)
        angle = matrix[1] % (2 * math.pi) if matrix else fast["FPDFText_GetCharAngle"](tp, k)
        upright = angle < 0 or min(angle, 2 * math.pi - angle) < self.tilt  # -1: pdfium could not tell
        fast["FPDFText_GetLooseCharBox"](tp, k, self.rect_p)
        fast["FPDFText_GetCharOrigin"](tp, k, self.ox_p, self.oy_p)
        rect = self.rect
        size, height = fast["FPDFText_GetFontSize"](tp, k) * (matrix[0] if matrix else 1.0), rect.top - rect.bottom
        # A font's ascent to descent: one height for every glyph, one distance from the box's bottom to the
        # baseline. Where a font's ascent and descent are unknown (LibreOffice writes them as 0), pdfium's box
        # is each glyph's ink instead, lower for p, q, g: each glyph's own origin gives its baseline then.
        return font, upright, size, self.oy.value - rect.bottom, height if height >= 0.85 * size else -1.0

    def _font_index(self, handle) -> int:
        """The index in `fonts` of the font `handle` (None: a character of no text object), added if new."""
        hkey = (ctypes.cast(handle, ctypes.c_void_p).value or 0) if handle else 0
        if hkey not in self.by_handle:
            self.by_handle[hkey] = len(self.fonts)
            self.fonts.append(_font(self.raw, handle) if hkey else Font("", False, False, False))
        return self.by_handle[hkey]


def _no_glyph(rect, text: str) -> bool:
    """A character with no width that is neither an accent nor printed (an invisible space)."""
    return rect.right - rect.left <= 0 and text not in ACCENTS and not text.strip()


def _inside(rect, box: tuple[float, float, float, float]) -> bool:
    """The glyph's middle within the visible box (left, bottom, right, top)."""
    left, bottom, right, top = box
    cx, cy = (rect.left + rect.right) / 2, (rect.top + rect.bottom) / 2
    return left <= cx <= right and bottom <= cy <= top


def _dedupe(chars: list[Char]) -> list[Char]:
    """A glyph drawn twice at (almost) the same place by another text object (fake bold, shadows) counts
    once. pdfium spells a ligature as letters sharing one box in one object: those stay ("ﬀ" -> "ff")."""
    out: list[Char] = []
    for c in chars:
        if out and out[-1].obj != c.obj and any(
                p.text == c.text and p.obj != c.obj and abs(p.x0 - c.x0) < 0.3 * max(c.x1 - c.x0, 1)
                and abs(p.baseline - c.baseline) < 1 for p in out[-3:]):
            continue
        out.append(c)
    return out


class _LazyGrid:
    """The letters of a page by 8-point column, built on first use (most accents need only a neighbour)."""

    def __init__(self, chars: list[Char]):
        self.chars, self.cells = chars, None

    def get(self, cell: int, default=()):
        if self.cells is None:
            self.cells = {}
            for j, c in enumerate(self.chars):
                if c.text.isalpha() and c.text not in ACCENTS:
                    for k in range(int(c.x0 // 8), int(c.x1 // 8) + 1):
                        self.cells.setdefault(k, []).append(j)
        return self.cells.get(cell, default)


def compose_accents(chars: list[Char]) -> list[Char]:
    """Each accent glyph whose advance mostly covers a letter of its line (drawn before or after it, even far
    away in the content stream) is composed with it (NFC); an accent over nothing (a literal "^" or "~" in
    code, in its own cell) stays as it is."""
    accents = [i for i, c in enumerate(chars) if c.text in ACCENTS]
    if not accents:
        return chars
    grid = _LazyGrid(chars)
    gone, taken = set(), set()
    for i in accents:
        best = _accented_letter(chars, i, grid, taken)
        if best is None:
            continue
        _compose(chars[i], chars[best], accent_first=i < best)
        gone.add(i)
        taken.add(best)
    return [c for i, c in enumerate(chars) if i not in gone]


def _accented_letter(chars: list[Char], i: int, grid: _LazyGrid, taken: set[int]) -> int | None:
    """The index of the letter (not `taken` by another accent) that the accent chars[i] covers best, or None."""
    acc = chars[i]
    best, best_score = None, None
    seen = set()
    # Most accents sit next to their letter in the content stream; the grid finds the others.
    near = [j for j in range(max(0, i - 2), min(len(chars), i + 3)) if j != i]
    cells = range(int(acc.x0 // 8), int(acc.x1 // 8) + 1)
    for j in itertools.chain(near, (j for cell in cells for j in grid.get(cell, ()))):
        if best is not None and j not in near:
            break
        if j in seen or j in taken:
            continue
        seen.add(j)
        score = _cover_score(acc, chars[j], j - i)
        if score is not None and (best_score is None or score > best_score):
            best, best_score = j, score
    return best


def _cover_score(acc: Char, base: Char, offset: int) -> tuple[float, int] | None:
    """How well the accent sits on the letter `base`, `offset` characters away in the content stream (the
    more of the narrower glyph's advance covered, the closer the baselines, the nearer the better); None
    when `base` is no letter, or on another line, or mostly beside it."""
    if not base.text.isalpha() or base.text in ACCENTS:
        return None
    dy = abs(base.baseline - acc.baseline)
    if dy > 0.6 * max(base.size, acc.size):
        return None
    overlap = min(acc.x1, base.x1) - max(acc.x0, base.x0)
    narrow = max(min(acc.x1 - acc.x0, base.x1 - base.x0), 0.1)
    if overlap / narrow < 0.5:
        return None
    return overlap / narrow - dy / max(base.size, 1), -abs(offset)


def _compose(acc: Char, base: Char, accent_first: bool) -> None:
    """The letter `base` takes the accent (NFC), a dotless i or j its dot back."""
    letter = DOTLESS.get(base.text[:1], base.text[:1]) + base.text[1:]
    base.text = unicodedata.normalize("NFC", letter + ACCENTS[acc.text])
    if accent_first:  # the accent came first in the text: the space before it is the letter's
        base.space_before = base.space_before or acc.space_before
