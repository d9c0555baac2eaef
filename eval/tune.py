"""Choose the fusion and the abstention threshold by measurement on the dev split.

Each question is encoded and scored once; every candidate setting then only re-ranks those scores,
through the same Answerer.route / Retriever.rank code that serves answers.
"""

import math
from dataclasses import replace

from eval.gold import GoldQuestion
from service.answer import Answerer
from service.calibration import FEATURES, AbstentionPolicy, Calibration
from service.retrieval import FusionConfig

DENSE_WEIGHTS = tuple(round(0.1 * i, 1) for i in range(11))
RRF_KS = (5, 10, 20, 40, 60)
COVERAGE_WEIGHTS = (0.0, 0.01, 0.02, 0.03, 0.05, 0.08)
K = 10


def fusion_candidates() -> list[FusionConfig]:
    return [FusionConfig("weighted", w) for w in DENSE_WEIGHTS] + [FusionConfig("rrf", rrf_k=k) for k in RRF_KS]


def _collect(answerer: Answerer, questions: list[GoldQuestion]):
    return [(q, answerer.retriever.score(q.question)) for q in questions]


def _ranked(answerer: Answerer, q: GoldQuestion, scores):
    route = answerer.route(q.question, q.game, scores, "hybrid")
    return route, answerer.retriever.rank(scores, route.game, K, "hybrid")


def ranking_quality(answerer: Answerer, collected) -> dict:
    """hit@1 and MRR@10 over the answerable questions, routing included."""
    hits1, rr = [], []
    for q, scores in collected:
        if not q.answerable:
            continue
        _, hits = _ranked(answerer, q, scores)
        relevant = [q.is_relevant(h.passage.game, h.passage.text) for h in hits]
        first = next((i for i, r in enumerate(relevant) if r), None)
        hits1.append(first == 0)
        rr.append(0.0 if first is None else 1.0 / (first + 1))
    return {"hit@1": sum(hits1) / len(hits1), "mrr@10": sum(rr) / len(rr)}


def tune_fusion(answerer: Answerer, collected) -> tuple[FusionConfig, list[dict]]:
    table = []
    for config in fusion_candidates():
        answerer.retriever.fusion = config
        table.append({"fusion": config, **ranking_quality(answerer, collected)})
    # Best hit@1, then MRR; on a tie the earlier (simpler, lower-weight) candidate stays.
    best = max(table, key=lambda row: (round(row["hit@1"], 6), round(row["mrr@10"], 6)))
    return best["fusion"], table


def _confidences(answerer: Answerer, collected) -> list[tuple[GoldQuestion, object]]:
    out = []
    for q, scores in collected:
        route, hits = _ranked(answerer, q, scores)
        evidence = answerer.retriever.evidence(scores, hits[0]) if hits and route.game else None
        out.append((q, evidence))
    return out


def calibrate_abstention(answerer: Answerer, collected) -> tuple[AbstentionPolicy, dict]:
    """The policy that refuses the most unanswerable dev questions while refusing no answerable one."""
    answerer.policy = AbstentionPolicy()  # accept everything while measuring
    evidence = _confidences(answerer, collected)
    best, best_recall = AbstentionPolicy(), -1.0
    for feature in FEATURES:
        for weight in COVERAGE_WEIGHTS:
            policy = AbstentionPolicy(-math.inf, feature, weight)
            answerable = [policy.confidence(e) for q, e in evidence if q.answerable and e is not None]
            threshold = min(answerable)
            policy = replace(policy, threshold=round(threshold - 1e-4, 4))
            refused = [e is None or not policy.accepts(e) for q, e in evidence if not q.answerable]
            recall = sum(refused) / len(refused) if refused else 0.0
            if recall > best_recall + 1e-9:
                best, best_recall = policy, recall
    return best, {"abstain_recall": best_recall, "false_refusal": 0.0}


def calibrate(answerer: Answerer, dev: list[GoldQuestion]) -> tuple[Calibration, dict]:
    collected = _collect(answerer, dev)
    answerer.policy = AbstentionPolicy()
    fusion, table = tune_fusion(answerer, collected)
    answerer.retriever.fusion = fusion
    policy, abstention = calibrate_abstention(answerer, collected)
    answerer.policy = policy
    quality = ranking_quality(answerer, collected)
    measured = {**{k: round(v, 4) for k, v in quality.items()}, **abstention, "questions": len(dev)}
    return Calibration(fusion, policy), {"measured": measured, "fusion_table": table}
