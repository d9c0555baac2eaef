"""Printed page numbers, not PDF indexes: the PDF's page labels when it has them, else the numbers printed in
the header or footer, else the physical position. Pages without an arabic number (a cover, roman front
matter) get None: the corpus format cites arabic pages only, so their text is not imported."""

import re
from collections import Counter

from indexer.pdf.layout import PageText

ROMAN = re.compile(r"^[ivxlc]+$", re.IGNORECASE)
PAGE_NUMBER = re.compile(r"^(?:page|p\.)?\s*(\d{1,4}|[ivxlc]{1,6})(?:\s*/\s*\d{1,4})?$", re.IGNORECASE)


def printed_number(text: str) -> str | None:
    """"12", "Page 12", "12 / 40", "iv": the number a header or footer line prints, else None."""
    match = PAGE_NUMBER.match(text.strip())
    return match.group(1) if match else None


def _arabic(label: str) -> int | None:
    return int(label) if label.isdigit() and int(label) >= 1 else None


def number_pages(labels: list[str], pages: list[PageText | None]) -> tuple[str, list[int | None]]:
    """("labels" | "printed" | "physical", the printed number of each page or None)."""
    count = len(labels)
    # Labels that only repeat the positions (1..N, what some exporters write by default) say nothing the
    # printed numbers could not say better.
    if any(labels) and labels != [str(i + 1) for i in range(count)]:
        return "labels", [_arabic(label) for label in labels]
    printed: dict[int, str] = {}
    for page in pages:
        if page is None:
            continue
        for line in page.margin:
            number = printed_number(line.text)
            if number is not None:
                printed[page.index] = number
    arabic = {i: int(n) for i, n in printed.items() if n.isdigit()}
    if len(arabic) >= max(2, count // 2):
        offset, votes = Counter(n - (i + 1) for i, n in arabic.items()).most_common(1)[0]
        if votes >= len(arabic) * 0.8:
            numbers = []
            for i in range(count):
                n = i + 1 + offset
                roman = i in printed and not printed[i].isdigit()
                numbers.append(n if n >= 1 and not roman else None)
            return "printed", numbers
    return "physical", list(range(1, count + 1))


def running_lines(pages: list[PageText | None]) -> set[str]:
    """Header and footer texts repeated on several pages (digits ignored: "Zorglub · 3" and "Zorglub · 4" are
    one running header)."""
    seen = Counter()
    for page in pages:
        if page is not None:
            seen.update({_shape(line.text) for line in page.margin})
    present = sum(1 for page in pages if page is not None)
    return {text for text, n in seen.items() if n >= max(2, present * 0.3)}


def _shape(text: str) -> str:
    return re.sub(r"\d+", "#", text.strip().lower())


def body_margin_lines(page: PageText, running: set[str]) -> list:
    """Lines of the margin zones that are neither running text nor a page number: kept as body text."""
    return [line for line in page.margin
            if _shape(line.text) not in running and printed_number(line.text) is None]
