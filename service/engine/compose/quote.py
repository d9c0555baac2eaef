"""The quote and its citation: the sentence(s) of a passage that answer, verbatim, and where to read them.

The answer is extractive: the best sentence(s) of the passage, in the rulebook's own words, cited by game and
pages ("Karuba, livret p. 6"), by section when the source has no pages, or as the game's card.
"""

from __future__ import annotations

import re
from functools import lru_cache

from indexer.analysis import analyze
from indexer.passages import Passage
from service.engine.question import Question

SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[«\"A-ZÀ-ÖØ-Þ0-9])")
CARD_CITATION = "fiche du jeu"
# A first sentence this short ("Non.", "Oui : …") needs the next one to make sense on its own.
SHORT_SENTENCE = 60


def short_citation(passage: Passage) -> str:
    """What a citation chip shows: the pages, else the section ("fiche du jeu" for the game card)."""
    if passage.is_card:
        return CARD_CITATION
    if passage.pages:
        return "p. " + ", ".join(str(p) for p in passage.pages)
    return passage.section or ""


def citation(passage: Passage, game_title: str) -> str:
    if passage.is_card:
        return f"{game_title}, {CARD_CITATION}"
    if passage.pages:
        return f"{game_title}, livret {short_citation(passage)}"
    if passage.section:
        return f"{game_title}, section {passage.section}"
    return game_title


def body(passage: Passage) -> str:
    """The passage without its title line (a question or a bullet title)."""
    if passage.title and passage.text.startswith(passage.title + "\n"):
        return passage.text[len(passage.title) + 1 :]
    return passage.text


@lru_cache(maxsize=4096)
def _sentence_terms(sentence: str) -> frozenset[str]:
    return frozenset(analyze(sentence))


def extract_answer(passage: Passage, question: Question) -> str:
    """The sentence(s) of the passage that answer the question, verbatim.

    A rules Q&A puts its direct answer first, so its first sentence is taken. Elsewhere the sentence
    sharing the most terms with the question is taken (the first one on a tie).
    """
    sentences = [s for line in body(passage).split("\n") for s in SENTENCE_END.split(line.strip()) if s]
    if not sentences:
        return passage.text
    best = 0
    if not (passage.title or "").endswith("?"):
        wanted = set(question.terms)
        overlaps = [len(wanted & _sentence_terms(s)) for s in sentences]
        best = max(range(len(sentences)), key=lambda i: (overlaps[i], -i))
    chosen = sentences[best]
    if len(chosen) < SHORT_SENTENCE and best + 1 < len(sentences):
        chosen = f"{chosen} {sentences[best + 1]}"
    return chosen
