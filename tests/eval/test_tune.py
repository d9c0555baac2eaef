"""Calibration on the fake-embedder index: the chosen settings honour their own contract."""

import pytest

from conftest import FakeEmbedder
from eval.gold import load_questions
from eval.tune import calibrate, fusion_candidates, ranking_quality
from service.answer import Answerer


def test_calibration_refuses_no_answerable_dev_question_and_picks_the_best_fusion(fake_index):
    answerer = Answerer.load(fake_index, FakeEmbedder())
    dev = load_questions("dev")
    chosen, info = calibrate(answerer, dev)
    table = info["fusion_table"]
    assert len(table) == len(fusion_candidates())
    assert info["measured"]["hit@1"] == round(max(row["hit@1"] for row in table), 4)
    assert chosen.fusion in [row["fusion"] for row in table]
    # The contract: with the chosen policy, no answerable dev question is refused.
    answerer.retriever.fusion, answerer.policy = chosen.fusion, chosen.abstention
    for q in dev:
        if q.answerable:
            assert answerer.ask(q.question, q.game)["found"], q.id
    assert 0.0 <= info["measured"]["abstain_recall"] <= 1.0


def test_ranking_quality_is_a_share_of_answerable_questions(fake_index):
    answerer = Answerer.load(fake_index, FakeEmbedder())
    collected = [(q, answerer.retriever.score(q.question)) for q in load_questions("dev")]
    quality = ranking_quality(answerer, collected)
    answerable = sum(q.answerable for q, _ in collected)
    hits = quality["hit@1"] * answerable
    assert hits == pytest.approx(round(hits))  # a whole number of answerable questions
    assert quality["hit@1"] <= quality["mrr@10"] <= 1.0
