"""Choose every part of the calibration by measurement on the dev split.

Each question is read and retrieved once per fusion (its encodings kept: eval/replay.py's `Remembered`); every
candidate setting is then a reconfigured copy of the answerer (the live one is never modified) that replays the
later stages (routing, judge, decision, composition) from that `Retrieved` value through the same code that
serves players (eval/replay.py), and is scored by eval/metrics.py.
"""

import itertools
import math
from collections.abc import Callable
from dataclasses import replace

from eval import metrics as m
from eval.gold import GoldQuestion
from eval.replay import (K, MODE, QUALITY, Remembered, Replayable, check_dev_only, collect, decided, ranking_quality,
                         records)
from service.engine.answerer import Answerer
from service.engine.calibration import PARTS, Calibration
from service.engine.compose.answer_set import SCORES, AnswerSetPolicy, conformal_gap
from service.engine.compose.common_mistake import CommonMistakePolicy, nearest
from service.engine.decide.abstention import EVIDENCE_FIELDS, AbstentionPolicy
from service.engine.decide.answerability import AnswerabilityPolicy
from service.engine.decide.confidence import ConfidencePolicy
from service.engine.decide.decision import refusal_reason
from service.engine.decide.refusal import RefusalPolicy
from service.engine.judge.ranker_policy import RankerPolicy
from service.engine.retrieval.protocol import FusionConfig
from service.engine.routing.router import RoutingPolicy

DENSE_WEIGHTS = tuple(round(0.1 * i, 1) for i in range(11))
RRF_KS = (5, 10, 20, 40, 60)
COVERAGE_WEIGHTS = (0.0, 0.01, 0.02, 0.03, 0.05, 0.08)
# Answer-set coverage targets, best first (the issue asks 0.95), and the longest mean set still an answer.
SET_COVERAGES = (0.95, 0.9, 0.85, 0.8, 0.75, 0.7)
SET_MAX_MEAN_SIZE = 2.0
WARNING_PRECISION = 0.75
# What is shown as sure must be right 0.9 of the time. A dev precision alone is too thin for that (9 right
# out of 9 says little of the next 9), so the one-sided 90 % Wilson lower bound of the dev precision must
# reach it: at least 15 answers above the threshold, all right, or more with few errors.
CONFIDENCE_PRECISION = 0.9
CONFIDENCE_Z = 1.2816
# Share of answerable dev questions the refusal signals may refuse (the issue allows 2 % on test).
REFUSAL_BUDGET = 0.01
SET_SIZES = (2, 3, 4, 5)
# Share of answerable dev questions the learned judge may refuse (the issue allows 3 % on test and new games).
JUDGE_REFUSAL_BUDGET = 0.015
# The leads tried for retrieval's first passage against the learned ranker, in its score units (inf: never moved).
RANKER_LEADS = (0.0, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, math.inf)
ACCEPT_ALL = AbstentionPolicy()
NO_REFUSAL = RefusalPolicy()


def fusion_candidates() -> list[FusionConfig]:
    return [FusionConfig("weighted", w) for w in DENSE_WEIGHTS] + [FusionConfig("rrf", rrf_k=k) for k in RRF_KS]


def tune_fusion(answerer: Answerer, replayable: list[Replayable]) -> tuple[FusionConfig, list[dict]]:
    table = []
    for config in fusion_candidates():
        candidate = answerer.reconfigured(fusion=config, abstention=ACCEPT_ALL, refusal=NO_REFUSAL)
        table.append({"fusion": config, **ranking_quality(candidate, collect(candidate, [a.gold for a in replayable]))})
    # Best hit@1, then MRR; on a tie the earlier (simpler, lower-weight) candidate stays.
    best = max(table, key=lambda row: (round(row["hit@1"], 6), round(row["mrr@10"], 6)))
    return best["fusion"], table


# The lexical retriever's game wins a disagreement when its words match this many times better (router.py); the
# default first: another value replaces it only when it routes more dev questions right.
LEXICAL_DOMINANCES = (2.0, 1.25, 1.5, 3.0, 5.0, math.inf)


def calibrate_routing(answerer: Answerer, replayable: list[Replayable]) -> tuple[RoutingPolicy, dict]:
    """The routing policy that routes the most game-less dev questions to their game (then the best hit@1),
    nothing refused while it is measured. The ambiguity margin stays off: a choice offered counts as no route."""
    def quality(policy: RoutingPolicy) -> tuple[float, float]:
        candidate = answerer.reconfigured(routing=policy, abstention=ACCEPT_ALL, refusal=NO_REFUSAL)
        figures = m.evaluate(records(candidate, replayable), ("routing", "hit@1"))
        return round(figures["routing"] or 0.0, 6), round(figures["hit@1"] or 0.0, 6)

    scored = [(quality(p), p) for p in (replace(answerer.calibration.routing, lexical_dominance=d)
                                        for d in LEXICAL_DOMINANCES)]
    best_quality, best = scored[0]
    for q, policy in scored[1:]:
        if q > best_quality:
            best_quality, best = q, policy
    return best, {"routing": best_quality[0]}


def calibrate_abstention(answerer: Answerer, replayable: list[Replayable]) -> tuple[AbstentionPolicy, dict]:
    """The policy that refuses the most unanswerable dev questions while refusing no answerable one."""
    # Evidence is measured before any decision: nothing refused, no route dropped.
    evidence = [(a.gold, answerer.find(a.reading, a.retrieved).evidence) for a in replayable]
    best, best_recall = ACCEPT_ALL, -1.0
    for feature in EVIDENCE_FIELDS:
        for weight in COVERAGE_WEIGHTS:
            policy = AbstentionPolicy(-math.inf, feature, weight)
            answerable = [policy.confidence(e) for q, e in evidence if q.answerable and e is not None]
            policy = replace(policy, threshold=round(min(answerable) - 1e-4, 4))
            refused = [e is None or not policy.accepts(e) for q, e in evidence if not q.answerable]
            recall = sum(refused) / len(refused) if refused else 0.0
            if recall > best_recall + 1e-9:
                best, best_recall = policy, recall
    return best, {"abstain_recall": best_recall, "false_refusal": 0.0}


def _loosest(values_to_keep: list[float], refuse_at_or_above: bool) -> float:
    """The threshold that refuses as much as possible while keeping every value in `values_to_keep`:
    just above their maximum (refuse when value >= threshold) or just below their minimum (refuse when
    value < threshold)."""
    if not values_to_keep:
        return math.inf if refuse_at_or_above else 0.0
    return max(values_to_keep) + 1e-4 if refuse_at_or_above else min(values_to_keep) - 1e-4


def _candidates(values: list[float], refuse_at_or_above: bool, budget: int) -> list[float]:
    """Thresholds that leave 0, 1, ... `budget` of `values` refused (the most extreme ones first)."""
    ordered = sorted(values, reverse=refuse_at_or_above)
    return sorted({_loosest(ordered[j:], refuse_at_or_above) for j in range(min(budget, len(ordered)) + 1)})


# Each refusal threshold's value when off (RefusalPolicy's defaults).
REFUSAL_OFF = {"off_topic_margin": math.inf, "min_coverage": 0.0, "names": False, "beyond_rules_margin": math.inf,
               "min_focus": 0.0}


def without_idle_thresholds(policy: RefusalPolicy, key: Callable[[RefusalPolicy], tuple]) -> RefusalPolicy:
    """The policy with each threshold turned off, in turn, where that leaves its key (within the budget, dev
    questions without an answer refused, answerable ones refused) no worse. A threshold that refuses no dev
    question the others do not sits where dev cannot see: the beyond-the-rules margin so placed refused, on the
    training and validation games, eight answerable questions for each one without an answer
    (docs/eval/JUDGE.md)."""
    best = key(policy)
    for name, off in REFUSAL_OFF.items():
        candidate = replace(policy, **{name: off})
        scored = key(candidate)
        if scored >= best:
            policy, best = candidate, scored
    return policy


def calibrate_refusal(answerer: Answerer, replayable: list[Replayable]) -> tuple[RefusalPolicy, dict]:
    """The refusal thresholds that refuse the most unanswerable dev questions (beyond those the abstention
    already refuses) while refusing at most REFUSAL_BUDGET of the answerable ones."""
    plain = answerer.reconfigured(refusal=NO_REFUSAL)
    findings = [(a.gold, decided(plain, a)) for a in replayable]
    weak = [d.findings.evidence is None or not plain.calibration.abstention.accepts(d.findings.evidence)
            for _, d in findings]
    kept = [d.signals for q, d in findings if q.answerable]
    budget = int(REFUSAL_BUDGET * len(kept))
    grid = itertools.product(
        _candidates([s.off_topic for s in kept], True, budget),
        [max(0.0, c) for c in _candidates([s.coverage for s in kept], False, budget)],
        (False, True),
        _candidates([s.beyond_rules for s in kept], True, budget),
        [max(0.0, c) for c in _candidates([s.focus for s in kept], False, budget)],
    )

    def key(policy: RefusalPolicy) -> tuple:
        reasons = [policy.reason(d.signals, d.findings.route.game is not None) for _, d in findings]
        wrong = sum(r is not None for (q, _), r in zip(findings, reasons) if q.answerable)
        right = sum(r is not None or w for (q, _), r, w in zip(findings, reasons, weak) if not q.answerable)
        return wrong <= budget, right, -wrong

    best, best_key = NO_REFUSAL, None
    for values in grid:
        policy = RefusalPolicy(*values)
        scored = key(policy)
        if best_key is None or scored > best_key:
            best, best_key = policy, scored
    best = without_idle_thresholds(best, key)
    best_key = key(best)
    refused = {kind: [0, 0] for kind in ("off_topic", "other_game", "not_in_rules")}
    for (q, f), w in zip(findings, weak):
        if q.refusal:
            refused[q.refusal][0] += best.reason(f.signals, f.findings.route.game is not None) is not None or w
            refused[q.refusal][1] += 1
    figures = {f"refusal_{k}": round(n / total, 4) if total else None for k, (n, total) in refused.items()}
    return best, {**figures, "refused_by_signals": -best_key[2]}


def _answered(answerer: Answerer, replayable: list[Replayable]):
    """(question, findings as decided on) of the answerable dev questions the answerer's passages answer. A card
    question counts when no reason refuses it before its card's outcome (decide/decision.py's refusal_reason), as
    the answer set and the common mistake were always measured: whether the card has the field asked leaves it in
    or out of neither."""
    for a in replayable:
        if a.gold.answerable:
            decision = decided(answerer, a)
            findings = decision.findings
            reason = decision.reason
            if findings.card_question is not None:
                reason = refusal_reason(findings, decision.signals, answerer.calibration)
            if reason is None:
                yield a, findings


def calibrate_answer_set(answerer: Answerer, replayable: list[Replayable]) -> tuple[AnswerSetPolicy, dict]:
    """Split-conformal answer sets: for each score and maximum size, the gap that holds a right passage for
    a target share of the answered dev questions. The target is the highest of SET_COVERAGES that a set of
    at most SET_MAX_MEAN_SIZE passages on average reaches (a longer list is no longer an answer); the
    smallest sets among those that reach it."""
    answered = [(a.gold, found.hits) for a, found in _answered(answerer, replayable)]
    if not answered:
        return AnswerSetPolicy(), {"set_coverage": None, "set_size": None}

    def measure(policy: AnswerSetPolicy) -> tuple[float, float]:
        sets = [(q, policy.select(hits)) for q, hits in answered]
        covered = sum(any(q.is_relevant(h.passage.game, h.passage.text) for h in chosen) for q, chosen in sets)
        return covered / len(sets), sum(len(chosen) for _, chosen in sets) / len(sets)

    for target in SET_COVERAGES:
        candidates = []
        for score in SCORES:
            for size in SET_SIZES:
                probe = AnswerSetPolicy(0.0, size, score)
                gaps = []
                for q, hits in answered:
                    top = probe.value(hits[0])
                    right = [top - probe.value(h) for h in hits[:size] if q.is_relevant(h.passage.game, h.passage.text)]
                    gaps.append(right[0] if right else math.inf)
                gap = conformal_gap(gaps, target)
                if math.isfinite(gap):
                    policy = AnswerSetPolicy(round(gap + 1e-4, 4), size, score)
                    candidates.append((policy, *measure(policy)))
        usable = [c for c in candidates if c[1] >= target and c[2] <= SET_MAX_MEAN_SIZE]
        if usable:
            policy, cov, size = min(usable, key=lambda c: (c[2], -c[1]))
            return policy, {"set_target": target, "set_coverage": round(cov, 4), "set_size": round(size, 3)}
    cov, size = measure(AnswerSetPolicy())
    return AnswerSetPolicy(), {"set_target": None, "set_coverage": round(cov, 4), "set_size": round(size, 3)}


def _mistake_is_right(q: GoldQuestion, passage) -> bool:
    """A common mistake bears on the question when it holds a gold span or sits on a page of the answer."""
    return q.is_relevant(passage.game, passage.text) or bool(set(passage.pages) & set(q.gold_pages))


def calibrate_common_mistake(answerer: Answerer, replayable: list[Replayable]) -> tuple[CommonMistakePolicy, dict]:
    """The lowest cosine at which the common mistakes shown beside dev answers are right at least
    WARNING_PRECISION of the time; no warning if no threshold is."""
    scored = []
    for a, found in _answered(answerer, replayable):
        shown = {h.passage.id for h in answerer.calibration.answer_set.select(found.hits)}
        best = nearest(found.game.mistakes, shown)
        if best is not None:
            scored.append((best[1], _mistake_is_right(a.gold, best[0])))
    threshold, shown_right = math.inf, (0, 0)
    for cosine, _ in sorted(scored, reverse=True):
        above = [right for c, right in scored if c >= cosine]
        if sum(above) >= WARNING_PRECISION * len(above):
            threshold, shown_right = round(cosine - 1e-4, 4), (len(above), sum(above))
    return CommonMistakePolicy(threshold), {"warnings_shown": shown_right[0], "warnings_right": shown_right[1]}


def wilson_lower_bound(right: int, total: int, z: float = CONFIDENCE_Z) -> float:
    """The lower end of the Wilson score interval of a proportion (one-sided at z)."""
    if total == 0:
        return 0.0
    p = right / total
    centre = p + z * z / (2 * total)
    spread = z * math.sqrt(p * (1 - p) / total + z * z / (4 * total * total))
    return (centre - spread) / (1 + z * z / total)


def calibrate_confidence(answerer: Answerer, replayable: list[Replayable]) -> tuple[ConfidencePolicy, dict]:
    """The smallest lead of the first passage's fused score over the second's at which the dev answers
    shown as sure are right at least CONFIDENCE_PRECISION of the time, by the Wilson lower bound (answers
    to questions the rules do not answer count as wrong); none is sure when no lead reaches it."""
    answered = []
    for a in replayable:
        decision = decided(answerer, a)
        found = decision.findings
        if decision.reason is None and found.hits and found.card_question is None:
            top = found.hits[0].passage
            answered.append((ConfidencePolicy.gap(found.hits), a.gold.is_relevant(top.game, top.text)))
    best, shown = math.inf, (0, 0)
    for gap, _ in sorted(answered, reverse=True):
        above = [right for g, right in answered if g >= gap]
        if wilson_lower_bound(sum(above), len(above)) >= CONFIDENCE_PRECISION:
            best, shown = round(gap - 1e-4, 4), (len(above), sum(above))
    return (ConfidencePolicy(min_gap=best),
            {"sure_shown": shown[0], "sure_right": shown[1], "answered": len(answered)})


def with_learned_depth(answerer: Answerer, replayable: list[Replayable],
                       **toggles) -> tuple[Answerer, list[Replayable]]:
    """The answerer with some of the learned judge's parts on (its Toggles), and the questions retrieved again to
    the depth that judge reads (retrieval stops at what is shown when it is off)."""
    answerer = answerer.with_toggles(**toggles)
    if answerer.judge.depth(K) == K:
        return answerer, replayable
    return answerer, collect(answerer, [a.gold for a in replayable])


def calibrate_ranker(answerer: Answerer, replayable: list[Replayable]) -> tuple[RankerPolicy, dict]:
    """The lead retrieval's first passage keeps against the learned ranker (judge/ranker_policy.py): the one of
    RANKER_LEADS with the best dev hit@1 when the ranker orders, the largest on a tie (retrieval's order wherever
    the ranker brings nothing). Nothing without a learned judge."""
    if answerer.learned is None:
        return RankerPolicy(), {}
    answerer, replayable = with_learned_depth(answerer, replayable, ranker=True)
    table = {lead: ranking_quality(answerer.reconfigured(ranker=RankerPolicy(lead)), replayable)["hit@1"]
             for lead in RANKER_LEADS}
    best = max(table, key=lambda lead: (round(table[lead], 9), lead))
    return RankerPolicy(best), {"ranker_lead": best, "ranker_hit@1": round(table[best], 4),
                                "ranker_hit@1_by_lead": {f"{k:g}": round(v, 4) for k, v in table.items()}}


def calibrate_answerability(answerer: Answerer, replayable: list[Replayable]) -> tuple[AnswerabilityPolicy, dict]:
    """The learned judge's thresholds: refuse below the probability (one of the first three answers) that refuses
    the most dev questions without an answer while refusing at most JUDGE_REFUSAL_BUDGET of the answerable ones;
    sure from the lowest probability (the first answers) at which the answers shown as sure are right
    CONFIDENCE_PRECISION of the time by the Wilson lower bound. Nothing without a learned judge."""
    if answerer.learned is None:
        return AnswerabilityPolicy(), {}
    # Measured with the judge's probabilities on (they decide nothing until its thresholds are set).
    answerer, replayable = with_learned_depth(answerer, replayable, answerability=True)
    plain = answerer.reconfigured(answerability=AnswerabilityPolicy())
    judged = [(a.gold, d) for a in replayable for d in [decided(plain, a)]
              if d.reason is None and d.findings.judgement is not None and d.findings.card_question is None]
    budget = int(JUDGE_REFUSAL_BUDGET * sum(a.gold.answerable for a in replayable))
    kept = sorted(d.findings.judgement.any_top for q, d in judged if q.answerable)
    refuse_below = kept[budget] if budget < len(kept) else -math.inf
    refused = [q for q, d in judged if d.findings.judgement.any_top < refuse_below]
    if not any(not q.answerable for q in refused):
        refuse_below, refused = -math.inf, []  # refusing answerable questions only is no threshold
    answered = [(d.findings.judgement.first,
                 q.is_relevant(d.findings.hits[0].passage.game, d.findings.hits[0].passage.text))
                for q, d in judged if d.findings.judgement.any_top >= refuse_below]
    sure_above, shown = math.inf, (0, 0)
    for p, _ in sorted(answered, reverse=True):
        above = [right for value, right in answered if value >= p]
        if wilson_lower_bound(sum(above), len(above)) >= CONFIDENCE_PRECISION:
            sure_above, shown = round(p - 1e-6, 6), (len(above), sum(above))
    policy = AnswerabilityPolicy(round(refuse_below, 6) if math.isfinite(refuse_below) else -math.inf, sure_above)
    return policy, {"judge_refused_unanswerable": sum(not q.answerable for q in refused),
                    "judge_refused_answerable": sum(q.answerable for q in refused),
                    "judge_sure_shown": shown[0], "judge_sure_right": shown[1]}


def calibrate(answerer: Answerer, dev: list[GoldQuestion]) -> tuple[Calibration, dict]:
    check_dev_only(dev)
    answerer = answerer.with_embedder(Remembered(answerer.retriever.embedder))
    fusion, table = tune_fusion(answerer, collect(answerer, dev))
    answerer = answerer.reconfigured(fusion=fusion)
    replayable = collect(answerer, dev)
    routing, routed = calibrate_routing(answerer, replayable)
    ranker, ranked = calibrate_ranker(answerer.reconfigured(routing=routing), replayable)
    answerer = answerer.reconfigured(ranker=ranker)
    policy, abstention = calibrate_abstention(answerer.reconfigured(fusion=fusion, routing=routing,
                                                                    refusal=NO_REFUSAL), replayable)
    tuned = answerer.reconfigured(fusion=fusion, routing=routing, abstention=policy)
    refusal, refusals = calibrate_refusal(tuned, replayable)
    tuned = tuned.reconfigured(refusal=refusal)
    answer_set, sets = calibrate_answer_set(tuned, replayable)
    tuned = tuned.reconfigured(answer_set=answer_set)
    common_mistake, warnings = calibrate_common_mistake(tuned, replayable)
    tuned = tuned.reconfigured(common_mistake=common_mistake)
    confidence, sure = calibrate_confidence(tuned, replayable)
    tuned = tuned.reconfigured(confidence=confidence)
    answerability, judged = calibrate_answerability(tuned, replayable)
    tuned = tuned.reconfigured(answerability=answerability)
    quality = m.evaluate(records(tuned, replayable), (*QUALITY, "false_refusal", "abstain_recall", "one_tap"))
    measured = {**{k: round(v, 4) for k, v in quality.items()}, **refusals, **sets, **warnings, **sure, **routed,
                **judged, **{k: v for k, v in ranked.items() if k != "ranker_hit@1_by_lead"},
                "questions": len(dev)}
    chosen = replace(tuned.calibration, source="calibrated")
    return chosen, {"measured": measured, "fusion_table": table, "abstention": abstention,
                    "ranker_table": ranked.get("ranker_hit@1_by_lead", {})}


# A new calibration replaces the saved one only when it helps on dev by a paired test: a default earns its
# place (the same rule as the adaptation, docs/eval/ADAPTATION.md).
ADOPT_MAX_P = 0.05
ADOPT_METRICS = ("hit@1", "mrr@10", "outcome")


def adoption(current: Answerer, chosen: Calibration, dev: list[GoldQuestion]) -> dict:
    """The paired tests on dev (eval/run.py: ranx on hit@1 and MRR@10, McNemar on each question's outcome)
    between the saved calibration (`current`'s) and `chosen`. Adopted when `chosen` is significantly better
    on one of them and significantly worse on none."""
    from eval.run import run_eval

    check_dev_only(dev)
    parts = {name: getattr(chosen, name) for name in PARTS}
    result = run_eval(current, dev, modes=(MODE,), variants={"calibrated": current.reconfigured(**parts)})
    pairs = [p for p in result["significance"]["pairs"] if p["metric"] in ADOPT_METRICS]
    better = [p["metric"] for p in pairs if p["p_value"] <= ADOPT_MAX_P and p["score_b"] > p["score_a"]]
    worse = [p["metric"] for p in pairs if p["p_value"] <= ADOPT_MAX_P and p["score_b"] < p["score_a"]]
    return {"adopt": bool(better) and not worse, "better": better, "worse": worse,
            "pairs": [{k: p[k] for k in ("metric", "score_a", "score_b", "p_value")} for p in pairs]}
