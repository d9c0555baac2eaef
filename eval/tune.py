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
from service.retrieval import FusionConfig, Scores

DENSE_WEIGHTS = tuple(round(0.1 * i, 1) for i in range(11))
RRF_KS = (5, 10, 20, 40, 60)
COVERAGE_WEIGHTS = (0.0, 0.01, 0.02, 0.03, 0.05, 0.08)
K = 10
MODE = "hybrid"
QUALITY = ("hit@1", "mrr@10")
ACCEPT_ALL = AbstentionPolicy()


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
        candidate = answerer.reconfigured(fusion=config, policy=ACCEPT_ALL)
        table.append({"fusion": config, **ranking_quality(candidate, asked)})
    # Best hit@1, then MRR; on a tie the earlier (simpler, lower-weight) candidate stays.
    best = max(table, key=lambda row: (round(row["hit@1"], 6), round(row["mrr@10"], 6)))
    return best["fusion"], table


def calibrate_abstention(answerer: Answerer, asked: list[Asked]) -> tuple[AbstentionPolicy, dict]:
    """The policy that refuses the most unanswerable dev questions while refusing no answerable one."""
    accepting = answerer.reconfigured(policy=ACCEPT_ALL)  # evidence is measured with nothing refused
    evidence = [(a.gold, accepting.evidence(a.query, a.scores)) for a in asked]
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


def calibrate(answerer: Answerer, dev: list[GoldQuestion]) -> tuple[Calibration, dict]:
    check_dev_only(dev)
    asked = collect(answerer, dev)
    fusion, table = tune_fusion(answerer, asked)
    policy, abstention = calibrate_abstention(answerer.reconfigured(fusion=fusion), asked)
    quality = ranking_quality(answerer.reconfigured(fusion=fusion, policy=policy), asked)
    measured = {**{k: round(v, 4) for k, v in quality.items()}, **abstention, "questions": len(dev)}
    return Calibration(fusion, policy), {"measured": measured, "fusion_table": table}
