"""Other games a player may ask about: well-known names and words only those games use
(service/data/other_games.json). "comment on joue au poker ?" is about a game the corpus does not hold,
however it is capitalised, unless the corpus holds that game (its titles and aliases are never other games).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from indexer.corpus import Game
from service.phrases import PhraseMatcher, folded

DATA = Path(__file__).resolve().parent / "data" / "other_games.json"


@lru_cache(maxsize=1)
def _data() -> dict:
    return json.loads(DATA.read_text("utf-8"))


class OtherGames:
    def __init__(self, games: Iterable[Game], data: dict | None = None):
        data = data or _data()
        needs_context = set(data["needs_context"])
        self._matcher = PhraseMatcher(
            [n for n in data["names"] if n not in needs_context]
            + [f"{data['context']} (?P<name>{n})" for n in sorted(needs_context)]
            + data["terms"]
        )
        self._known = frozenset(folded(name) for g in games for name in (g.title, g.id.replace("-", " "), *g.aliases))

    def found(self, question: str, corpus_texts: Iterable[str] = ()) -> tuple[str, ...]:
        """The other games' names or terms in the question, as typed, first seen first. A match that is a
        corpus game's name, or that the given corpus passages use themselves, does not count."""
        used = " ".join(folded(t) for t in corpus_texts)
        out = [m.typed for m in self._matcher.find(question) if m.text not in self._known and m.text not in used]
        return tuple(dict.fromkeys(out))
