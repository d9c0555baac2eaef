"""Other games a player may ask about: well-known names and words only those games use
(service/engine/data/other_games.json). "comment on joue au poker ?" is about a game the corpus does not hold,
however it is capitalised, unless the corpus holds that game (its titles and aliases are never other games).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from indexer.corpus import Game
from service.engine.phrases import PhraseMatcher, folded, folded_passage
from service.engine.question import Question

DATA = Path(__file__).resolve().parents[1] / "data" / "other_games.json"


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
        known = {folded(name) for g in games for name in (g.title, g.id.replace("-", " "), *g.aliases)} - {""}
        self._known = frozenset(known)
        self._known_names = PhraseMatcher(re.escape(n) for n in sorted(known, key=len, reverse=True))

    def detect(self, question: Question, corpus_texts: Iterable[str] = (), game_text: str = "",
              game: Game | None = None) -> tuple[str, ...]:
        """The other games' names or terms in the question, as typed, first seen first. A corpus game's name
        ("Uno Flip" holds "uno"), or what the given corpus passages, the asked game's rulebook (`game_text`,
        folded) or its lexicon (`game`'s players' words: "excuse" for a trick-taking game's "carte Calme") say
        themselves, does not count."""
        used = " ".join(folded_passage(t) for t in corpus_texts)
        own = lexicon_text(game.lexicon) if game is not None else ""
        folding = question.folding
        spans = [(m.start, m.end) for m in self._known_names.find(folding)] if self._known_names else []
        out = [m.typed for m in self._matcher.find(folding)
               if m.text not in self._known and m.text not in used and m.text not in game_text and m.text not in own
               and not any(a <= m.start and m.end <= b for a, b in spans)]
        return tuple(dict.fromkeys(out))


@lru_cache(maxsize=1024)
def lexicon_text(lexicon: tuple[tuple[str, tuple[str, ...]], ...]) -> str:
    """A game's lexicon (indexer.corpus.Game.lexicon: its rulebook words and the players' words for them),
    folded, as one text a term is looked up in."""
    return " | ".join(folded(word) for entry, players in lexicon for word in (entry, *players))
