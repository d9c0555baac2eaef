"""Booklet page references written inline in the rule text: (p. 12), (p. 10, 13), (p. 10-12)."""

import re

# Anything that looks like a page reference; a strict parse then decides whether it is well formed,
# so that "(p 12)" or "(p. douze)" is reported instead of being silently kept as rule text.
_LOOSE = re.compile(r"\s*\(\s*pp?\b[^)]*\)?")
_RANGE = r"\d+(?:\s*[-–]\s*\d+)?"
_STRICT = re.compile(rf"\s*\(pp?\. ({_RANGE}(?:\s*,\s*{_RANGE})*)\)")
MAX_RANGE = 50


class PageRefError(ValueError):
    """A page reference that is present but malformed."""


def _expand(item: str) -> list[int]:
    bounds = [int(x) for x in re.split(r"\s*[-–]\s*", item.strip())]
    if any(b < 1 for b in bounds):
        raise PageRefError(f"numéro de page invalide dans « {item.strip()} » (les pages commencent à 1)")
    if len(bounds) == 1:
        return bounds
    first, last = bounds
    if last < first or last - first > MAX_RANGE:
        raise PageRefError(f"plage de pages invalide « {item.strip()} »")
    return list(range(first, last + 1))


def extract_pages(text: str) -> tuple[str, list[int]]:
    """Return the text without its page references, and the sorted pages they cite."""
    pages: set[int] = set()
    for loose in _LOOSE.finditer(text):
        strict = _STRICT.fullmatch(loose.group(0))
        if strict is None:
            raise PageRefError(
                f"référence de page mal formée « {loose.group(0).strip()} » "
                "(formes admises : (p. 12), (p. 10, 13), (p. 10-12))"
            )
        for item in strict.group(1).split(","):
            pages.update(_expand(item))
    return _LOOSE.sub("", text).strip(), sorted(pages)
