"""Everyday senses of words the rules use too: a "dé à coudre" is no die, a "carte bancaire" no card
(service/engine/data/everyday_senses.json). A question holding one is not a rules question (off_topic), whatever
game is selected, unless the corpus passages found for it use the phrase themselves."""

from __future__ import annotations

import json
from collections.abc import Iterable
from pathlib import Path

from service.engine.phrases import PhraseMatcher, folded_passage
from service.engine.question import Question

DATA = Path(__file__).resolve().parents[1] / "data" / "everyday_senses.json"


class EverydaySenses:
    def __init__(self, phrases: Iterable[str] | None = None):
        if phrases is None:
            phrases = json.loads(DATA.read_text("utf-8"))["phrases"]
        self._matcher = PhraseMatcher(phrases)

    def detect(self, question: Question, corpus_texts: Iterable[str] = (), game_text: str = "") -> tuple[str, ...]:
        """The everyday senses in the question, unless the given passages or the asked game's rulebook
        (`game_text`, folded) use the phrase themselves."""
        used = " ".join(folded_passage(t) for t in corpus_texts)
        return tuple(dict.fromkeys(m.typed for m in self._matcher.find(question.folding)
                                   if m.text not in used and m.text not in game_text))
