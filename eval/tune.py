"""Choose the fusion and the abstention threshold by measurement on the dev split.

Each question is encoded and scored once; every candidate setting is then a reconfigured copy of the
answerer (the live one is never modified) that answers from those scores through the same
`Answerer.answer` code that serves players, and is scored by eval/metrics.py.
"""

import math
from dataclasses import dataclass, replace

from eval import metrics as m
from eval.gold import GoldQuestion
from eval.run import make_record
from indexer.errors import EvalError
from service.answer import Answerer, Query
from service.calibration import FEATURES, AbstentionPolicy, Calibration
from service.answer_set import SCORES, AnswerSetPolicy, conformal_gap
from service.mistakes import WarningPolicy
from service.refusal import RefusalPolicy
from service.retrieval import FusionConfig, Scores

DENSE_WEIGHTS = tuple(round(0.1 * i, 1) for i in range(11))
RRF_KS = (5, 10, 20, 40, 60)
COVERAGE_WEIGHTS = (0.0, 0.01, 0.02, 0.03, 0.05, 0.08)
K = 10
MODE = "hybrid"
QUALITY = ("hit@1", "mrr@10")
SET_COVERAGE = 0.95
SET_SIZES = (2, 3, 4, 5)
ACCEPT_ALL = AbstentionPolicy()
NO_REFUSAL = RefusalPolicy()


@dataclass(frozen=True)
class Asked:
    """A dev question with its query and scores, computed once."""

    gold: GoldQuestion
    query: Query
    scores: Scores


def fusion_candidates() -> list[FusionConfig]:
    return [FusionConfig("weighted", w) for w in DENSE_WEIGHTS] + [FusionConfig("rrf", rrf_k=k) for k in RRF_KS]


def check_dev_only(questions: list[GoldQuestion]) -> None:
    """Tuning on anything but dev would make the test figures meaningless."""
    others = sorted({q.split or "?" for q in questions} - {"dev"})
    if others:
        raise EvalError("le calibrage ne se fait que sur le split dev (le split test sert seulement à mesurer ; "
                        f"reçu : {', '.join(others)})")


def collect(answerer: Answerer, questions: list[GoldQuestion]) -> list[Asked]:
    return [Asked(q, Query(q.question, q.game, K, MODE), answerer.retriever.score(q.question)) for q in questions]


def records(answerer: Answerer, asked: list[Asked]) -> list[dict]:
    return [make_record(a.gold, MODE, answerer.answer(a.query, a.scores), 0.0) for a in asked]


def ranking_quality(answerer: Answerer, asked: list[Asked]) -> dict:
    """hit@1 and MRR@10 over the answerable questions, routing included."""
    return m.evaluate(records(answerer, asked), QUALITY)


def tune_fusion(answerer: Answerer, asked: list[Asked]) -> tuple[FusionConfig, list[dict]]:
    table = []
    for config in fusion_candidates():
        candidate = answerer.reconfigured(fusion=config, abstention=ACCEPT_ALL, refusal=NO_REFUSAL)
        table.append({"fusion": config, **ranking_quality(candidate, asked)})
    # Best hit@1, then MRR; on a tie the earlier (simpler, lower-weight) candidate stays.
    best = max(table, key=lambda row: (round(row["hit@1"], 6), round(row["mrr@10"], 6)))
    return best["fusion"], table


def calibrate_abstention(answerer: Answerer, asked: list[Asked]) -> tuple[AbstentionPolicy, dict]:
    """The policy that refuses the most unanswerable dev questions while refusing no answerable one."""
    accepting = answerer.reconfigured(abstention=ACCEPT_ALL)  # evidence is measured with nothing refused
    evidence = [(a.gold, accepting.find(a.query, a.scores).evidence) for a in asked]
    best, best_recall = ACCEPT_ALL, -1.0
    for feature in FEATURES:
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


def calibrate_refusal(answerer: Answerer, asked: list[Asked]) -> tuple[RefusalPolicy, dict]:
    """Each refusal signal at the loosest threshold that refuses no answerable dev question; the name
    signal only if it refuses none either."""
    plain = answerer.reconfigured(refusal=NO_REFUSAL)
    findings = [(a.gold, plain.find(a.query, a.scores)) for a in asked]
    kept = [f.signals for q, f in findings if q.answerable]
    routed = [f.signals for q, f in findings if q.answerable and f.route.game is not None]
    policy = RefusalPolicy(
        off_topic_margin=_loosest([s.off_topic for s in kept], True),
        min_coverage=max(0.0, _loosest([s.coverage for s in kept], False)),
        names=not any(s.unknown_names for s in kept),
        beyond_rules_margin=_loosest([s.beyond_rules for s in routed], True),
        min_focus=max(0.0, _loosest([s.focus for s in routed], False)),
    )
    refused = {kind: 0 for kind in ("off_topic", "other_game", "not_in_rules")}
    totals = dict.fromkeys(refused, 0)
    for q, f in findings:
        if q.refusal:
            totals[q.refusal] += 1
            refused[q.refusal] += policy.reason(f.signals, f.route.game is not None) is not None
    return policy, {f"refusal_{k}": round(refused[k] / totals[k], 4) if totals[k] else None for k in refused}


def calibrate_answer_set(answerer: Answerer, asked: list[Asked], coverage: float = SET_COVERAGE
                         ) -> tuple[AnswerSetPolicy, dict]:
    """Split-conformal: the gap that holds a right passage for `coverage` of the answered dev questions,
    for each score and maximum size; the smallest mean set among those that reach the coverage."""
    answered = []
    for a in asked:
        if not a.gold.answerable:
            continue
        found = answerer.find(a.query, a.scores)
        if answerer.refusal_reason(found) is None:
            answered.append((a.gold, found.hits))
    candidates = []
    for score in SCORES:
        for size in SET_SIZES:
            probe = AnswerSetPolicy(0.0, size, score)
            gaps = []
            for q, hits in answered:
                top = probe.value(hits[0])
                right = [top - probe.value(h) for h in hits[:size] if q.is_relevant(h.passage.game, h.passage.text)]
                gaps.append(right[0] if right else math.inf)
            gap = conformal_gap(gaps, coverage)
            # An unreachable coverage (too many questions with no right passage in reach) takes them all.
            policy = AnswerSetPolicy(round(gap, 4) if math.isfinite(gap) else 1e9, size, score)
            sets = [(q, policy.select(hits)) for q, hits in answered]
            covered = sum(any(q.is_relevant(h.passage.game, h.passage.text) for h in s) for q, s in sets)
            mean_size = sum(len(s) for _, s in sets) / max(1, len(sets))
            candidates.append((policy, covered / max(1, len(sets)), mean_size))
    # The smallest sets among those that reach the coverage; else the best coverage there is.
    reaching = [c for c in candidates if c[1] >= coverage]
    policy, cov, mean_size = min(reaching, key=lambda c: c[2]) if reaching else max(candidates, key=lambda c: (c[1], -c[2]))
    return policy, {"set_coverage": round(cov, 4), "set_size": round(mean_size, 3)}


def calibrate_warning(answerer: Answerer, asked: list[Asked]) -> tuple[WarningPolicy, dict]:
    """The lowest cosine at which a common-mistake passage shown beside an answer is, on dev, as often
    right (it holds a gold span of the question) as not; no warning if it never is."""
    scored = []
    for a in asked:
        found = answerer.find(a.query, a.scores)
        if not a.gold.answerable or answerer.refusal_reason(found) is not None:
            continue
        shown = {h.passage.id for h in answerer.calibration.answer_set.select(found.hits)}
        best = answerer.mistakes.best(answerer.retriever.data.vectors, a.scores.vector, found.route.game, shown)
        if best is not None:
            scored.append((best[1], a.gold.is_relevant(best[0].game, best[0].text)))
    threshold, shown_right = math.inf, (0, 0)
    for cosine, _ in sorted(scored, reverse=True):
        above = [right for c, right in scored if c >= cosine]
        if 2 * sum(above) >= len(above):
            threshold, shown_right = round(cosine - 1e-4, 4), (len(above), sum(above))
    return WarningPolicy(threshold), {"warnings_shown": shown_right[0], "warnings_right": shown_right[1]}


def calibrate(answerer: Answerer, dev: list[GoldQuestion]) -> tuple[Calibration, dict]:
    check_dev_only(dev)
    asked = collect(answerer, dev)
    fusion, table = tune_fusion(answerer, asked)
    policy, abstention = calibrate_abstention(answerer.reconfigured(fusion=fusion, refusal=NO_REFUSAL), asked)
    tuned = answerer.reconfigured(fusion=fusion, abstention=policy)
    refusal, refusals = calibrate_refusal(tuned, asked)
    tuned = tuned.reconfigured(refusal=refusal)
    answer_set, sets = calibrate_answer_set(tuned, asked)
    tuned = tuned.reconfigured(answer_set=answer_set)
    warning, warnings = calibrate_warning(tuned, asked)
    tuned = tuned.reconfigured(warning=warning)
    quality = m.evaluate(records(tuned, asked), (*QUALITY, "false_refusal", "abstain_recall"))
    measured = {**{k: round(v, 4) for k, v in quality.items()}, **refusals, **sets, **warnings,
                "questions": len(dev)}
    chosen = Calibration(fusion, policy, refusal, answer_set, warning)
    return chosen, {"measured": measured, "fusion_table": table, "abstention": abstention}
