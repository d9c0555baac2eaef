"""Failure patterns of benchmarks/bench_import_realdocs.py: each failing unit (Score.matches) and each
navigation or fragment passage (Score.strays) put under one pattern, so that the most common ones, with an
example each, say what to fix in the import first."""

import re
from collections import Counter

from benchmarks.structure_bench.score import fold, words

LOWER_START = re.compile(r"^[a-zàâçéèêëîïôûùüÿœ(]")
NUMBERED = re.compile(r"^(?:[A-Z]|\d+)(?:\.\d+)*\.?\s")


def _short(text: str, n: int = 110) -> str:
    text = fold(text)
    return text if len(text) <= n else text[: n - 1] + "…"


def _example(unit, passage) -> str:
    got = f"« {_short(passage.text, 200)} » (p. {','.join(map(str, passage.pages))})" if passage else "—"
    where = ",".join(str(p + 1) for p in unit.pages or (unit.page,))
    return f"unit « {_short(' / '.join(unit.pieces), 200)} » (p. {where}) -> {got}"


def _unit_pattern(unit, passage, whole, verbatim, page_ok, most, nav_words, code_words, neighbours) -> str | None:
    kind = unit.kind
    if passage is None:
        return f"{kind} lost (no passage shares a word)"
    want = sum((words(p) for p in unit.pieces), Counter())
    allowed = set(sum((words(label) for label in unit.labels), Counter()))
    if not whole:
        # the passage that holds most of the unit's words says what happened to it
        bag = words(most.text)
        missing = want - bag
        extra = Counter({w: c for w, c in (bag - want).items() if w not in allowed})
        if missing and not extra:
            where = "at a page break" if len(unit.pages) > 1 else "within a page (line or column break)"
            return f"{kind} cut into several passages {where}"
        extra_words = list(extra.elements())
        if sum(1 for w in extra_words if w in nav_words) >= 0.5 * len(extra_words):
            what = "navigation (table of contents, bar, running header)"
        elif sum(1 for w in extra_words if w in code_words) >= 0.5 * len(extra_words):
            what = "a code block"
        else:
            before, after = neighbours
            head = fold(most.text)
            if after is not None and fold(after.pieces[0])[:25] in head:
                what = f"the next unit ({after.kind})"
            elif before is not None and fold(before.pieces[-1])[-25:] in head:
                what = f"the previous unit ({before.kind})"
            else:
                what = "other text"
        return f"{kind} {'cut and ' if missing else ''}merged with {what}"
    bag = words(passage.text)
    if not verbatim:
        if kind == "row":
            return "row's cells run together (no separator between cells)"
        return f"{kind} whole but altered (characters or order changed)"
    if unit.header and words(" ".join(unit.header)) - bag:
        return "row without its header's words"
    if not page_ok:
        want_pages = tuple(p + 1 for p in unit.pages or (unit.page,))
        if len(want_pages) > 1 and len(passage.pages) == 1:
            return "unit over a page break cites one page only"
        if len(want_pages) == 1 and len(passage.pages) > 1:
            return "unit on one page cites several pages"
        return f"wrong page cited (off by {passage.pages[0] - want_pages[0]:+d})"
    return None


def _stray_pattern(kind: str, text: str, nav_texts: list[str], title: str) -> tuple[str, str]:
    """(pattern, the navigation text held, if any)."""
    folded = fold(text)
    if kind == "navigation":
        held = max((n for n in nav_texts if n and n in folded), key=len, default="")
        if title and fold(title) in folded:
            return "navigation: the page title (running header, bar) in a passage", held
        if held and NUMBERED.match(held):
            return ("navigation: a table-of-contents entry " + ("alone" if held == folded else "with other text"),
                    held)
        if re.search(r"(?i)^(précédent|suivant|sommaire|niveau supérieur|index|navigation|table des)", held):
            return "navigation: Précédent/Suivant/Sommaire/Table des matières bar", held
        return "navigation: other navigation text in a passage", held
    if NUMBERED.match(folded):
        return "fragment: a numbered line (heading or contents entry) alone", ""
    if LOWER_START.match(folded):
        return "fragment: the end of a cut unit (starts in lower case)", ""
    return "fragment: other short passage", ""


def patterns(per_doc) -> tuple[Counter, dict[str, str]]:
    """per_doc: [(Score, Gold)]; returns (count per pattern, an example per pattern)."""
    counts, examples, fit = Counter(), {}, {}
    for s, gold in per_doc:
        nav_words = set(sum((words(n.text) for n in gold.nav), Counter()))
        code_words = set(sum((words(c) for c in gold.code), Counter()))
        nav_texts = sorted({fold(n.text) for n in gold.nav})
        units = [m[0] for m in s.matches]
        for i, (unit, passage, whole, verbatim, page_ok, most) in enumerate(s.matches):
            neighbours = (units[i - 1] if i else None, units[i + 1] if i + 1 < len(units) else None)
            key = _unit_pattern(unit, passage, whole, verbatim, page_ok, most, nav_words, code_words, neighbours)
            if key:
                counts[key] += 1
                # the example: a unit of about 100 characters (long enough to show, short enough to read)
                badness = abs(len(" ".join(unit.pieces)) - 100)
                if key not in fit or badness < fit[key]:
                    fit[key], examples[key] = badness, _example(unit, passage if whole else most)
        for kind, text, pages in s.strays:
            key, held = _stray_pattern(kind, text, nav_texts, gold.title)
            counts[key] += 1
            examples.setdefault(key, f"« {_short(text, 200)} » (p. {','.join(map(str, pages))})"
                                + (f", holding « {_short(held)} »" if held and held != fold(text) else ""))
    return counts, examples


def print_patterns(name: str, per_doc, top: int = 10) -> None:
    counts, examples = patterns(per_doc)
    print(f"\n#### {name}: the {top} most common failure patterns\n")
    print("| pattern | count | example |")
    print("|---|---|---|")
    for key, n in counts.most_common(top):
        print(f"| {key} | {n} | {examples[key].replace('|', '¦')} |")
