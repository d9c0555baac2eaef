"""Each metric on a handful of records whose values are worked out by hand in the comments."""

import pytest

from eval import metrics as m
from eval.failures import failures
from eval.grouping import OFF_TOPIC, by_game, counts


def rec(relevant=(), pages=None, *, answerable=True, found=True, game="karuba", gold_game="karuba",
        detected="karuba", gold_pages=(6,), latency=1.0, rid="q"):
    relevant = list(relevant)
    return {
        "id": rid,
        "answerable": answerable,
        "found": found,
        "game": game,
        "gold_game": gold_game,
        "detected_game": detected,
        "gold_pages": list(gold_pages),
        "relevant": relevant,
        "pages": pages if pages is not None else [[6]] * len(relevant),
        "latency_ms": latency,
    }


RANKING = [
    rec([False, True, False]),  # first relevant at rank 2
    rec([True]),  # rank 1
    rec([False, False]),  # none
    rec([True], answerable=False, gold_game=None, gold_pages=()),  # excluded: not answerable
]


def test_first_relevant_rank():
    assert m.first_relevant_rank([False, False, True]) == 3
    assert m.first_relevant_rank([False]) is None
    assert m.first_relevant_rank([]) is None


def test_hit_at_k_counts_answerable_only():
    assert m.hit_at(RANKING, 1) == pytest.approx(1 / 3)
    assert m.hit_at(RANKING, 2) == pytest.approx(2 / 3)
    assert m.hit_at(RANKING, 10) == pytest.approx(2 / 3)


def test_mrr_at_k():
    # (1/2 + 1 + 0) / 3
    assert m.mrr_at(RANKING, 10) == pytest.approx(0.5)
    # the rank-2 hit falls outside a cut-off of 1
    assert m.mrr_at(RANKING, 1) == pytest.approx(1 / 3)


def test_page_at_1():
    records = [
        rec([True], pages=[[6]], gold_pages=(6,)),  # cites a gold page: 1
        rec([True], pages=[[5, 6]], gold_pages=(6,)),  # one of its pages is gold: 1
        rec([True], pages=[[5]], gold_pages=(6,)),  # relevant text but wrong page: 0
        rec([False], pages=[[]], gold_pages=()),  # no gold pages, first not relevant: 0
        rec([True, False], pages=[[], []], gold_pages=()),  # no gold pages, first relevant: 1
        rec([], pages=[], gold_pages=(6,)),  # nothing returned: 0
    ]
    assert m.page_at_1(records) == pytest.approx(3 / 6)


def test_page_at_1_rewards_gold_page_even_if_text_misses():
    # Page accuracy is about the citation the player sees, judged apart from the span.
    assert m.page_correct(rec([False], pages=[[6]], gold_pages=(6,))) is True


ABSTENTION = [
    rec(answerable=False, found=False, gold_game=None, gold_pages=()),  # TP
    rec(answerable=False, found=True, gold_game=None, gold_pages=()),  # FN
    rec([True], found=False),  # FP: false refusal
    rec([True], found=True),  # TN
    rec([True], found=True),  # TN
]


def test_abstention_precision_recall_and_false_refusal():
    assert m.abstain_precision(ABSTENTION) == pytest.approx(1 / 2)  # TP / (TP + FP)
    assert m.abstain_recall(ABSTENTION) == pytest.approx(1 / 2)  # TP / (TP + FN)
    assert m.false_refusal(ABSTENTION) == pytest.approx(1 / 3)  # FP / answerable


def test_undefined_metrics_are_none_not_zero():
    answered = [rec([True])]
    assert m.abstain_precision(answered) is None  # no refusal at all
    assert m.abstain_recall(answered) is None  # nothing to refuse
    assert m.routing(answered) is None  # every question had a game
    assert m.hit_at([rec(answerable=False, gold_game=None)], 1) is None


def test_routing_rules():
    records = [
        rec([True], game=None, detected="karuba"),  # right game: 1
        rec([True], game=None, detected="cubitos"),  # wrong game: 0
        rec([True], game=None, detected=None, found=False),  # answerable, refused, no game: 0
        rec(answerable=False, game=None, gold_game=None, detected=None, found=True),  # null == null: 1
        rec(answerable=False, game=None, gold_game=None, detected="karuba", found=False),  # abstained: 1
        rec(answerable=False, game=None, gold_game=None, detected="karuba", found=True),  # answered: 0
        rec([True], game="karuba", detected="cubitos"),  # game given: not a routing question
    ]
    assert m.routing(records) == pytest.approx(3 / 6)


def test_percentile_interpolates_linearly():
    values = [40.0, 10.0, 30.0, 20.0]
    assert m.percentile(values, 50) == pytest.approx(25.0)
    assert m.percentile(values, 95) == pytest.approx(38.5)  # pos 2.85 between 30 and 40
    assert m.percentile(values, 0) == 10.0
    assert m.percentile(values, 100) == 40.0
    assert m.percentile([7.0], 95) == 7.0
    assert m.percentile([], 50) is None


def test_metrics_by_name():
    records = [dict(r) for r in RANKING[:3]] + [rec([True], latency=9.0)]
    for r, latency in zip(records, (1.0, 2.0, 3.0)):
        r["latency_ms"] = latency
    values = m.evaluate(records, ["hit@1", "hit@3", "mrr@10", "latency_p50", "latency_p95"])
    assert values["hit@1"] == pytest.approx(2 / 4)
    assert values["hit@3"] == pytest.approx(3 / 4)
    assert values["mrr@10"] == pytest.approx((0.5 + 1 + 0 + 1) / 4)
    assert values["latency_p50"] == pytest.approx(2.5)
    assert values["latency_p95"] == pytest.approx(3 + 6 * 0.85)  # pos 2.85 between 3 and 9
    assert set(m.evaluate(records)) == set(m.DEFAULT_METRICS)


@pytest.mark.parametrize("name", ["ndcg@10", "hit@0", "hit", "latency_p101", "routing@1", ""])
def test_unknown_metric_names_raise(name):
    with pytest.raises(ValueError, match="métrique inconnue"):
        m.metric(name)


def test_by_game_groups_on_gold_game_with_off_topic_last():
    records = [
        rec(answerable=False, gold_game=None, gold_pages=(), found=False),
        rec([True], gold_game="sans-arret", gold_pages=(1,), pages=[[1]]),
        rec([False, True], gold_game="cubirds", gold_pages=(), pages=[[], []]),
    ]
    groups = by_game(records, ["hit@1", "mrr@10", "abstain_recall"])
    assert list(groups) == ["cubirds", "sans-arret", OFF_TOPIC]
    assert groups["cubirds"] == {"hit@1": 0.0, "mrr@10": 0.5, "abstain_recall": None}
    assert groups["sans-arret"]["hit@1"] == 1.0
    assert groups[OFF_TOPIC] == {"hit@1": None, "mrr@10": None, "abstain_recall": 1.0}


def test_counts():
    records = ABSTENTION + [rec([True], game=None)]
    assert counts(records) == {"questions": 6, "answerable": 4, "unanswerable": 2, "off_topic": 2, "no_game": 1}


def test_failure_reasons():
    assert failures(rec([True], pages=[[6]])) == []
    assert failures(rec([False, True], pages=[[3], [6]])) == [
        "premier passage pertinent au rang 2",
        "page du premier passage hors des pages attendues",
    ]
    assert failures(rec([False], found=False)) == ["refus à tort", "aucun passage pertinent dans le top 10"]
    assert failures(rec(answerable=False, gold_game=None, found=True, game=None, detected="karuba")) == [
        "réponse donnée au lieu de s'abstenir",
        "routage : karuba au lieu de aucun",
    ]


def test_answer_set_coverage_and_size_over_answered_answerable_questions():
    records = [
        {**rec([False, True]), "answer_set_relevant": [False, True]},  # covered, size 2
        {**rec([False]), "answer_set_relevant": [False]},  # not covered, size 1
        {**rec([True], found=False), "answer_set_relevant": None},  # refused: no set
        {**rec([True], answerable=False, gold_game=None), "answer_set_relevant": [True, True, True]},  # excluded
    ]
    assert m.set_coverage(records) == pytest.approx(1 / 2)
    assert m.set_size(records) == pytest.approx(3 / 2)
    assert m.set_coverage([records[2]]) is None


def test_refusal_per_kind_and_reason_accuracy():
    def refusal(gold, given):
        return {**rec([], answerable=False, found=given is None, gold_game=None), "gold_refusal": gold,
                "refusal": given}

    records = [
        refusal("off_topic", "off_topic"),
        refusal("off_topic", None),  # answered: not refused
        refusal("other_game", "off_topic"),  # refused, wrong reason
        refusal("not_in_rules", "weak_evidence"),  # refused, wrong reason
        {**rec([True]), "gold_refusal": None, "refusal": None},
    ]
    assert m.metric("refusal_off_topic")(records) == pytest.approx(1 / 2)
    assert m.metric("refusal_other_game")(records) == 1.0
    assert m.metric("refusal_not_in_rules")(records) == 1.0
    assert m.refusal_reason(records) == pytest.approx(1 / 3)  # 3 refused, 1 with its expected reason


def test_sure_precision_rate_and_one_tap():
    records = [
        {**rec([True, False]), "sure": True, "choices_relevant": None},  # sure and right
        {**rec([False, True]), "sure": True, "choices_relevant": None},  # sure and wrong
        {**rec([False, True, False]), "sure": False, "choices_relevant": [False, True, False]},  # one tap finds it
        {**rec([False, False, True]), "sure": False, "choices_relevant": [False, False]},  # not among the choices
        {**rec([True], found=False), "sure": False, "choices_relevant": [True, False]},  # refused, a choice is right
        {**rec([True], answerable=False, gold_game=None), "sure": True, "choices_relevant": None},  # sure, no answer
    ]
    # Sure: rows 1, 2 and 6 (found and sure); only row 1 is right: 1/3.
    assert m.sure_precision(records) == pytest.approx(1 / 3)
    # Answerable and answered: rows 1-4; sure among them: rows 1 and 2.
    assert m.sure_rate(records) == pytest.approx(2 / 4)
    # Answerable rows 1-5 resolved in one tap: 1 (right answer), 3 and 5 (a right choice): 3/5.
    assert m.one_tap(records) == pytest.approx(3 / 5)
    assert m.metric("one_tap")(records) == m.one_tap(records)


def test_mcnemar_by_hand():
    from eval.paired import mcnemar, outcome

    # 6 disagreements, all for b: p = 2 * (1/2)^6 = 0.03125.
    assert mcnemar([False] * 6 + [True] * 4, [True] * 10) == pytest.approx(0.03125)
    # 1 against 3: p = 2 * (C(4,0) + C(4,1)) / 2^4 = 0.625; no disagreement: 1.
    assert mcnemar([True, False, False, False], [False, True, True, True]) == pytest.approx(0.625)
    assert mcnemar([True, False], [True, False]) == 1.0
    with pytest.raises(ValueError):
        mcnemar([True], [True, False])
    assert outcome(rec([True])) and not outcome(rec([False, True])) and not outcome(rec([True], found=False))
    assert outcome(rec([], answerable=False, found=False)) and not outcome(rec([True], answerable=False))
