"""The learned judge on tiny hand-made features: the order and the refusal are known; a file that was not trained
for this code or this model is refused in one line."""

import json
import math

import numpy as np
import pytest

from service.engine.decide.answerability import AnswerabilityPolicy
from service.engine.judge.features import FEATURES
from service.engine.judge.learned import (ANSWER_INPUTS, FORMAT, JudgeFileError, Judgement, LearnedJudge, Linear,
                                          Network)

N = len(FEATURES)
STEMS = FEATURES.index("stems_in_passage")


def linear(width: int, weights: dict[int, float], bias: float = 0.0) -> Linear:
    w = np.zeros(width)
    for i, v in weights.items():
        w[i] = v
    return Linear(np.zeros(width), np.ones(width), w, bias)


def network(feature: int, weight: float) -> Network:
    """One hidden unit passing `feature` (non-negative) through: score = weight * x[feature]."""
    w1 = np.zeros((1, N))
    w1[0, feature] = 1.0
    return Network(np.zeros(N), np.ones(N), w1, np.zeros(1), np.array([weight]), 0.0)


def judge(first_bias: float = 0.0, any_bias: float = 0.0) -> LearnedJudge:
    # The ranker prefers the passage holding the question's words; the answerability judge reads the ranker's
    # first score (ANSWER_INPUTS[0]) with weight 1.
    return LearnedJudge(network(STEMS, 2.0), linear(len(ANSWER_INPUTS), {0: 1.0}, first_bias),
                        linear(len(ANSWER_INPUTS), {0: 1.0}, any_bias), "multilingual-e5-small")


def rows(stems: list[float]) -> np.ndarray:
    out = np.zeros((len(stems), N))
    out[:, STEMS] = stems
    return out


def test_the_ranker_puts_the_passage_holding_the_question_s_words_first_ties_in_retrieval_order():
    order, scores = judge().order(rows([0.0, 1.0, 0.5, 1.0]))
    assert order.tolist() == [1, 3, 2, 0]
    assert scores.tolist() == [0.0, 2.0, 1.0, 2.0]


def test_answer_inputs_are_the_ranker_s_first_gap_and_third_then_the_first_passage_s_features():
    j = judge()
    r = rows([1.0, 0.5, 0.25])
    inputs = j.answer_inputs(r, np.array([2.0, 1.0, 0.5]))
    assert inputs[:3].tolist() == [2.0, 1.0, 0.5]
    assert inputs[3:].tolist() == r[0].tolist() and len(inputs) == len(ANSWER_INPUTS)


def test_a_weak_first_score_is_refused_and_a_strong_one_is_sure():
    j = judge(first_bias=-1.0, any_bias=-1.0)
    weak = j.judge(j.answer_inputs(rows([0.0]), np.array([0.0])))  # sigmoid(-1) = 0.269
    strong = j.judge(j.answer_inputs(rows([1.0]), np.array([2.0])))  # sigmoid(1) = 0.731
    assert weak.any_top == pytest.approx(1 / (1 + math.e)) and strong.first == pytest.approx(1 / (1 + math.e ** -1))
    policy = AnswerabilityPolicy(refuse_below=0.5, sure_above=0.7)
    assert policy.refuses(weak) and not policy.refuses(strong)
    assert policy.sure(strong) is True and policy.sure(weak) is False
    assert AnswerabilityPolicy().sure(strong) is None and not AnswerabilityPolicy().refuses(weak)  # unmeasured
    assert not policy.refuses(None) and policy.sure(None) is None


def _file(tmp_path, **changes):
    j = judge()
    data = {"format": FORMAT, "model_family": "multilingual-e5-small", "top_n": 20, "features": list(FEATURES),
            "answer_inputs": list(ANSWER_INPUTS), "ranker": j.ranker.as_dict(), "first": j.first.as_dict(),
            "any_top": j.any_top.as_dict(), **changes}
    path = tmp_path / "judge.json"
    path.write_text(json.dumps(data), "utf-8")
    return path


def test_a_trained_file_loads_and_judges_as_its_numbers_say(tmp_path):
    loaded = LearnedJudge.load(_file(tmp_path), "multilingual-e5-small")
    assert loaded.order(rows([0.0, 1.0]))[0].tolist() == [1, 0]
    assert isinstance(loaded.judge(np.zeros(len(ANSWER_INPUTS))), Judgement)


@pytest.mark.parametrize("changes, message", [
    ({"format": 0}, "format"),
    ({"model_family": "embeddinggemma-300m"}, "entraîné pour"),
    ({"features": list(FEATURES[:-1])}, "autres indices"),
    ({"ranker": {"mean": [0.0], "scale": [1.0], "weights": [1.0], "bias": 0.0}}, "malformé"),  # untrained shape
    ({"ranker": {**network(STEMS, 2.0).as_dict(), "out_weights": [1.0, 2.0]}}, "malformé"),
    ({"first": None}, "malformé"),
])
def test_a_mismatched_or_untrained_file_is_refused_in_one_line(tmp_path, changes, message):
    with pytest.raises(JudgeFileError, match=message) as caught:
        LearnedJudge.load(_file(tmp_path, **changes), "multilingual-e5-small")
    assert "\n" not in str(caught.value)


def test_an_absent_or_unreadable_file_is_refused_in_one_line(tmp_path):
    with pytest.raises(JudgeFileError, match="illisible") as caught:
        LearnedJudge.load(tmp_path / "absent.json", "multilingual-e5-small")
    assert "\n" not in str(caught.value)
    (tmp_path / "bad.json").write_text("{", "utf-8")
    with pytest.raises(JudgeFileError, match="illisible"):
        LearnedJudge.load(tmp_path / "bad.json", "multilingual-e5-small")


def test_explain_shows_each_shown_passage_s_features(fake_index):
    from service.engine.question import validate
    from tests.fakes import fake_answerer

    answerer = fake_answerer(fake_index)
    query = validate("Les pépites d'or rapportent combien ?", "karuba", 3)
    explained = answerer.explain(query)
    answer = answerer.answer(query)
    assert [p["id"] for p in explained["passages"]] == [p.id for p in answer.passages]
    assert all(tuple(p["features"]) == FEATURES for p in explained["passages"])
    assert explained["passages"][0]["features"]["form_combien"] == 1.0 and explained["game"] == "karuba"


def test_the_learned_ranker_is_a_setting_every_answerer_built_reads(fake_index, monkeypatch):
    """RULESQA_LEARNED_RANKER: off, retrieval's order; on, the ranker's (here: the passage holding most of the
    question's words first), within the lead the calibration allows."""
    from service.engine.calibration import Calibration
    from service.engine.judge.ranker_policy import RankerPolicy
    from service.engine.question import validate
    from service.runtime import answerers
    from tests.fakes import fake_answerer

    monkeypatch.setattr(answerers, "learned_judge", lambda model_id: judge())
    trusted = Calibration(ranker=RankerPolicy(0.0))
    off = fake_answerer(fake_index, trusted)
    on = fake_answerer(fake_index, trusted, learned_ranker=True)
    assert not off.judge.ranker and on.judge.ranker
    query = validate("Combien d'aventuriers par joueur ?", "karuba", 20)
    shares = [p["features"]["stems_in_passage"] for p in off.explain(query)["passages"]]
    first = on.explain(query)["passages"][0]["features"]["stems_in_passage"]
    assert first == max(shares) > shares[0]  # the ranker moved a passage holding more of the words first
    never = fake_answerer(fake_index, Calibration(), learned_ranker=True)  # unmeasured lead: never moved
    assert never.explain(query)["passages"][0]["id"] == off.explain(query)["passages"][0]["id"]
