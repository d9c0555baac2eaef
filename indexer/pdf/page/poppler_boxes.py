"""Poppler's layout as read from `pdftotext -bbox-layout`: pages of blocks of lines of words, each with its box
(points, top-down), and the one rule words and lines both need (words touching are one)."""

from dataclasses import dataclass, field

@dataclass
class Word:
    text: str
    x0: float
    top: float
    x1: float
    bottom: float


@dataclass
class Line:
    words: list[Word]
    x0: float
    top: float
    x1: float
    bottom: float


@dataclass
class Block:
    lines: list[Line]
    flow: int


@dataclass
class Page:
    width: float
    height: float
    blocks: list[Block] = field(default_factory=list)


TOUCHING = 0.05  # of the line's height: words closer than this are one (poppler cut "72" at an empty glyph)


def _touching_joined(words: list[Word], height: float) -> list[Word]:
    # A font whose boxes are far taller than its letters (Azul's, 37 points for 10-point text) would make every
    # word space "touching": the letters' own width bounds the size (a letter is about half an em wide).
    letters = sorted((w.x1 - w.x0) / len(w.text) for w in words if len(w.text) >= 3)
    if letters:
        height = min(height, 2 * letters[len(letters) // 2])
    out: list[Word] = []
    for w in words:
        if out and w.x0 - out[-1].x1 < TOUCHING * height and w.x0 > out[-1].x0:
            last = out[-1]
            out[-1] = Word(last.text + w.text, last.x0, min(last.top, w.top), max(last.x1, w.x1), max(last.bottom, w.bottom))
        else:
            out.append(w)
    return out
