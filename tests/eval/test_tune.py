"""Calibration on the fake-embedder index: the chosen settings honour their own contract."""

import pytest

from tests.fakes import fake_answerer
from eval.gold import load_questions
from eval.replay import check_dev_only, collect, ranking_quality
from eval.tune import calibrate, fusion_candidates
from eval.errors import EvalError
from service.engine.decide.abstention import AbstentionPolicy
from service.engine.calibration import Calibration
from service.engine.retrieval.protocol import FusionConfig


def test_calibration_refuses_no_answerable_dev_question_and_picks_the_best_fusion(fake_index):
    answerer = fake_answerer(fake_index, Calibration())
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
    assert answerer.retriever.fusion == FusionConfig() and answerer.calibration.abstention == AbstentionPolicy()
    assert 0.0 <= info["measured"]["abstain_recall"] <= 1.0


def test_ranking_quality_is_a_share_of_answerable_questions():
    """Four answerable questions whose first right passage is 1st, 2nd, absent and 1st, and one question
    without an answer (ranked, never counted): hit@1 = 2/4, MRR@10 = (1 + 1/2 + 0 + 1) / 4."""
    from eval.gold import GoldQuestion
    from eval.replay import Replayable
    from service.engine.answer import Answer, CitedPassage, GameRef, Quote
    from service.engine.question import Query

    def passage(i, text):
        return CitedPassage(f"karuba-{i}", "karuba", None, [i], text, 1.0, "", "")

    right, wrong = "2 points par pépite d'or", "Une plaquette ne porte jamais deux aventuriers."
    ranked = {"q1": [right, wrong], "q2": [wrong, right], "q3": [wrong, wrong], "q4": [right], "q5": [right]}

    class Scripted:
        def answer(self, query, retrieved):
            passages = [passage(i, t) for i, t in enumerate(ranked[query.question], 1)]
            return Answer(query.question, GameRef("karuba", "Karuba"), False, True,
                          Quote(passages[0].text, "", passages[0].id, [passages[0].id]), "", passages, None, None)

    asked = [Replayable(GoldQuestion(q, q, "karuba", "karuba", q != "q5", (right,) if q != "q5" else (), (), "fr",
                                refusal=None if q != "q5" else "not_in_rules"), Query(q, "karuba"), None, None)
             for q in ranked]
    quality = ranking_quality(Scripted(), asked)
    assert quality == pytest.approx({"hit@1": 2 / 4, "mrr@10": (1 + 1 / 2 + 0 + 1) / 4})


def test_calibration_refuses_any_split_but_dev(fake_index):
    answerer = fake_answerer(fake_index)
    with pytest.raises(EvalError, match="dev"):
        calibrate(answerer, load_questions("test"))
    with pytest.raises(EvalError, match="test"):
        check_dev_only(load_questions("dev") + load_questions("test"))


def test_wilson_lower_bound_by_hand():
    from eval.tune import wilson_lower_bound

    # 15 right of 15 at z = 1.2816: 15 / (15 + z²) = 0.9013; 9 of 9 only 0.8457; nothing asked: 0.
    assert wilson_lower_bound(15, 15) == pytest.approx(15 / (15 + 1.2816 ** 2))
    assert wilson_lower_bound(9, 9) == pytest.approx(0.8457, abs=1e-4)
    assert wilson_lower_bound(0, 0) == 0.0
    assert wilson_lower_bound(27, 30) < 27 / 30


def test_confidence_is_sure_only_where_the_dev_bound_allows(fake_index):
    from eval.replay import decided
    from eval.tune import CONFIDENCE_PRECISION, calibrate_confidence, wilson_lower_bound
    from service.engine.decide.confidence import ConfidencePolicy

    answerer = fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.2)))
    asked = collect(answerer, load_questions("dev"))
    policy, info = calibrate_confidence(answerer, asked)
    if policy.min_gap == float("inf"):
        assert info["sure_shown"] == 0
        return
    sure = answerer.reconfigured(confidence=policy)
    shown = right = 0
    for a in asked:
        decision = decided(sure, a)
        found = decision.findings
        if decision.reason is None and found.card_question is None and policy.sure(found.hits):
            shown += 1
            right += a.gold.is_relevant(found.hits[0].passage.game, found.hits[0].passage.text)
    assert (shown, right) == (info["sure_shown"], info["sure_right"])
    assert wilson_lower_bound(right, shown) >= CONFIDENCE_PRECISION and isinstance(policy, ConfidencePolicy)


def test_the_answer_set_is_measured_on_what_the_passages_answer_whatever_the_card_says(fake_index):
    """_answered (the questions the answer set and the common mistake are calibrated on) counts a card question by
    the reasons before its card's outcome: refused by weak evidence it stays out even though its card answers it,
    and answered by its passages it is in, as before the card's outcome moved into decide."""
    from eval.replay import decided
    from eval.tune import ACCEPT_ALL, NO_REFUSAL, _answered

    dev = load_questions("dev")
    refuse_all = fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=10.0)))
    asked = collect(refuse_all, dev)
    by_card = [a for a in asked if a.gold.answerable and decided(refuse_all, a).card_line is not None]
    assert by_card and all(decided(refuse_all, a).reason is None for a in by_card)
    assert list(_answered(refuse_all, asked)) == []
    accept_all = refuse_all.reconfigured(abstention=ACCEPT_ALL, refusal=NO_REFUSAL)
    counted = {a.gold.id for a, _ in _answered(accept_all, asked)}
    assert counted & {a.gold.id for a in by_card}


def test_a_new_calibration_is_adopted_only_on_a_paired_tests_evidence(fake_index):
    from eval.tune import adoption

    dev = load_questions("dev")
    sensible = Calibration(abstention=AbstentionPolicy(threshold=-1.0))  # answers every question
    refuse_all = Calibration(abstention=AbstentionPolicy(threshold=10.0))  # answers none
    current = fake_answerer(fake_index, sensible)
    same = adoption(current, sensible, dev)
    assert not same["adopt"] and not same["better"] and not same["worse"]
    assert {p["metric"] for p in same["pairs"]} == {"hit@1", "mrr@10", "outcome"}
    worse = adoption(current, refuse_all, dev)
    assert not worse["adopt"] and "outcome" in worse["worse"]
    better = adoption(fake_answerer(fake_index, refuse_all), sensible, dev)
    assert better["adopt"] and "outcome" in better["better"]
    with pytest.raises(EvalError):
        adoption(current, sensible, load_questions("test"))


def test_routing_is_calibrated_with_the_rest_and_never_routes_fewer_questions(fake_index):
    """The routing policy is chosen on dev like the other parts: the default stays unless another lexical
    dominance routes more game-less questions right, and the chosen one is saved in the calibration."""
    from eval import metrics as m
    from eval.replay import records
    from eval.tune import ACCEPT_ALL, NO_REFUSAL, calibrate_routing
    from service.engine.routing.router import RoutingPolicy

    answerer = fake_answerer(fake_index, Calibration())
    asked = collect(answerer, load_questions("dev"))
    policy, info = calibrate_routing(answerer, asked)

    def routed(p):
        candidate = answerer.reconfigured(routing=p, abstention=ACCEPT_ALL, refusal=NO_REFUSAL)
        return m.evaluate(records(candidate, asked), ("routing",))["routing"]

    assert info["routing"] == pytest.approx(routed(policy), abs=1e-6)
    assert routed(policy) >= routed(RoutingPolicy()) and policy.ambiguity_margin == 0.0
    if policy != RoutingPolicy():
        assert routed(policy) > routed(RoutingPolicy())
    chosen, measured = calibrate(answerer, load_questions("dev"))
    assert chosen.routing == policy and measured["measured"]["routing"] == info["routing"]


def test_the_ranker_s_lead_is_the_one_with_the_best_dev_hit_at_1_the_largest_on_a_tie(fake_index):
    """With a hand-made learned judge (its ranker prefers the passage holding the question's words), the lead
    chosen is the table's best, the largest of the best; without a learned judge nothing is chosen."""
    from eval.tune import RANKER_LEADS, calibrate_ranker
    from service.engine.judge.ranker_policy import RankerPolicy
    from tests.service.engine.test_learned_judge import judge

    plain = fake_answerer(fake_index, Calibration())
    asked = collect(plain, load_questions("dev"))
    assert calibrate_ranker(plain, asked) == (RankerPolicy(), {})
    policy, info = calibrate_ranker(plain.with_learned(judge()), asked)
    table = {float(k): v for k, v in info["ranker_hit@1_by_lead"].items()}
    assert set(table) == set(RANKER_LEADS)
    best = max(table.values())
    assert policy.min_lead == info["ranker_lead"] == max(lead for lead, v in table.items() if v == best)
    assert info["ranker_hit@1"] == best


def test_a_refusal_threshold_that_refuses_nothing_the_others_do_not_is_turned_off():
    """Hand-made key: the off-topic margin refuses two questions without an answer, the beyond-the-rules margin
    none beyond them, the focus one answerable question and nothing else. Only the off-topic margin stays."""
    import math

    from eval.tune import without_idle_thresholds
    from service.engine.decide.refusal import RefusalPolicy

    def key(policy):
        right = 2 if policy.off_topic_margin < math.inf else 0
        wrong = 1 if policy.min_focus > 0 else 0
        return wrong <= 1, right, -wrong

    chosen = without_idle_thresholds(RefusalPolicy(off_topic_margin=0.01, beyond_rules_margin=0.02, min_focus=0.3,
                                                   names=True), key)
    assert chosen == RefusalPolicy(off_topic_margin=0.01)
