"""The base-vs-adapted decision on hand-made records: a clear win, a tie, and a significant loss."""

from eval.compare_adapt import MODES, format_report, summarize


def record(qid: str, first_relevant: int | None, answerable: bool = True) -> dict:
    """A question whose relevant passage (the same id for every system) is at rank `first_relevant` (None:
    not in the top 10)."""
    relevant = [i + 1 == first_relevant for i in range(10)] if answerable else [False] * 10
    ids = [f"{qid}-gold" if rel else f"{qid}-other{i}" for i, rel in enumerate(relevant)]
    return {"id": qid, "answerable": answerable, "game": "karuba", "gold_game": "karuba", "gold_pages": [6],
            "found": answerable, "detected_game": "karuba", "passage_ids": ids,
            "relevant": relevant, "pages": [[6] if rel else [2] for rel in relevant], "refusal": None,
            "gold_refusal": None if answerable else "off_topic", "answer_set_relevant": relevant[:1],
            "latency_ms": 1.0}


def records(ranks: list[int | None]) -> dict[str, list[dict]]:
    rows = [record(f"q{i}", r) for i, r in enumerate(ranks)] + [record("off", None, answerable=False)]
    return {mode: rows for mode in MODES}


MODELS = {"base": {"model_id": "multilingual-e5-small", "calibration": "calibrated"},
          "adapted": {"model_id": "multilingual-e5-small-adapted-0123456789ab", "calibration": "calibrated"}}


def paired(result: dict, mode: str = "hybrid") -> dict:
    return {t["metric"]: t for t in result["modes"][mode]["tests"]}


def test_a_clear_win_makes_adaptation_the_default():
    base, adapted = [3] * 30 + [1] * 10, [1] * 40
    result = summarize({"base": records(base), "adapted": records(adapted)}, MODELS, "test")
    tests = paired(result)
    assert tests["hit@1"]["base"] == 0.25 and tests["hit@1"]["adapted"] == 1.0
    assert tests["mrr@10"]["p_value"] <= 0.05 and tests["hit@1"]["significant"]
    assert result["adaptation_wins"] is True and result["modes"]["hybrid"]["answerable"] == 40
    assert "adaptation wins" in format_report(result)


def test_two_questions_out_of_forty_are_noise():
    base, adapted = [2, 2] + [1] * 38, [1] * 40
    result = summarize({"base": records(base), "adapted": records(adapted)}, MODELS, "test")
    tests = paired(result)
    assert tests["hit@1"]["adapted"] > tests["hit@1"]["base"] and tests["hit@1"]["p_value"] > 0.05
    assert result["adaptation_wins"] is False
    assert "the base model is the default" in format_report(result)


def test_a_significant_loss_is_no_win():
    base, adapted = [1] * 40, [4] * 30 + [1] * 10
    result = summarize({"base": records(base), "adapted": records(adapted)}, MODELS, "test")
    assert paired(result)["mrr@10"]["significant"] and result["adaptation_wins"] is False
