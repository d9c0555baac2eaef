"""A page's lines from poppler's own layout analysis (`pdftotext -bbox-layout`, Debian's poppler-utils, run as a
separate program: poppler is GPL), with the faces from pdfium's characters.

Poppler builds words from glyphs the way professional typesetting needs (tracking, kerning, justified spacing,
ligatures), and groups them into lines, blocks and flows in reading order (threaded text frames, columns, text
wrapped around pictures). What it does not give, each word's size and weight, comes from the pdfium characters
its box holds; tables ruled on the page are still read from those characters (tables.py). Each line carries its
poppler block (`para`), which says which lines are one paragraph, and the page's order is final.
"""


import re
import shutil
import subprocess
import xml.etree.ElementTree as ET
from pathlib import Path

from indexer.errors import PdfError
from indexer.pdf.page.poppler_blocks import defer_continuations, interleave_terms, join_term_rows, rejoin_rows, split_rivers
from indexer.pdf.page.poppler_boxes import Block, Line, Page, Word, _touching_joined

TIMEOUT = 300  # seconds for one chunk of pages


def available() -> bool:
    return shutil.which("pdftotext") is not None


def _box(el) -> tuple[float, float, float, float]:
    return tuple(float(el.get(k, 0)) for k in ("xMin", "yMin", "xMax", "yMax"))


def poppler_pages(pdf: Path, first: int, last: int) -> list[Page]:
    """Pages first..last (1-based, inclusive) as poppler lays them out, in its reading order."""
    exe = shutil.which("pdftotext")
    if exe is None:
        raise PdfError("pdftotext est introuvable : installez poppler-utils (make pdf-deps)")
    try:
        run = subprocess.run([exe, "-q", "-cropbox", "-bbox-layout", "-enc", "UTF-8", "-f", str(first), "-l", str(last),
                              str(pdf), "-"], capture_output=True, timeout=TIMEOUT)
    except subprocess.TimeoutExpired:
        raise PdfError(f"{Path(pdf).name} : pdftotext n'a pas fini en {TIMEOUT} s") from None
    if run.returncode != 0:
        raise PdfError(f"{Path(pdf).name} : pdftotext a échoué (code {run.returncode})")
    return parse_bbox_layout(run.stdout)


def parse_bbox_layout(xhtml: bytes) -> list[Page]:
    """pdftotext's -bbox-layout XHTML -> pages of flows, blocks, lines and words (points, top-down), mended."""
    # Characters XML forbids (a glyph mapped to a control code) would stop the parser: they carry no text.
    xhtml = CONTROLS.sub(b"", xhtml)
    try:
        root = ET.fromstring(xhtml)
    except ET.ParseError as exc:
        raise PdfError(f"sortie de pdftotext illisible ({exc})") from None
    pages = [_page(el) for el in root.iter() if _tag(el) == "page"]
    for page in pages:
        split_rivers(page)
        rejoin_rows(page)
        interleave_terms(page)
        join_term_rows(page)
        defer_continuations(page)
    return pages


def _children(el, tag: str):
    return (child for child in el if _tag(child) == tag)


def _page(page_el) -> Page:
    page = Page(float(page_el.get("width", 0)), float(page_el.get("height", 0)))
    for f, flow in enumerate(_children(page_el, "flow")):
        for block_el in _children(flow, "block"):
            lines = _one_per_baseline([line for line in map(_line, _children(block_el, "line")) if line])
            if lines:
                page.blocks.append(Block(lines, f))
    return page


def _line(line_el) -> Line | None:
    """A line of words, its box its words' (what poppler writes, and all that is read); None without words."""
    words = [Word(w.text, *_box(w)) for w in _children(line_el, "word") if _letters(w.text)]
    if not words:
        return None
    return Line(words, min(w.x0 for w in words), min(w.top for w in words), max(w.x1 for w in words),
                max(w.bottom for w in words))


CONTROLS = re.compile(rb"[\x00-\x08\x0b\x0c\x0e-\x1f]")
SPACING_ACCENTS = set("´`ˆ^¨˜~¸ˇ˘˙˚¯˛˝")


def _letters(text: str | None) -> bool:
    """A word with something to read: not empty, not an accent drawn apart (TeX's "ˆ" over "o"; pdfium's
    characters put it back on its letter, `_spelt`)."""
    return bool(text and text.strip() and not set(text.strip()) <= SPACING_ACCENTS)


def _one_per_baseline(lines: list[Line]) -> list[Line]:
    """Lines of one block on one baseline are one line (poppler cuts a line where a glyph drawn apart, an
    accent, overlaps its neighbours)."""
    out: list[Line] = []
    for line in lines:
        height = line.bottom - line.top
        same = next((o for o in out if abs(o.bottom - line.bottom) < 0.2 * height), None)
        if same is None:
            out.append(line)
            continue
        same.words = sorted(same.words + line.words, key=lambda w: w.x0)
        same.x0, same.x1 = min(same.x0, line.x0), max(same.x1, line.x1)
    for line in out:
        line.words = _touching_joined(line.words, line.bottom - line.top)
    return out


def _tag(el) -> str:
    return el.tag.rsplit("}", 1)[-1]
