"""Which game a question is about, when the player did not say."""

import re
from dataclasses import dataclass

from indexer.analysis import fold
from indexer.corpus import Game


@dataclass(frozen=True)
class Route:
    game: str | None
    how: str  # "given", "name" (title or alias in the question), "retrieval", or "none"


def _pattern(name: str) -> re.Pattern:
    words = re.findall(r"\w+", fold(name).replace("'", " "))
    return re.compile(r"\b" + r"\W*".join(map(re.escape, words)) + r"\b")


class GameNames:
    """Titles, aliases and ids of the games, matched as whole words, accents and apostrophes ignored."""

    def __init__(self, games: list[Game]):
        self._patterns = []
        for g in games:
            for name in {g.title, g.id, *g.aliases}:
                if re.search(r"\w", name):
                    self._patterns.append((len(name), g.id, _pattern(name)))
        # Longest names first, so "Sans Arrêt" wins over a shorter alias of another game inside it.
        self._patterns.sort(key=lambda item: -item[0])

    def find(self, question: str) -> str | None:
        folded = fold(question)
        found = {gid for _, gid, pattern in self._patterns if pattern.search(folded)}
        if len(found) == 1:
            return found.pop()
        if len(found) > 1:  # several games named: the longest name decides
            for _, gid, pattern in self._patterns:
                if pattern.search(folded):
                    return gid
        return None
