"""What no rulebook answers: the box as a product, advice and opinions (service/engine/data/beyond_rules.json
"always"), and rules topics the game's own text does not cover ("topics": "qui commence ?" where the text
names no first player). Either makes a question about a known game not_in_rules."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import lru_cache
from pathlib import Path

from service.engine.phrases import PhraseMatcher, folded
from service.engine.question import Question

DATA = Path(__file__).resolve().parents[1] / "data" / "beyond_rules.json"


@lru_cache(maxsize=1024)
def _names(game_names: tuple[str, ...]) -> re.Pattern | None:
    """One pattern for a game's names, longest first, as whole words of folded text."""
    names = sorted({folded(n) for n in game_names if n.strip()}, key=len, reverse=True)
    return re.compile("|".join(rf"(?<!\w){re.escape(n)}(?!\w)" for n in names)) if names else None


class BeyondRules:
    def __init__(self, data: dict | None = None):
        data = data or json.loads(DATA.read_text("utf-8"))
        self._always = PhraseMatcher(data["always"])
        self._topics = [(PhraseMatcher(t["cues"]), tuple(t["evidence"])) for t in data["topics"]]

    def detect(self, question: Question, game_text: str, game_names: Iterable[str] = ()) -> tuple[str, ...]:
        """What in the question the rules cannot answer (the matched words), or (). `game_text`: the game's
        text, folded (service/engine/phrases.py); `game_names`: its names, read as "le jeu" in the question."""
        names = _names(tuple(game_names))
        text = names.sub("le jeu", question.folded) if names else question.folded
        out = [m.text for m in self._always.find(text, True)]
        for cues, evidence in self._topics:
            matches = cues.find(text, True)
            if matches and not any(re.search(rf"(?<!\w){re.escape(e)}(?!\w)", game_text) for e in evidence):
                out.extend(m.text for m in matches)
        return tuple(dict.fromkeys(out))
