"""Evaluation metrics: small pure functions over per-question records (eval/record.py's QuestionRecord, built by
eval.run.make_record), looked up by name (ranx style). Grouping the records by game or tag is eval/grouping.py;
why a record fails, in words, eval/failures.py.

A metric whose denominator is empty (e.g. routing on a set with no game-less question) is None,
never 0, so a missing measurement cannot pass for a failure or a success.
"""

import math
import re
from collections.abc import Callable, Iterable, Sequence

from eval.record import QuestionRecord

DEFAULT_METRICS = (
    "hit@1",
    "hit@3",
    "mrr@10",
    "page@1",
    "abstain_precision",
    "abstain_recall",
    "false_refusal",
    "routing",
    "set_coverage",
    "set_size",
    "refusal_off_topic",
    "refusal_other_game",
    "refusal_not_in_rules",
    "refusal_reason",
    "sure_precision",
    "sure_rate",
    "one_tap",
    "game_kept",
    "latency_p50",
    "latency_p95",
)
REFUSAL_KINDS = ("off_topic", "other_game", "not_in_rules")

Value = float | None


def mean(values: Iterable[float]) -> Value:
    values = list(values)
    return sum(values) / len(values) if values else None


def percentile(values: Sequence[float], p: float) -> Value:
    """Linear interpolation between closest ranks (numpy's default), so small sets stay meaningful."""
    if not values:
        return None
    ordered = sorted(values)
    pos = (len(ordered) - 1) * p / 100
    lo, hi = math.floor(pos), math.ceil(pos)
    return ordered[lo] + (ordered[hi] - ordered[lo]) * (pos - lo)


# --- per-question judgments -------------------------------------------------------------------


def first_relevant_rank(relevant: Sequence[bool]) -> int | None:
    """1-based rank of the first relevant passage, None when none is."""
    return next((i for i, rel in enumerate(relevant, start=1) if rel), None)


def hit(record: QuestionRecord, k: int) -> bool:
    return any(record["relevant"][:k])


def reciprocal_rank(record: QuestionRecord, k: int) -> float:
    rank = first_relevant_rank(record["relevant"][:k])
    return 1.0 / rank if rank else 0.0


def page_correct(record: QuestionRecord) -> bool:
    """The first passage cites a gold page; gold without pages (Cubirds) needs it relevant instead."""
    if not record["relevant"]:
        return False
    if not record["gold_pages"]:
        return bool(record["relevant"][0])
    return bool(set(record["pages"][0]) & set(record["gold_pages"]))


def abstained(record: QuestionRecord) -> bool:
    return not record["found"]


def routing_correct(record: QuestionRecord) -> bool:
    """Detected game is the gold one; on an unanswerable question abstaining is also right.

    For off-topic questions gold_game is None, so a null detection matches it; an abstention counts
    too because the player then gets "not in the rules" whatever game was guessed.
    """
    if record["detected_game"] == record["gold_game"]:
        return True
    return not record["answerable"] and abstained(record)


# --- aggregate metrics --------------------------------------------------------------------------


def _answerable(records: Iterable[QuestionRecord]) -> list[QuestionRecord]:
    return [r for r in records if r["answerable"]]


def hit_at(records: Sequence[QuestionRecord], k: int) -> Value:
    return mean(float(hit(r, k)) for r in _answerable(records))


def mrr_at(records: Sequence[QuestionRecord], k: int) -> Value:
    return mean(reciprocal_rank(r, k) for r in _answerable(records))


def page_at_1(records: Sequence[QuestionRecord]) -> Value:
    return mean(float(page_correct(r)) for r in _answerable(records))


def abstain_precision(records: Sequence[QuestionRecord]) -> Value:
    """Of the questions the system refused, the share that should have been refused."""
    refused = [r for r in records if abstained(r)]
    return mean(float(not r["answerable"]) for r in refused)


def abstain_recall(records: Sequence[QuestionRecord]) -> Value:
    """Of the questions that should be refused, the share the system refused."""
    return mean(float(abstained(r)) for r in records if not r["answerable"])


def false_refusal(records: Sequence[QuestionRecord]) -> Value:
    return mean(float(abstained(r)) for r in _answerable(records))


def routing(records: Sequence[QuestionRecord]) -> Value:
    return mean(float(routing_correct(r)) for r in records if r["game"] is None)


def _answered(records: Iterable[QuestionRecord]) -> list[QuestionRecord]:
    return [r for r in records if r["answerable"] and r["found"] and r.get("answer_set_relevant") is not None]


def set_coverage(records: Sequence[QuestionRecord]) -> Value:
    """Of the answered answerable questions, the share whose answer set holds a right passage."""
    return mean(float(any(r["answer_set_relevant"])) for r in _answered(records))


def set_size(records: Sequence[QuestionRecord]) -> Value:
    """Mean number of passages in the answer set, over the answered answerable questions."""
    return mean(float(len(r["answer_set_relevant"])) for r in _answered(records))


def refusal_of(kind: str) -> Callable[[Sequence[QuestionRecord]], Value]:
    """Of the questions the gold set expects refused as `kind`, the share refused (for any reason)."""
    def metric_fn(records: Sequence[QuestionRecord]) -> Value:
        return mean(float(abstained(r)) for r in records if r.get("gold_refusal") == kind)

    return metric_fn


def refusal_reason(records: Sequence[QuestionRecord]) -> Value:
    """Of the unanswerable questions refused, the share refused with the expected reason."""
    return mean(float(r.get("refusal") == r["gold_refusal"]) for r in records
                if not r["answerable"] and abstained(r) and r.get("gold_refusal"))


def shown_as_sure(record: QuestionRecord) -> bool:
    return bool(record["found"] and record.get("sure"))


def sure_precision(records: Sequence[QuestionRecord]) -> Value:
    """Of the answers shown as sure, the share whose first passage is right (an answer to a question the
    rules do not answer is wrong)."""
    return mean(float(r["answerable"] and bool(r["relevant"]) and r["relevant"][0])
                for r in records if shown_as_sure(r))


def sure_rate(records: Sequence[QuestionRecord]) -> Value:
    """Of the answerable questions answered, the share shown as sure."""
    return mean(float(shown_as_sure(r)) for r in records if r["answerable"] and r["found"])


def resolved_in_one_tap(record: QuestionRecord) -> bool:
    """The player reaches a right passage with at most one tap: the answer shown is right (sure, or with
    nothing to pick from), or one of the choices offered is."""
    if record.get("choices_relevant"):
        return any(record["choices_relevant"])
    return bool(record["found"] and record["relevant"] and record["relevant"][0])


def one_tap(records: Sequence[QuestionRecord]) -> Value:
    """Of the answerable questions, the share resolved in one tap."""
    return mean(float(resolved_in_one_tap(r)) for r in _answerable(records))


def game_kept(records: Sequence[QuestionRecord]) -> Value:
    """Of the follow-ups about a corpus game, the share answered about that game."""
    return mean(float(r["detected_game"] == r["gold_game"]) for r in records
                if "follow_up" in (r.get("tags") or ()) and r["gold_game"] is not None)


def latency(records: Sequence[QuestionRecord], p: float) -> Value:
    return percentile([r["latency_ms"] for r in records], p)


_PARAMETRIC: dict[str, Callable[[Sequence[QuestionRecord], int], Value]] = {
    "hit": hit_at,
    "mrr": mrr_at,
}
_PLAIN: dict[str, Callable[[Sequence[QuestionRecord]], Value]] = {
    "page@1": page_at_1,
    "abstain_precision": abstain_precision,
    "abstain_recall": abstain_recall,
    "false_refusal": false_refusal,
    "routing": routing,
    "set_coverage": set_coverage,
    "set_size": set_size,
    "refusal_reason": refusal_reason,
    "sure_precision": sure_precision,
    "sure_rate": sure_rate,
    "one_tap": one_tap,
    "game_kept": game_kept,
    **{f"refusal_{kind}": refusal_of(kind) for kind in REFUSAL_KINDS},
}
_AT = re.compile(r"^(?P<name>[a-z]+)@(?P<k>[1-9][0-9]*)$")
_LATENCY = re.compile(r"^latency_p(?P<p>[0-9]{1,2}(?:\.[0-9]+)?|100)$")


def metric(name: str) -> Callable[[Sequence[QuestionRecord]], Value]:
    """The function behind a metric name such as "hit@3", "mrr@10" or "latency_p95"."""
    if name in _PLAIN:
        return _PLAIN[name]
    match = _AT.match(name)
    if match and match["name"] in _PARAMETRIC:
        fn, k = _PARAMETRIC[match["name"]], int(match["k"])
        return lambda records: fn(records, k)
    match = _LATENCY.match(name)
    if match:
        p = float(match["p"])
        return lambda records: latency(records, p)
    raise ValueError(f"métrique inconnue : {name!r}")


def evaluate(records: Sequence[QuestionRecord], metrics: Iterable[str] = DEFAULT_METRICS) -> dict[str, Value]:
    return {name: metric(name)(records) for name in metrics}
