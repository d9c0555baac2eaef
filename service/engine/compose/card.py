"""Questions about the game card ("Karuba c'est à partir de quel âge ?"): which card field is asked.

A question is a card question when it holds a field's cue (service/engine/data/card_questions.json) and nothing
else but the game's name and words any card question may carry ("une partie", "le jeu"): "à deux
joueurs, combien de trésors ?" names the players but asks a rule. Such a question is answered by the card
line of its field, quoted (indexer/game_card.py), or refused when the card does not give that field.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from indexer.analysis import STOPWORDS, TOKEN, fold
from indexer.passages import Passage
from indexer.game_card import FIELDS, field_line
from service.engine.phrases import PhraseMatcher
from service.engine.retrieval.protocol import Hit
from service.engine.question import Question

DATA = Path(__file__).resolve().parents[1] / "data" / "card_questions.json"


@dataclass(frozen=True)
class CardQuestion:
    field: str  # a key of indexer.game_card.FIELDS
    missing: str  # what the card does not say, for the refusal ("l'âge conseillé")


class CardQuestions:
    def __init__(self, data: dict):
        fields = data["fields"]
        unknown = set(fields) - set(FIELDS)
        if unknown:
            raise ValueError(f"card fields unknown to indexer/game_card.py: {sorted(unknown)}")
        self._cues = {name: PhraseMatcher(spec["cues"]) for name, spec in fields.items()}
        self._missing = {name: spec["missing"] for name, spec in fields.items()}
        allowed = {w for phrase in data["residual"] for w in TOKEN.findall(fold(phrase))}
        self._allowed = frozenset(allowed | {fold(w) for w in STOPWORDS})

    @classmethod
    def load(cls, path: Path = DATA) -> CardQuestions:
        return cls(json.loads(Path(path).read_text("utf-8")))

    def asked(self, question: str | Question, name_words: frozenset[str] = frozenset()) -> CardQuestion | None:
        """The card field the question asks about, or None when it asks something else. `name_words`: the
        folded words of the game's names, which a card question may hold ("Karuba c'est pour quel âge ?")."""
        text = Question.coerce(question).folded
        best: tuple[int, str] | None = None
        for name, matcher in self._cues.items():
            for found in matcher.find(text, already_folded=True):
                length = found.end - found.start
                if best is None or length > best[0]:
                    best = (length, name)
        if best is None:
            return None
        field = best[1]
        spans = [(f.start, f.end) for f in self._cues[field].find(text, already_folded=True)]
        rest = "".join(" " if any(a <= i < b for a, b in spans) else c for i, c in enumerate(text))
        if any(self._content(w, name_words) for w in TOKEN.findall(rest)):
            return None
        return CardQuestion(field, self._missing[field])

    def _content(self, word: str, name_words: frozenset[str]) -> bool:
        return not (len(word) < 2 or word.isdigit() or word in self._allowed or word in name_words)


@lru_cache(maxsize=1)
def card_questions() -> CardQuestions:
    return CardQuestions.load()


def card_answer(card: Passage | None, field: str, hits: list) -> tuple[str | None, list]:
    """(the card's line for the field, hits with the card first) for a card question; (None, hits) when the
    card does not give the field (or the game has no card)."""
    line = field_line(card.text, field) if card is not None else None
    if line is None:
        return None, hits
    rest = [h for h in hits if h.passage.id != card.id]
    shown = next((h for h in hits if h.passage.id == card.id), None)
    if shown is None:
        top = hits[0] if hits else None
        shown = Hit(card, top.score if top else 1.0, top.dense if top else 0.0, 0.0)
    return line, [shown, *rest][: len(hits) or 1]
