"""The "Tu parles de… ?" choices an answer offers when its best passage is not sure (decide/confidence.py)."""

from __future__ import annotations

import re

from service.engine.answer import Choice, Quote
from service.engine.compose.quote import citation, extract_answer, short_citation
from service.engine.question import Question

# A button shows a passage's title (its question, its bullet title) or its first words.
LABEL_WORDS = 9
_SPACE = re.compile(r"\s+")


def label(passage) -> str:
    """What a choice's button says."""
    if passage.is_card:
        return passage.section or "Fiche du jeu"
    if passage.title:
        return passage.title
    words = _SPACE.sub(" ", passage.text).strip().split(" ")
    return " ".join(words[:LABEL_WORDS]) + (" …" if len(words) > LABEL_WORDS else "")


def choices(offered: list, question: Question, title_of, quote: Quote | None = None) -> list[Choice]:
    """The offered hits as choices (none when there is only one); `title_of`: game id -> the game's title. The
    quoted passage's answer is the quote's own text, extracted once (compose/reply.py)."""
    if len(offered) < 2:
        return []
    return [Choice(h.passage.id, label(h.passage), _answer(h.passage, question, quote),
                   citation(h.passage, title_of(h.passage.game)), short_citation(h.passage), i == 0)
            for i, h in enumerate(offered)]


def _answer(passage, question: Question, quote: Quote | None) -> str:
    if quote is not None and passage.id == quote.passage_id:
        return quote.text
    return extract_answer(passage, question)
