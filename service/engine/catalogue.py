"""Searching the shelf's games by title, alias or id, for the type-ahead game picker (`GET /api/games?q=`).

A shelf holds up to thousands of games: the folded names are prepared once, and a search is one pass over
them (a few milliseconds for 10,000 games), ranked exact name > name prefix > word prefix > substring,
then, only when those leave the page short, near spellings by rapidfuzz ("karouba").
"""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import fuzz, process

from indexer.analysis import fold
from indexer.corpus import Game

# Below this similarity (0-100, rapidfuzz WRatio) a spelling is not offered as the game meant.
FUZZY_CUTOFF = 80
MAX_QUERY_CHARS = 100


def _norm(text: str) -> str:
    return " ".join("".join(c if c.isalnum() else " " for c in fold(text)).split())


@dataclass(frozen=True)
class Page:
    total: int  # games matching the query, all pages together
    games: list[Game]


class Catalogue:
    def __init__(self, games: list[Game]):
        # Titles in alphabetical order (accents aside): the order of a listing without a query, and of ties.
        self._games = sorted(games, key=lambda g: (_norm(g.title), g.id))
        self._names = [[_norm(n) for n in dict.fromkeys((g.title, *g.aliases, g.id.replace("-", " ")))]
                       for g in self._games]
        self._flat = [(gi, name) for gi, names in enumerate(self._names) for name in names]

    def search(self, query: str | None, limit: int, offset: int = 0) -> Page:
        q = _norm(query or "")
        if not q:
            return Page(len(self._games), self._games[offset : offset + limit])
        ranked: dict[int, tuple] = {}
        for gi, names in enumerate(self._names):
            best = min((_rank(name, q) for name in names), default=None)
            if best is not None and best < 4:
                ranked[gi] = (best, 0)
        if len(ranked) < offset + limit and len(q) >= 3:
            choices = [name for _, name in self._flat]
            # Never more than there are names: rapidfuzz takes a C long, an offset may be any integer.
            for _, score, i in process.extract(q, choices, scorer=fuzz.WRatio, score_cutoff=FUZZY_CUTOFF,
                                               limit=min(offset + limit, len(choices))):
                gi = self._flat[i][0]
                ranked.setdefault(gi, (4, -score))
        order = sorted(ranked, key=lambda gi: (ranked[gi], gi))
        return Page(len(order), [self._games[gi] for gi in order[offset : offset + limit]])


def _rank(name: str, q: str) -> int:
    if name == q:
        return 0
    if name.startswith(q):
        return 1
    if f" {q}" in f" {name}":
        return 2
    if q in name:
        return 3
    return 4
