"""Calibration on the fake-embedder index: the chosen settings honour their own contract."""

import pytest

from tests.fakes import FakeEmbedder
from eval.gold import load_questions
from eval.tune import calibrate, check_dev_only, collect, fusion_candidates, ranking_quality
from indexer.errors import EvalError
from service.answer import AbstentionPolicy, Answerer
from service.calibration import Calibration
from service.retrieval import FusionConfig


def test_calibration_refuses_no_answerable_dev_question_and_picks_the_best_fusion(fake_index):
    answerer = Answerer.load(fake_index, FakeEmbedder(), Calibration())
    dev = load_questions("dev")
    chosen, info = calibrate(answerer, dev)
    table = info["fusion_table"]
    assert len(table) == len(fusion_candidates())
    assert info["measured"]["hit@1"] == round(max(row["hit@1"] for row in table), 4)
    assert chosen.fusion in [row["fusion"] for row in table]
    # The contract: with the chosen policy, no answerable dev question is refused for weak evidence;
    # those refused have no game at all (routing failed), which no threshold can mend.
    tuned = answerer.reconfigured(fusion=chosen.fusion, abstention=chosen.abstention)
    for q in dev:
        if q.answerable:
            answer = tuned.ask(q.question, q.game)
            assert answer.found or answer.game is None, q.id
    # The live answerer was not touched by the search.
    assert answerer.retriever.fusion == FusionConfig() and answerer.policy == AbstentionPolicy()
    assert 0.0 <= info["measured"]["abstain_recall"] <= 1.0


def test_ranking_quality_is_a_share_of_answerable_questions(fake_index):
    answerer = Answerer.load(fake_index, FakeEmbedder())
    collected = collect(answerer, load_questions("dev"))
    quality = ranking_quality(answerer, collected)
    answerable = sum(a.gold.answerable for a in collected)
    hits = quality["hit@1"] * answerable
    assert hits == pytest.approx(round(hits))  # a whole number of answerable questions
    assert quality["hit@1"] <= quality["mrr@10"] <= 1.0


def test_calibration_refuses_any_split_but_dev(fake_index):
    answerer = Answerer.load(fake_index, FakeEmbedder())
    with pytest.raises(EvalError, match="dev"):
        calibrate(answerer, load_questions("test"))
    with pytest.raises(EvalError, match="test"):
        check_dev_only(load_questions("dev") + load_questions("test"))
