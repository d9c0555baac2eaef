"""Retrieval's first passage against the learned ranker, on hand-computed scores: it keeps its place unless another
candidate beats it by the lead; the others follow in the ranker's order, ties in retrieval's."""

import math

import numpy as np
import pytest

from service.engine.judge.ranker_policy import RankerPolicy

SCORES = np.array([1.0, 1.5, 0.2, 3.0])  # retrieval's order; the ranker prefers 3, then 1, 0, 2


@pytest.mark.parametrize("lead, order", [
    (0.0, [3, 1, 0, 2]),  # the ranker alone
    (1.0, [3, 0, 1, 2]),  # 1.0 + 1 = 2.0 still below 3.0, above 1.5
    (2.0, [0, 3, 1, 2]),  # 1.0 + 2 = 3.0 ties 3.0: retrieval's order decides the tie
    (math.inf, [0, 3, 1, 2]),  # never moved; the rest still in the ranker's order
])
def test_retrieval_s_first_is_moved_only_when_beaten_by_the_lead(lead, order):
    assert RankerPolicy(lead).order(SCORES).tolist() == order


def test_the_scores_given_are_not_changed_and_no_candidate_gives_no_order():
    scores = SCORES.copy()
    RankerPolicy(5.0).order(scores)
    assert scores.tolist() == SCORES.tolist()
    assert RankerPolicy(1.0).order(np.zeros(0)).tolist() == []


def test_the_learned_judge_orders_by_the_policy_given():
    from tests.service.engine.test_learned_judge import judge, rows

    j = judge()  # score = 2 * stems_in_passage
    assert j.order(rows([0.5, 1.0]))[0].tolist() == [1, 0]
    assert j.order(rows([0.5, 1.0]), RankerPolicy(1.0))[0].tolist() == [0, 1]  # 1 + 1 = 2 ties 2: kept
    order, scores = j.order(rows([0.5, 1.0]), RankerPolicy(1.0))
    assert scores.tolist() == [1.0, 2.0]  # the ranker's own scores, for the answerability judge


def test_unmeasured_it_never_moves_retrieval_s_first():
    assert RankerPolicy().min_lead == math.inf
    assert RankerPolicy().order(SCORES).tolist() == [0, 3, 1, 2]
