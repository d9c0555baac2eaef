"""An imported rulebook's passages against its source's gold (source.gold): units whole, verbatim, on their
printed page, table cells kept, navigation passages, glued or split words.

- whole: one passage holds every word of the unit and no word of anything else (the words of the unit's
  heading and, for a table row, of the table's header may come with it);
- verbatim: whole, and each piece (the text, a term and its definition, a question and its answer, each cell
  of a row) is in the passage character for character, in order, with at most a separator between pieces
  (" : ", " ; ", a line break) and the heading's or the header's words before them;
- right page: the passage that holds most of the unit cites exactly the unit's printed page;
- table cells kept: each cell of a row verbatim in its row's passage;
- navigation passages: passages that hold a navigation line (table of contents, list of tables, index
  entry, menu path on its own, "Retour au sommaire", copyright or licence), whole or as what is left once
  their unit is taken out;
- glued or split words: words run together ("Europe5") or cut apart ("dé fausse", "dé-fausse"), per word;
- table rows with their header (units given a `header`, benchmarks/realdocs): the row's passage holds every
  word of its table's header cells;
- fragments: passages of fewer than 5 words that are no unit whole, nor a table row's or a term's passage,
  nor navigation, nor mostly `free` text.

A unit given `pages` (every page it runs over) is on its right page when its passage cites exactly those.
"""

import re
import unicodedata
from collections import Counter
from dataclasses import dataclass, field

from benchmarks.structure_bench.source import Nav, Unit

WORD = re.compile(r"\w+")
PUNCT = ".,;:!?()«»\"'"
SEPARATOR = r"\s*(?:[:;|,\n–—-]\s*)?"


def fold(text: str) -> str:
    text = unicodedata.normalize("NFC", text).replace("\u2019", "'").replace("\u2060", "")
    return re.sub(r"\s+", " ", text.replace("\u00a0", " ").replace("\u202f", " ")).strip()


def words(text: str) -> Counter:
    return Counter(w.lower() for w in WORD.findall(fold(text)))


@dataclass
class Passage:
    text: str
    pages: tuple[int, ...]


@dataclass
class Score:
    units: int = 0
    whole: int = 0
    verbatim: int = 0
    right_page: int = 0
    cells: int = 0
    cells_kept: int = 0
    nav: int = 0
    glued: int = 0
    gold_words: int = 0
    rows: int = 0
    rows_with_header: int = 0
    passages: int = 0
    fragments: int = 0
    failures: list[str] = field(default_factory=list)
    # (unit, its passage or None when lost, whole, verbatim, right page, the passage holding most of its
    # words), for benchmarks/realdocs/patterns.py; and the passages counted as navigation or fragments
    matches: list[tuple] = field(default_factory=list)
    strays: list[tuple[str, str, tuple[int, ...]]] = field(default_factory=list)

    def add(self, other: "Score") -> None:
        for name in ("units", "whole", "verbatim", "right_page", "cells", "cells_kept", "nav", "glued",
                     "gold_words", "rows", "rows_with_header", "passages", "fragments"):
            setattr(self, name, getattr(self, name) + getattr(other, name))
        self.failures += other.failures
        self.matches += other.matches
        self.strays += other.strays


def _piece(text: str) -> str:
    return r"\s+".join(re.escape(part) for part in fold(text).split(" "))


def _verbatim(unit: Unit, text: str) -> bool:
    labels = [label for label in unit.labels if label]
    label = "(?i:" + "|".join(_piece(x) for x in labels) + r")\s*:?\s*" if labels else ""
    pieces = [f"(?:{label})*{_piece(p)}" for p in unit.pieces if p]  # a row's caption, then its header
    if unit.kind == "row":
        # Cells need something between them: a row written "Suite longue 5 ou plus 6" has lost its cells.
        between = r"(?:\s*[:;|,\n]\s*" + (rf"|\s+(?={label})" if label else "") + ")"
    else:
        between = SEPARATOR
    return re.match("^" + between.join(pieces) + r"\s*$", fold(text), re.S) is not None


def _gold_vocabulary(units: list[Unit]) -> tuple[set[str], set[str]]:
    single, pairs = set(), set()
    for unit in units:
        for piece in unit.pieces:
            tokens = [t.strip(PUNCT) for t in fold(piece).split()]
            single.update(t for t in tokens if t)
            pairs.update(a + b for a, b in zip(tokens, tokens[1:]) if a and b)
    return single, pairs


def _glued(passages: list[Passage], single: set[str], pairs: set[str]) -> tuple[int, list[str]]:
    dehyphen = {g.replace("-", ""): g for g in single if "-" in g}
    count, seen = 0, []
    for passage in passages:
        tokens = [t.strip(PUNCT) for t in fold(passage.text).split()]
        for t in tokens:
            if t and t not in single and (t in pairs or t.replace("-", "") in single or t in dehyphen):
                count += 1
                seen.append(t)
        for a, b in zip(tokens, tokens[1:]):
            if a and b and a + b in single and (a not in single or b not in single):
                count += 1
                seen.append(f"{a} {b}")
    return count, seen


def score(units: list[Unit], nav: list[Nav], passages: list[Passage], printed, free: list[str] = ()) -> Score:
    """`printed(page index)`: the printed number of a PDF page (0-based index). `free`: text that is
    neither a unit nor navigation (the cover's title and tagline), not scored."""
    s = Score(units=len(units), passages=len(passages))
    whole_in, short_ok = set(), set()
    taken: dict[int, Counter] = {}
    free_words = sum((words(f) for f in free), Counter())
    nav_words = sum((words(n.text) for n in nav), Counter())
    bags = [words(p.text) for p in passages]
    for unit in units:
        want = sum((words(p) for p in unit.pieces), Counter())
        allowed = set(sum((words(label) for label in unit.labels), Counter()))
        best, best_key, most, most_common = None, None, None, 0
        for i, bag in enumerate(bags):
            common = sum((want & bag).values())
            if not common:
                continue
            extra = sum(c for w, c in (bag - want).items() if w not in allowed)
            # among equal passages (a manual repeats "Valeur par défaut :"), the one nearest the unit's page
            key = (common - extra, common, -abs(passages[i].pages[0] - printed(unit.page)) if passages[i].pages else 0)
            if best_key is None or key > best_key:
                best, best_key = i, key
            if common > most_common:
                most, most_common = i, common
        text = fold(" / ".join(unit.pieces))[:90]
        if best is None:
            s.failures.append(f"lost      p.{printed(unit.page)} {unit.kind}: {text}")
            s.cells += len(unit.pieces) if unit.kind == "row" else 0
            s.rows += bool(unit.header)
            s.matches.append((unit, None, False, False, False, None))
            continue
        passage, bag = passages[best], bags[best]
        taken[best] = taken.get(best, Counter()) + want + Counter({w: 9 for w in allowed})
        whole = not (want - bag) and not any(w not in allowed for w in (bag - want))
        verbatim = whole and _verbatim(unit, passage.text)
        page_ok = passage.pages == tuple(printed(p) for p in (unit.pages or (unit.page,)))
        if whole:
            whole_in.add(best)
        if unit.kind in ("row", "term"):
            short_ok.add(best)
        if unit.header:
            s.rows += 1
            s.rows_with_header += not (words(" ".join(unit.header)) - bag)
        s.matches.append((unit, passage, whole, verbatim, page_ok, passages[most]))
        s.whole += whole
        s.verbatim += verbatim
        s.right_page += page_ok
        if unit.kind == "row":
            s.cells += len(unit.pieces)
            s.cells_kept += sum(1 for cell in unit.pieces if re.search(_piece(cell), fold(passage.text)))
        if not verbatim or not page_ok:
            why = "split/glued" if not whole else "altered" if not verbatim else "page"
            s.failures.append(f"{why:<11} p.{printed(unit.page)} {unit.kind}: {text}\n"
                              f"            -> p.{','.join(map(str, passage.pages))} {fold(passage.text)[:140]!r}")
    for i, bag in enumerate(bags):
        rest = bag - taken.get(i, Counter())
        letters = [w for w in rest.elements() if not w.isdigit()]
        if i not in taken and letters and sum(1 for w in letters if w in free_words) >= 0.6 * len(letters):
            continue  # the cover's title, tagline or author line
        holds = any(all(rest[w] >= c for w, c in words(n.text).items()) and any(not w.isdigit() for w in words(n.text))
                    for n in nav)
        mostly = i not in taken and letters and sum(1 for w in letters if w in nav_words) >= 0.6 * len(letters)
        if holds or mostly:
            s.nav += 1
            s.strays.append(("navigation", passages[i].text, passages[i].pages))
            s.failures.append(f"navigation p.{','.join(map(str, passages[i].pages))}: {fold(passages[i].text)[:100]!r}")
        elif len(WORD.findall(fold(passages[i].text))) < 5 and i not in whole_in and i not in short_ok:
            s.fragments += 1
            s.strays.append(("fragment", passages[i].text, passages[i].pages))
            s.failures.append(f"fragment  p.{','.join(map(str, passages[i].pages))}: {fold(passages[i].text)!r}")
    single, pairs = _gold_vocabulary(units)
    s.gold_words = sum(len(fold(p).split()) for u in units for p in u.pieces)
    s.glued, seen = _glued(passages, single, pairs)
    if seen:
        s.failures.append(f"glued or split words: {', '.join(seen[:12])}")
    return s
