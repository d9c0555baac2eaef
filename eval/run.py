"""Run the gold set through an answerer in each retrieval mode and score it.

The answerer is anything with `ask(question, game=None, k=5, mode="hybrid") -> service.engine.answer.Answer`;
tests pass a small fake, the CLI passes the real one.
"""

import math
import time
import warnings
from collections.abc import Iterable, Sequence

from eval import metrics as m
from eval.grouping import OFF_TOPIC, by_game, by_tag, counts, group_key
from eval.record import QuestionRecord
from service.engine.limits import MODES
from eval.gold import GoldQuestion
from service.engine.answer import Answer

# Paired tests run on these per-question scores; names are ours, values ranx's.
SIGNIFICANCE_METRICS = {"mrr@10": "mrr@10", "hit@1": "hit_rate@1"}
SIGNIFICANCE_TEST = "fisher"
SIGNIFICANCE_MAX_P = 0.05
# ranx needs at least one relevant document per query; this id is never returned, so it changes
# neither hit rate nor MRR (both depend only on where the first returned relevant passage sits).
_GOLD_SENTINEL = "__gold__"
_EMPTY_SENTINEL = "__aucun_passage__"


def make_record(question: GoldQuestion, mode: str, result: Answer, latency_ms: float) -> QuestionRecord:
    """One row of the metrics' input (eval/record.py documents its keys)."""
    return {
        "id": question.id,
        "split": question.split,
        "mode": mode,
        "question": question.question,
        "lang": question.lang,
        "game": question.game,
        "gold_game": question.gold_game,
        "answerable": question.answerable,
        "gold_pages": list(question.gold_pages),
        "found": result.found,
        "detected_game": result.game.id if result.game else None,
        "answer_passage_id": result.answer.passage_id if result.answer else None,
        "passage_ids": [p.id for p in result.passages],
        "scores": [p.score for p in result.passages],
        "answer_text": result.answer.text if result.answer else None,
        "warning_id": result.warning.passage_id if result.warning else None,
        "choice_ids": [c.passage_id for c in result.choices],
        "pages": [list(p.pages) for p in result.passages],
        "relevant": [question.is_relevant(p.game, p.text) for p in result.passages],
        "answer_set_relevant": _answer_set_relevance(question, result),
        "refusal": result.refusal.reason if result.refusal else None,
        "gold_refusal": question.refusal,
        "sure": result.sure,
        "choices_relevant": _choices_relevance(question, result),
        "tags": list(question.tags),
        "latency_ms": latency_ms,
    }


def _choices_relevance(question: GoldQuestion, result: Answer) -> list[bool] | None:
    if not result.choices:
        return None
    by_id = {p.id: p for p in result.passages}
    return [question.is_relevant(by_id[c.passage_id].game, by_id[c.passage_id].text) for c in result.choices
            if c.passage_id in by_id]


def _answer_set_relevance(question: GoldQuestion, result: Answer) -> list[bool] | None:
    if result.answer is None:
        return None
    by_id = {p.id: p for p in result.passages}
    return [question.is_relevant(by_id[i].game, by_id[i].text) for i in result.answer.passage_ids if i in by_id]


def ask_all(answerer, questions: Sequence[GoldQuestion], mode: str, k: int) -> list[dict]:
    """Each question asked once; a follow-up (`previous`) is asked as the client would, with the previous
    turn: that question and the game its answer was about."""
    from service.engine.question import Turn

    records, turns = [], {}
    for q in questions:
        extra = {}
        if q.previous is not None:
            if q.previous not in turns:
                raise ValueError(f"{q.id} : la question précédente {q.previous} n'a pas été posée avant")
            extra["previous"] = turns[q.previous]
        start = time.perf_counter()
        result = answerer.ask(q.question, game=q.game, k=k, mode=mode, **extra)
        elapsed_ms = (time.perf_counter() - start) * 1000
        turns[q.id] = Turn(q.question, result.game.id if result.game else q.game)
        records.append(make_record(q, mode, result, elapsed_ms))
    return records


def split_label(questions: Iterable[GoldQuestion]) -> str | None:
    splits = sorted({q.split for q in questions if q.split})
    return "+".join(splits) if splits else None


def _qrels_and_runs(records_by_mode: dict[str, list[dict]]):
    """ranx inputs over answerable questions, rank order kept by strictly decreasing scores."""
    qrels: dict[str, dict[str, int]] = {}
    runs: dict[str, dict[str, dict[str, float]]] = {}
    for mode, records in records_by_mode.items():
        run: dict[str, dict[str, float]] = {}
        for r in records:
            if not r["answerable"]:
                continue
            qrels.setdefault(r["id"], {_GOLD_SENTINEL: 1})
            ids = r["passage_ids"]
            # Scores from rank, not from the answerer: its scores may tie and ranx would reorder.
            run[r["id"]] = {pid: float(len(ids) - i) for i, pid in enumerate(ids)} or {_EMPTY_SENTINEL: 0.0}
            for pid, rel in zip(ids, r["relevant"]):
                if rel:
                    qrels[r["id"]][pid] = 1
        runs[mode] = run
    return qrels, runs


def _p_value(value) -> float | None:
    value = float(value)
    return None if math.isnan(value) else value


def significance(records_by_mode: dict[str, list[dict]], test: str = SIGNIFICANCE_TEST,
                 max_p: float = SIGNIFICANCE_MAX_P, seed: int = 42,
                 pairs: Sequence[tuple[str, str]] | None = None) -> dict:
    """Paired tests between runs (every two, or `pairs`): ranx.compare on per-question MRR@10 and hit@1 over
    the answerable questions, and the exact McNemar test on each question's outcome (eval/paired.py)."""
    from eval.paired import mcnemar, outcome

    info = {"test": test, "max_p": max_p, "metrics": [*SIGNIFICANCE_METRICS, "outcome", "routing"], "pairs": []}
    names = list(records_by_mode)
    pairs = list(pairs) if pairs is not None else [(a, b) for i, a in enumerate(names) for b in names[i + 1:]]
    qrels_dict, runs_dict = _qrels_and_runs(records_by_mode)
    if len(runs_dict) < 2 or not qrels_dict or not pairs:
        return info
    from ranx import Qrels, Run, compare  # heavy (numba): only when a comparison is asked for

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # numba's int cast warnings say nothing about our data
        report = compare(
            Qrels(qrels_dict),
            [Run(run, name=mode) for mode, run in runs_dict.items()],
            metrics=list(SIGNIFICANCE_METRICS.values()),
            stat_test=test,
            max_p=max_p,
            random_seed=seed,
        ).to_dict()
    for a, b in pairs:
        for ours, theirs in SIGNIFICANCE_METRICS.items():
            p = _p_value(report[a]["comparisons"][b][theirs])
            info["pairs"].append({
                "a": a,
                "b": b,
                "metric": ours,
                "score_a": float(report[a]["scores"][theirs]),
                "score_b": float(report[b]["scores"][theirs]),
                "p_value": p,
                "significant": p is not None and p <= max_p,
            })
        judged = {"outcome": (outcome, lambda r: True), "routing": (m.routing_correct, lambda r: r["game"] is None)}
        for metric, (right, counted) in judged.items():
            first, second = ([right(r) for r in records_by_mode[x] if counted(r)] for x in (a, b))
            if not first:
                continue
            p = mcnemar(first, second)
            info["pairs"].append({"a": a, "b": b, "metric": metric, "score_a": sum(first) / len(first),
                                  "score_b": sum(second) / len(second), "p_value": p, "significant": p <= max_p,
                                  "better": sum(x and not y for x, y in zip(first, second)),
                                  "worse": sum(y and not x for x, y in zip(first, second))})
    return info


def run_eval(answerer, questions: Sequence[GoldQuestion], modes: Sequence[str] = MODES, k: int = 10,
             metrics: Sequence[str] = m.DEFAULT_METRICS, variants: dict | None = None) -> dict:
    """Ask every question in every mode (k passages each) and return metrics, tests and records.
    `variants`: other answerers by label (a default turned off, a reranker on), each asked in hybrid mode
    and compared with the hybrid run of `answerer`."""
    if not questions:
        raise ValueError("aucune question à évaluer")
    variants = variants or {}
    records_by_mode = {mode: ask_all(answerer, questions, mode, k) for mode in modes}
    records_by_mode.update({label: ask_all(other, questions, "hybrid", k) for label, other in variants.items()})
    first = next(iter(records_by_mode.values()))
    results = {}
    for mode, records in records_by_mode.items():
        results[mode] = {
            "overall": m.evaluate(records, metrics),
            "per_game": by_game(records, metrics),
            "hit_curve": [m.hit_at(records, i) for i in range(1, k + 1)],
        }
    pairs = [(a, b) for i, a in enumerate(modes) for b in modes[i + 1:]]
    pairs += [("hybrid", label) for label in variants if "hybrid" in modes]
    return {
        "split": split_label(questions),
        "k": k,
        "modes": [*modes, *variants],
        "variants": list(variants),
        "metrics": list(metrics),
        "counts": {"overall": counts(first), "per_game": _counts_per_game(first)},
        "results": results,
        "significance": significance(records_by_mode, pairs=pairs),
        "per_tag": {label: by_tag(records, metrics) for label, records in records_by_mode.items()},
        "records": records_by_mode,
    }


def _counts_per_game(records: list[dict]) -> dict[str, dict[str, int]]:
    groups: dict[str, list[dict]] = {}
    for r in records:
        groups.setdefault(group_key(r), []).append(r)
    return {g: counts(groups[g]) for g in sorted(groups, key=lambda g: (g == OFF_TOPIC, g))}
