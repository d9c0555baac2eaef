"""The optional reranker seam: a cross-encoder from a local folder re-orders the passages and decides the
abstention; off by default. A tiny random cross-encoder built here stands for a real one."""

import pytest

from indexer.errors import ModelError
from service.engine.decide.abstention import AbstentionPolicy
from service.engine.calibration import Calibration
from service.engine.judge.reranker import CrossEncoderReranker
from service.runtime.settings import load_settings
from tests.fakes import tiny_cross_encoder, fake_answerer

QUESTION = "Les pépites d'or rapportent combien à la fin ?"


@pytest.fixture(scope="module")
def reranker(tmp_path_factory):
    return CrossEncoderReranker(tiny_cross_encoder(tmp_path_factory.mktemp("ce") / "tiny-ce"), top_n=8)


def test_off_by_default():
    assert load_settings().reranker is None and load_settings().reranker_model() is None


def test_scores_are_probabilities_one_per_text(reranker):
    scores = reranker.scores(QUESTION, ["2 points par pépite d'or", "On lance les dés.", "Trois voies."])
    assert len(scores) == 3 and all(0.0 <= s <= 1.0 for s in scores)
    assert reranker.scores(QUESTION, []) == [] and reranker.model_id == "tiny-ce" and len(reranker.fingerprint()) == 16


def test_the_reranker_orders_the_passages_and_its_score_decides(fake_index, reranker):
    plain = fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.2)))
    judged = fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.0,
                                                                                               feature="rerank")),
                           reranker=reranker)
    before = plain.ask(QUESTION, "karuba", k=8)
    after = judged.ask(QUESTION, "karuba", k=8)
    texts = [p.text for p in after.passages]
    expected = reranker.scores(QUESTION, texts)
    assert [round(s, 4) for s in expected] == [p.score for p in after.passages]  # its scores, shown
    assert [p.score for p in after.passages] == sorted((p.score for p in after.passages), reverse=True)
    assert {p.id for p in after.passages} <= {p.id for p in plain.ask(QUESTION, "karuba", k=20).passages}
    assert after.found  # threshold 0 on the reranker's score accepts
    refusing = judged.reconfigured(abstention=AbstentionPolicy(threshold=1.01, feature="rerank"))
    assert not refusing.ask(QUESTION, "karuba").found  # and above 1 refuses: the score is what decides
    assert before.passages[0].id in {p.id for p in after.passages}


def test_a_rerank_calibration_without_a_reranker_accepts_nothing(fake_index):
    answerer = fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.0,
                                                                                                  feature="rerank")))
    assert not answerer.ask(QUESTION, "karuba").found


def test_a_folder_that_is_no_model_is_one_clear_error(tmp_path):
    with pytest.raises(ModelError, match="introuvable"):
        CrossEncoderReranker(tmp_path / "absent")
    (tmp_path / "broken").mkdir()
    (tmp_path / "broken" / "config.json").write_text("{}")
    with pytest.raises(ModelError, match="illisible"):
        CrossEncoderReranker(tmp_path / "broken")
