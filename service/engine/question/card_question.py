"""Questions about the game card ("Karuba c'est à partir de quel âge ?"): which card field is asked.

A question is a card question when it holds a field's cue (service/engine/data/card_questions.json) and nothing
else but the game's name and words any card question may carry ("une partie", "le jeu"): "à deux
joueurs, combien de trésors ?" names the players but asks a rule. Such a question is answered by the card
line of its field, quoted (indexer/game_card.py: decide/card_answer.py), or refused when the card does not give
that field.
"""

from __future__ import annotations

import json
from functools import lru_cache
from pathlib import Path

from indexer.analysis import STOPWORDS, TOKEN, fold
from indexer.game_card import FIELDS
from service.engine.phrases import PhraseMatcher
from service.engine.findings import CardQuestion
from service.engine.question import Question

DATA = Path(__file__).resolve().parents[1] / "data" / "card_questions.json"


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

    def detect(self, question: Question) -> CardQuestion | None:
        """The card field the question asks about, with its other words (CardQuestion.others), or None when it
        asks something else. Read once by the question stage, before the game is known."""
        text = question.folded
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
        others = frozenset(w for w in TOKEN.findall(rest) if self._content(w))
        return CardQuestion(field, self._missing[field], others)

    def asked(self, question: Question, name_words: frozenset[str] = frozenset()) -> CardQuestion | None:
        """The card field the question asks about, or None when it asks something else. `name_words`: the
        folded words of the game's names, which a card question may hold ("Karuba c'est pour quel âge ?")."""
        card = self.detect(question)
        return card if card is not None and card.of_game(name_words) else None

    def _content(self, word: str) -> bool:
        return not (len(word) < 2 or word.isdigit() or word in self._allowed)


@lru_cache(maxsize=1)
def card_questions() -> CardQuestions:
    return CardQuestions.load()
