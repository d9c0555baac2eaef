"""Printed page numbers, not PDF indexes, and the running headers and footers around them.

The numbers a reader sees are searched in every page's top and bottom rows (and as lone numbers in the side
margins), inside whatever text shares the row ("© Éditeur 2021 · 4", "1.1. Le matériel 3"), and kept only
when they form runs that go up by one per page: a year, a chapter number or a count does not. The PDF's page
labels are used when they agree with those runs, or when nothing is printed; the page's position only as a
last resort (`pages: physical`, and `rulesqa import` warns). Pages without an arabic number (a cover, roman
front matter) get None: the corpus format cites arabic pages only, so their text is not imported.

Running headers and footers are the top and bottom rows whose text, numbers masked, repeats on pages near
each other, or that print the page's own number (a chapter title in the header changes with the chapter),
and any row printed where those are; they are peeled from the page's edge inwards.
"""

import re
from collections import Counter
from dataclasses import dataclass

from indexer.pdf.page.layout import PageText

ROMAN = re.compile(r"^[ivxlc]+$", re.IGNORECASE)
PAGE_NUMBER = re.compile(r"^[-–—]?\s*(?:page|p\.)?\s*(\d{1,4}|[ivxlc]{1,6})(?:\s*/\s*\d{1,4})?\s*[-–—]?$",
                         re.IGNORECASE)
# A standalone integer: not part of a word, a decimal, a section number ("1.1"), a date or a range.
NUMBER_TOKEN = re.compile(r"(?<![\w.,/:\-])(\d{1,4})(?![\w/:\-]|[.,]\d)")
OF_TOTAL = re.compile(r"(?<![\w.,/])(\d{1,4})\s*/\s*\d{1,4}(?![\w/])")  # "page / pages"
DASHED = re.compile(r"(?:^|(?<=\s))[-–—]\s*(\d{1,4})\s*[-–—](?=\s|$)")  # "- 12 -", "-12-"
SECTION = re.compile(r"^\d{1,3}\.\s+(?=[^\W\d_])")  # "1. Présentation": a title's number, first in its row
LINE_NUMBER = re.compile(r"^\s*\d{1,4}\s+(?=[^\W\d_][\w'’-]*\W+\w)")  # "12 Description: …", "3 mots de plus"
ROMAN_END = re.compile(r"^[ivxlc]{1,6}$")  # lowercase, first or last word of a row: front matter
RUNNING_SIZE = 1.3  # a running header is not much larger than the body text (a repeated title may be)
MIN_EVIDENCE = 0.25  # share of the text pages whose own printed number must confirm a numbering


def printed_number(text: str) -> str | None:
    """"12", "Page 12", "12 / 40", "iv": the number a header or footer line prints on its own, else None."""
    match = PAGE_NUMBER.match(text.strip())
    return match.group(1) if match else None


def numbers_in(text: str) -> set[int]:
    """The integers a header or footer row prints, whatever surrounds them ("12/40": 12, groff's "- 12 -"),
    but a section's number opening a title ("1. Présentation")."""
    text = DASHED.sub(r" \1 ", OF_TOTAL.sub(r"\1", SECTION.sub("", text.strip())))
    return {int(n) for n in NUMBER_TOKEN.findall(text) if int(n) >= 1}


def _row_text(row) -> str:
    """An edge row's text for its numbers, without the number that opens a piece of text run on after it:
    a code listing's line number at a page's foot ("12 Description: …") is no page number, a page number
    stands apart (a gap, a separator) from the running title beside it."""
    return " · ".join(LINE_NUMBER.sub("", piece.text) for piece in row.pieces) if row.pieces else row.text


def _arabic(label: str) -> int | None:
    return int(label) if label.isdigit() and int(label) >= 1 else None


def _printed(pages: list[PageText | None], count: int) -> tuple[list[int | None], set[int]]:
    """Each page's printed number from runs of candidates increasing by one per page, and the pages whose
    own rows print their number (the evidence)."""
    candidates, roman = _candidates(pages)
    offset_of = _runs(candidates)
    evidence = set(offset_of)
    return _unique(_numbered(offset_of, roman, count), evidence), evidence


def _candidates(pages: list[PageText | None]) -> tuple[dict[int, set[int]], set[int]]:
    """(page index -> the numbers its edge rows print, the pages whose top or bottom row opens or ends with a
    lowercase roman number: front matter)."""
    candidates: dict[int, set[int]] = {}
    roman: set[int] = set()
    for page in pages:
        if page is None:
            continue
        found = set()
        for row in page.edges:
            found |= numbers_in(_row_text(row))
            words = row.text.split()
            if words and row.end != "side" and (ROMAN_END.match(words[0]) or ROMAN_END.match(words[-1])):
                roman.add(page.index)
        candidates[page.index] = found
    return candidates, roman


def _runs(candidates: dict[int, set[int]]) -> dict[int, int]:
    """Page index -> the offset of the run that numbers it (printed number minus index): the run most pages
    vote for first, then the next among the pages left."""
    offset_of: dict[int, int] = {}
    first = 0
    while True:
        votes = Counter(n - i for i, found in candidates.items() if i not in offset_of for n in found)
        if not votes:
            break
        offset, n = votes.most_common(1)[0]
        first = first or n
        if n < max(2, 0.2 * first):  # a second run (numbering restarted) must be more than a coincidence
            break
        for i, found in candidates.items():
            if i not in offset_of and i + offset in found:
                offset_of[i] = offset
    return offset_of


def _numbered(offset_of: dict[int, int], roman: set[int], count: int) -> list[int | None]:
    """Each page's number by its run, or by the runs around it when it prints none."""
    numbers: list[int | None] = [None] * count
    marks = sorted(offset_of)
    for i in range(count):
        if i in offset_of:
            numbers[i] = i + offset_of[i]
            continue
        before = max((m for m in marks if m < i), default=None)
        after = min((m for m in marks if m > i), default=None)
        # A page between two pages of one run is numbered by it (a chapter opening, a full-page picture);
        # before the first and after the last, the nearest run goes on.
        if before is not None and after is not None and offset_of[before] != offset_of[after]:
            continue
        near = before if before is not None else after
        if near is None or i in roman:
            continue
        numbers[i] = i + offset_of[near]
    return numbers


def _unique(numbers: list[int | None], evidence: set[int]) -> list[int | None]:
    """One PDF page per printed number (a cover labelled 1 beside the real page 1): the page that prints
    it wins, else the later one."""
    pages: dict[int, list[int]] = {}
    for i, n in enumerate(numbers):
        if n is not None:
            if n < 1:
                numbers[i] = None
            else:
                pages.setdefault(n, []).append(i)
    for where in pages.values():
        if len(where) > 1:
            keep = next((i for i in where if i in evidence), where[-1])
            for i in where:
                if i != keep:
                    numbers[i] = None
    return numbers


def number_pages(labels: list[str], pages: list[PageText | None]) -> tuple[str, list[int | None]]:
    """("labels" | "printed" | "physical", the printed number of each page or None)."""
    count = len(labels)
    printed, evidence = _printed(pages, count)
    text_pages = sum(1 for page in pages if page is not None) or count
    trusted = len(evidence) >= max(2, MIN_EVIDENCE * text_pages)
    # Labels that only repeat the positions (1..N, what some exporters write by default) say nothing.
    useful = any(labels) and labels != [str(i + 1) for i in range(count)]
    arabic = [_arabic(label) for label in labels]
    if useful:
        agree = sum(1 for i in evidence if arabic[i] == printed[i])
        if not trusted or agree >= 0.9 * len(evidence):
            return "labels", _unique(arabic, {i for i in evidence if arabic[i] == printed[i]})
    if trusted:
        return "printed", printed
    return "physical", list(range(1, count + 1))


def _shape(text: str) -> str:
    return re.sub(r"\d+", "#", text.strip().lower())


def body_size(pages: list[PageText | None]) -> float:
    sizes = Counter()
    for page in pages:
        for line in page.lines if page is not None else ():
            sizes[round(line.size * 2) / 2] += len(line.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def mark_running(pages: list[PageText | None], numbers: list[int | None]) -> None:
    """Mark in each page what is not rule text: running headers and footers (their text repeats with the
    numbers masked on pages close to each other; or, changing with the chapter, they print the page's
    number; or they sit where those do) and page numbers. Rows are peeled from the page's edge inwards: a
    second row goes only with a first one, and only when it sits tight against it (a two-line footer), so
    the first line of the text itself stays."""
    present = [page for page in pages if page is not None]
    furniture = _furniture(present, numbers)
    for page in present:
        for end in ("top", "bottom"):
            _peel(page, end, furniture)
        for row in page.edges:
            if row.end == "side":
                page.dropped.update(id(piece) for piece in row.pieces)


@dataclass
class _Furniture:
    """The document's running headers and footers: the rows that repeat and where they are printed."""
    size: float  # the body text's
    running: set[tuple]  # (end, text with its numbers masked) of the rows that repeat on pages near each other
    places: list[tuple]  # (end, top in 2 pt steps, size) where running rows or the page's number are printed

    def drop(self, row) -> bool:
        """The row is a page number or a running header or footer."""
        return (printed_number(row.text) is not None or (row.end, _shape(row.text)) in self.running
                or (row.size <= self.size * RUNNING_SIZE and any(
                    end == row.end and abs(top * 2 - row.top) <= 2.5 and abs(s - row.size) <= 1
                    for end, top, s in self.places)))


def _furniture(present: list[PageText], numbers: list[int | None]) -> _Furniture:
    need = max(2, min(3, len(present) // 3))
    size = body_size(present)
    seen: dict[tuple, list[int]] = {}
    for page in present:
        for key in {(row.end, _shape(row.text)) for row in page.edges
                    if row.end != "side" and row.size <= size * RUNNING_SIZE}:
            seen.setdefault(key, []).append(page.index)
    # A chapter opening ("Chapitre 3" on its first page) repeats too, but never on neighbouring pages.
    running = {key for key, where in seen.items()
               if len(where) >= need and min(b - a for a, b in zip(where, where[1:])) <= 2}

    def furniture(page, row) -> bool:
        return (row.end, _shape(row.text)) in running or numbers[page.index] in numbers_in(row.text)

    slots = Counter()
    for page in present:
        slots.update({(row.end, round(row.top / 2), round(row.size)) for row in page.edges
                      if row.end != "side" and row.size <= size * RUNNING_SIZE and furniture(page, row)})
    wanted = max(need, len(present) * MIN_EVIDENCE)
    return _Furniture(size, running, [key for key, n in slots.items() if n >= wanted])


def _peel(page: PageText, end: str, furniture: _Furniture) -> None:
    """Mark the page's running rows at its top or bottom, from the edge inwards: each next row only while it
    sits tight against the one outside it."""
    rows = [row for row in page.edges if row.end == end]
    if end == "bottom":
        rows.reverse()  # the outermost first
    outer = None
    for row in rows:
        if outer is not None:
            gap = row.top - outer.bottom if end == "top" else outer.top - row.bottom
            if gap > row.size:
                break
        if not furniture.drop(row):
            break
        page.dropped.update(id(piece) for piece in row.pieces)
        outer = row
