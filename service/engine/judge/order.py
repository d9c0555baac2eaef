"""The judge, fourth stage of an answer: the order of the routed game's first passages, and their evidence.

The learned judge (judge/learned.py, trained by `make train`) re-orders the first passages by its ranker's
score of their features (judge/features.py), retrieval's first kept unless beaten by a calibrated lead
(judge/ranker_policy.py), and says how likely the first one, or one of the first three,
answers the question. The card answers card questions only ("l'extension change quoi ?" must not quote
"Extensions : 2"), so it goes last unless the question asks a card field of the routed game (the question
stage's detection, question/card_question.py, read against that game's names). An
optional cross-encoder (judge/reranker.py, RULESQA_RERANKER) re-orders the first passages by its own score,
which then decides the abstention.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from service.engine.findings import Findings, GameRetrieved, Hit, Retrieved, Route
from service.engine.judge.features import feature_rows
from service.engine.judge.learned import LearnedJudge
from service.engine.judge.ranker_policy import RankerPolicy
from service.engine.phrases import name_words
from service.engine.question.reading import Reading


class Judge:
    def __init__(self, reranker=None, learned: LearnedJudge | None = None, ranker: bool = True,
                 answerability: bool = True, ranker_policy: RankerPolicy = RankerPolicy()):
        self.reranker = reranker  # judge/reranker.py, or None
        self.learned = learned  # judge/learned.py, or None
        self.ranker = ranker and learned is not None  # its order of the first passages
        self.answerability = answerability and learned is not None  # its probabilities, for the decision
        self.ranker_policy = ranker_policy  # how far it is trusted against retrieval's first (calibrated)

    def depth(self, k: int) -> int:
        """How many of a game's passages the judge reads to show k."""
        depths = [k]
        if self.reranker is not None:
            depths.append(self.reranker.top_n)
        if self.ranker or self.answerability:
            depths.append(self.learned.top_n)
        return max(depths)

    def judged(self, reading: Reading, route: Route, retrieved: Retrieved) -> Findings:
        k = reading.query.k
        unrouted = _card_last(retrieved.shelf.hits[:k]) if retrieved.shelf is not None else []
        in_game = retrieved.games.get(route.game) if route.game is not None else None
        if in_game is None:
            return Findings(route, unrouted, None, retrieved, unrouted=unrouted)
        hits, rows, scores = self._learned_order(reading, in_game)
        if self.reranker is not None:
            hits = self.reranker.rerank(in_game.rewrite.text, hits)
            rows = None  # the learned judge's inputs follow its own order only
        card_question = reading.card_question
        if card_question is not None and not card_question.of_game(name_words(in_game.game)):
            card_question = None
        if card_question is None:
            order = _card_last_order(hits[:k])
            hits = [hits[i] for i in order]
            if rows is not None:
                rows, scores = rows[order], scores[order]
        else:
            hits = hits[:k]
            if rows is not None:
                rows, scores = rows[:k], scores[:k]
        evidence = in_game.evidence(hits[0]) if hits else None
        if self.reranker is not None and evidence is not None:
            evidence = replace(evidence, rerank=hits[0].score)
        judgement = None
        if self.answerability and rows is not None and len(rows):
            judgement = self.learned.judge(self.learned.answer_inputs(rows, scores))
        return Findings(route, hits, evidence, retrieved, card_question, unrouted, judgement, rows)

    def _learned_order(self, reading: Reading, in_game: GameRetrieved
                       ) -> tuple[list[Hit], np.ndarray | None, np.ndarray]:
        """The game's passages in the ranker's order (retrieval's when the ranker is off), with the first ones'
        features and ranker scores in that order (None without a learned judge)."""
        hits = in_game.hits
        if not (self.ranker or self.answerability):
            return hits, None, np.zeros(0)
        head, tail = hits[: self.learned.top_n], hits[self.learned.top_n:]
        rows = feature_rows(reading.question, head, in_game.game)
        order, scores = self.learned.order(rows, self.ranker_policy)
        if not self.ranker:
            return hits, rows, scores
        return [head[i] for i in order] + tail, rows[order], scores[order]


def _card_last_order(hits: list) -> list[int]:
    """The hits' positions with the card's moved last (a stable partition)."""
    return sorted(range(len(hits)), key=lambda i: hits[i].passage.is_card)


def _card_last(hits: list) -> list:
    return [hits[i] for i in _card_last_order(hits)]
