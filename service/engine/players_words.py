"""The players' words read as the rulebook's: "je peux tourner ma tuile ?" asks about a "plaquette" in a
rulebook that never says "tuile".

Two sources, no code per game:
- a game's own names, from its `lexique:` header key ("bonze: pion neutre, grimpeur"): the player's words
  on the right are read as the rulebook's word on the left;
- a generic French board-game lexicon (service/engine/data/lexicon.json): groups of words players use for one
  another; a word of a group that the game's text never uses is read as the group's word it does use.
  "Uses" is judged on the text's own words (plural and infinitive forms aside), not on stems: the
  rulebook's "explore" must not make "explorateur" one of its words.

`rewrite` returns the question with those words replaced, for both retrievers (the embedding of
"plaquette" is nearer the passage than that of "tuile", and BM25 only matches the same stem), and the
replacement terms, for the lexical side. Matching is on analysed terms (indexer/analysis.py): plurals and
accents do not matter.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from indexer.analysis import APOSTROPHES, STOPWORDS, fold
from service.engine.question import Question

DATA = Path(__file__).resolve().parent / "data" / "lexicon.json"
_WORD = re.compile(r"\w+")
_ELIDED = frozenset({"l", "d", "j", "n", "s", "c", "t", "m", "qu", "jusqu", "lorsqu", "puisqu", "quoiqu"})


def stems(phrase: str) -> tuple[str, ...]:
    return Question.of(phrase).terms


@dataclass(frozen=True)
class Rewrite:
    text: str  # the question, players' words replaced by the rulebook's
    added: tuple[str, ...]  # the replacements' terms
    replaced: tuple[tuple[str, str], ...] = ()  # (player's words, rulebook's words), for logs and tests

    @property
    def changed(self) -> bool:
        return bool(self.replaced)


@dataclass(frozen=True)
class _Entry:
    surface: str
    stems: tuple[str, ...]
    words: tuple[str, ...]  # folded, stopwords aside


def _forms(word: str) -> set[str]:
    """A folded word and the forms a text may use it in: plural, feminine, a verb's common endings."""
    forms = {word, word + "s", word + "x", word + "e", word + "es"}
    if word.endswith(("s", "x")):
        forms.add(word[:-1])
    if word.endswith("er"):
        root = word[:-2]
        forms |= {root + end for end in ("e", "es", "ent", "ez", "ons", "e", "ee", "ees", "es", "ant")}
    return forms


_FOLDED_STOPWORDS = frozenset(fold(s) for s in STOPWORDS)


@lru_cache(maxsize=8192)
def _entry(phrase: str) -> _Entry:
    """A lexicon word or phrase, analysed once (a game's own lexique is read at every question)."""
    words = tuple(w for w in _WORD.findall(fold(phrase.translate(APOSTROPHES)))
                  if w not in _FOLDED_STOPWORDS and w not in _ELIDED)
    return _Entry(phrase, stems(phrase), words)


class Lexicon:
    def __init__(self, groups: Iterable[Iterable[str]]):
        self._groups = [[e for e in map(_entry, group) if e.stems] for group in groups]
        # Per game, the replacements its words decide, computed at its first question (service/engine/retrieval/
        # keeps the games' words for as many games).
        self._tables: dict[object, list[tuple[_Entry, str]]] = {}

    @classmethod
    def load(cls, path: Path = DATA) -> Lexicon:
        return cls(json.loads(Path(path).read_text("utf-8"))["groups"])

    def _table(self, vocabulary: frozenset[str], own: Iterable[tuple[str, Iterable[str]]], key) -> list:
        """(player's entry, rulebook's word) in the order they apply: the game's own names first, longest
        first, then each group's words the game's text lacks, read as the group's first word it uses."""
        table = self._tables.get(key) if key is not None else None
        if table is not None:
            return table

        def uses(entry: _Entry) -> bool:
            return all(_forms(w) & vocabulary for w in entry.words)

        table = []
        for word, players in own:
            table += [(e, word) for e in sorted(map(_entry, players), key=lambda e: -len(e.stems)) if e.stems]
        for group in self._groups:
            used = [e for e in group if uses(e)]
            if used:
                table += [(e, used[0].surface) for e in group if e not in used]
        if key is not None:
            if len(self._tables) >= 256:
                self._tables.pop(next(iter(self._tables)))
            self._tables[key] = table
        return table

    def rewrite(self, question: Question, vocabulary: frozenset[str], own: Iterable[tuple[str, Iterable[str]]] = (),
                key=None) -> Rewrite:
        """The question as the game's rulebook would word it. `vocabulary`: the folded words of the game's
        text; `own`: the game's header lexicon, (rulebook word, players' words) pairs, applied first; `key`:
        names the game, so that what its words decide is computed once."""
        found = question.spans  # (stem, start, end)
        text = question.text
        if not found:
            return Rewrite(text, ())
        stems_found = {stem for stem, _, _ in found}
        taken: list[tuple[int, int, str]] = []  # (start, end, replacement) over the question's characters
        for entry, target in self._table(vocabulary, own, key):
            if entry.stems[0] not in stems_found:
                continue
            for i in range(len(found) - len(entry.stems) + 1):
                window = found[i: i + len(entry.stems)]
                if tuple(stem for stem, _, _ in window) != entry.stems:
                    continue
                start, end = window[0][1], window[-1][2]
                if not any(a < end and start < b for a, b, _ in taken):
                    taken.append((start, end, target))
        if not taken:
            return Rewrite(text, ())
        taken.sort()
        out, last, replaced = [], 0, []
        for start, end, target in taken:
            out += [text[last:start], target]
            replaced.append((text[start:end], target))
            last = end
        out.append(text[last:])
        added = tuple(s for _, target in replaced for s in stems(target))
        return Rewrite("".join(out), added, tuple(replaced))


def lexicon_groups(path: Path = DATA) -> list[list[str]]:
    """The generic lexicon's groups as the data file lists them (for `rulesqa import`'s proposal)."""
    return json.loads(Path(path).read_text("utf-8"))["groups"]


@lru_cache(maxsize=1)
def lexicon() -> Lexicon:
    return Lexicon.load()


def in_game_words(lexicon: Lexicon, text: str, game, words: frozenset[str]) -> Rewrite:
    """`text` with the players' words the game's rulebook does not use replaced by its own. `game`: the
    indexer.corpus.Game (its header lexicon), `words`: the folded words of its text (Retriever.game_words)."""
    # Keyed by the words themselves: a frozenset keeps its hash, and a new index version brings new words.
    return lexicon.rewrite(Question.of(text), words, game.lexicon, key=(game.id, words))
