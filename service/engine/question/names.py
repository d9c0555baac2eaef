"""Which game a question is about, when the player did not say.

A shelf holds thousands of games, so names are not matched one pattern per game: the question's word
windows (1 to the longest name's length) are looked up in a dictionary of folded names (titles, ids,
aliases, and titles without their leading article), then, when nothing matches exactly, compared with
rapidfuzz to the names of the same word count, allowing one typo (two in long names). A window made only
of words the corpus itself uses is never matched fuzzily: "cartes" must not become a game called "Carte".
"""

from __future__ import annotations

import re
from collections import defaultdict
from dataclasses import dataclass

from rapidfuzz import process
from rapidfuzz.distance import OSA, JaroWinkler

from indexer.analysis import fold
from indexer.corpus import Game
from service.engine.question import Question

# Leading articles players drop or add ("le petit prince", "The Crew"); a name keeps its form without one.
ARTICLES = frozenset({"le", "la", "les", "l", "un", "une", "des", "du", "de", "the", "a", "an"})
# Shorter names are matched exactly only: one edit in four letters is another word.
MIN_FUZZY_CHARS = 5
LONG_NAME_CHARS = 10  # from this length on, two edits are allowed ("sans arrêter" is not "Sans Arrêt")
WORD = re.compile(r"\w+")
# Between two names equally many edits away, the one sharing the longer beginning with the typo is taken
# when its Jaro-Winkler similarity is higher by this much; otherwise the player is asked.
TIE_MARGIN = 0.02


@dataclass(frozen=True)
class NameMatch:
    game: str | None  # None: the words are as near to several games' names (see `games`)
    start: int
    end: int
    distance: int  # 0: exact (accents, case and punctuation aside)
    games: tuple[str, ...] = ()  # the games whose names are that near, when game is None


def _words(text: str) -> list[tuple[str, int, int]]:
    """Folded words with their character offsets in `text` (a name's)."""
    out = []
    for m in WORD.finditer(text):
        out.extend((w, m.start(), m.end()) for w in WORD.findall(fold(m.group())))
    return out


def _question_words(question: Question) -> list[tuple[str, int, int]]:
    """The question's folded words with their character offsets in its text, read from its one folding."""
    folding = question.folding
    return [(m.group(), *folding.source(m.start(), m.end())) for m in WORD.finditer(folding.text)]


def name_forms(name: str) -> set[tuple[str, ...]]:
    words = tuple(w for w, _, _ in _words(name))
    forms = {words} if words else set()
    if len(words) > 1 and words[0] in ARTICLES:
        forms.add(words[1:])
    return forms


class GameNames:
    """Titles, aliases and ids of the games, found in a question as whole words, accents, case,
    apostrophes and leading articles ignored, with a typo allowed in names of MIN_FUZZY_CHARS or more."""

    def __init__(self, games: list[Game], vocabulary: frozenset[str] = frozenset()):
        self._exact: dict[tuple[str, ...], set[str]] = defaultdict(set)
        for g in games:
            for name in {g.title, g.id.replace("-", " "), *g.aliases}:
                for form in name_forms(name):
                    self._exact[form].add(g.id)
        self._max_words = max((len(k) for k in self._exact), default=0)
        # Fuzzy candidates, compared without spaces ("cant stop" is "can't stop") and bucketed by length
        # so that a window is compared only with names it could be within two edits of.
        self._fuzzy: dict[int, tuple[list[str], list[str]]] = {}
        for form, ids in self._exact.items():
            joined = "".join(form)
            if len(ids) == 1 and len(joined) >= MIN_FUZZY_CHARS:
                names, gids = self._fuzzy.setdefault(len(joined), ([], []))
                names.append(joined)
                gids.append(next(iter(ids)))
        self._vocabulary = vocabulary

    def find(self, question: Question) -> str | None:
        match = self.match(question)
        return match.game if match else None

    def match(self, question: Question) -> NameMatch | None:
        words = _question_words(question)
        exact = self._exact_match(words)
        if exact is None:
            return self._fuzzy_match(words)
        # "Karuba Junoir": a misspelt longer name around the exact one wins over it.
        longer = self._fuzzy_match(words, around=(exact.start, exact.end))
        return longer if longer and longer.game else exact

    def _exact_match(self, words) -> NameMatch | None:
        # Longest name first, so "Sans Arrêt" wins over a shorter name of another game inside it.
        best = None
        for n in range(min(self._max_words, len(words)), 0, -1):
            for i in range(len(words) - n + 1):
                ids = self._exact.get(tuple(w for w, _, _ in words[i : i + n]))
                if not ids:
                    continue
                chars = sum(len(w) for w, _, _ in words[i : i + n])
                if len(ids) == 1 and (best is None or chars > best[0]):
                    best = (chars, NameMatch(next(iter(ids)), words[i][1], words[i + n - 1][2], 0))
        return best[1] if best else None

    def _fuzzy_match(self, words, around: tuple[int, int] | None = None) -> NameMatch | None:
        """The nearest name within the allowed edits; with `around`, only windows strictly around that span."""
        windows: list[tuple[str, int, int]] = []
        for n in range(1, min(self._max_words + 1, len(words)) + 1):
            for i in range(len(words) - n + 1):
                chunk = words[i : i + n]
                if all(w in self._vocabulary for w, _, _ in chunk):
                    continue
                if around and not (chunk[0][1] <= around[0] and chunk[-1][2] >= around[1]
                                   and chunk[-1][2] - chunk[0][1] > around[1] - around[0]):
                    continue
                windows.append(("".join(w for w, _, _ in chunk), chunk[0][1], chunk[-1][2]))
        # The best (distance, -span): fewest edits, then the most of the question read as a name ("karouba
        # junior" is Karuba Junior, not Karuba); the games reaching it, with their span.
        best_key, found = None, {}
        for length, (names, gids) in self._fuzzy.items():
            near = [w for w in windows if abs(len(w[0]) - length) <= 2]
            if not near:
                continue
            # OSA: a swap of two letters ("cubitso") is one edit.
            distances = process.cdist([w[0] for w in near], names, scorer=OSA.distance, score_cutoff=2, workers=1)
            allowed = 2 if length >= LONG_NAME_CHARS else 1
            for wi, ni in zip(*(distances <= allowed).nonzero()):
                key = (int(distances[wi, ni]), near[wi][1] - near[wi][2])
                if best_key is None or key < best_key:
                    best_key, found = key, {}
                if key == best_key:
                    # Jaro-Winkler, for a tie: players rarely misspell the first letters of a name.
                    similarity = JaroWinkler.similarity(near[wi][0], names[ni])
                    if similarity > found.get(gids[ni], (-1.0,))[0]:
                        found[gids[ni]] = (similarity, near[wi][1], near[wi][2])
        if not found:
            return None
        ranked = sorted(found.items(), key=lambda item: -item[1][0])
        game, (similarity, start, end) = ranked[0]
        if len(ranked) > 1 and similarity - ranked[1][1][0] < TIE_MARGIN:
            # A typo as near to two titles, both ways ("banzeni": Banzenti or Banzeri?) is not guessed.
            return NameMatch(None, start, end, best_key[0], tuple(g for g, _ in ranked))
        return NameMatch(game, start, end, best_key[0])
