"""The judge, fourth stage of an answer: the order of the routed game's first passages, and their evidence.

The card answers card questions only ("l'extension change quoi ?" must not quote "Extensions : 2"), so it goes
last unless the question asks a card field (question/card_question.py). An optional reranker
(judge/reranker.py) re-orders the first passages by its own score, which then decides the abstention.
"""

from __future__ import annotations

from dataclasses import replace
from functools import lru_cache

from indexer.analysis import TOKEN, fold
from service.engine.findings import Findings, Retrieved, Route
from service.engine.question.card_question import CardQuestions
from service.engine.question.reading import Asked


@lru_cache(maxsize=1024)
def _name_words(game) -> frozenset[str]:
    """The folded words of a game's title, id and aliases."""
    return frozenset(TOKEN.findall(fold(" ".join([game.title, game.id.replace("-", " "), *game.aliases]))))


class Judge:
    def __init__(self, cards: CardQuestions, reranker=None, card: bool = True):
        self.cards = cards
        self.reranker = reranker  # judge/reranker.py, or None
        self.card = card  # card questions answered by the game card

    def depth(self, k: int) -> int:
        """How many of a game's passages the judge reads to show k."""
        return max(k, self.reranker.top_n) if self.reranker is not None else k

    def judged(self, asked: Asked, route: Route, retrieved: Retrieved) -> Findings:
        k = asked.query.k
        unrouted = _card_last(retrieved.shelf.hits[:k]) if retrieved.shelf is not None else []
        found = retrieved.games.get(route.game) if route.game is not None else None
        if found is None:
            return Findings(route, unrouted, None, retrieved, unrouted=unrouted)
        hits = found.hits
        if self.reranker is not None:
            hits = self.reranker.rerank(found.rewrite.text, hits)
        hits = hits[:k]
        card = self.cards.asked(asked.question, _name_words(found.game)) if self.card else None
        if card is None:
            hits = _card_last(hits)
        evidence = found.evidence(hits[0]) if hits else None
        if self.reranker is not None and evidence is not None:
            evidence = replace(evidence, rerank=hits[0].score)
        return Findings(route, hits, evidence, retrieved, card, unrouted)


def _card_last(hits: list) -> list:
    return [h for h in hits if not h.passage.is_card] + [h for h in hits if h.passage.is_card]
