"""The eval's records grouped: the metrics of each game (off-topic questions last) and of each tag, and the
counts of each kind of question."""

from collections.abc import Iterable, Sequence

from eval.metrics import DEFAULT_METRICS, Value, evaluate
from eval.record import QuestionRecord

# The group of the questions about no game of the corpus.
OFF_TOPIC = "hors-corpus"


def group_key(record: QuestionRecord) -> str:
    return record["gold_game"] or OFF_TOPIC


def by_game(records: Sequence[QuestionRecord], metrics: Iterable[str] = DEFAULT_METRICS) -> dict[str, dict[str, Value]]:
    metrics = tuple(metrics)
    groups: dict[str, list[QuestionRecord]] = {}
    for r in records:
        groups.setdefault(group_key(r), []).append(r)
    # Games alphabetically, off-topic last: tables read the same run after run.
    keys = sorted(groups, key=lambda g: (g == OFF_TOPIC, g))
    return {g: evaluate(groups[g], metrics) for g in keys}


def by_tag(records: Sequence[QuestionRecord], metrics: Iterable[str] = DEFAULT_METRICS) -> dict[str, dict[str, Value]]:
    """The metrics of the questions carrying each tag (a question counts once per tag it carries), tags
    alphabetically; records without tags are in no group."""
    metrics = tuple(metrics)
    groups: dict[str, list[QuestionRecord]] = {}
    for r in records:
        for tag in r.get("tags") or ():
            groups.setdefault(tag, []).append(r)
    return {t: evaluate(groups[t], metrics) for t in sorted(groups)}


def counts(records: Sequence[QuestionRecord]) -> dict[str, int]:
    return {
        "questions": len(records),
        "answerable": sum(1 for r in records if r["answerable"]),
        "unanswerable": sum(1 for r in records if not r["answerable"]),
        "off_topic": sum(1 for r in records if r["gold_game"] is None),
        "no_game": sum(1 for r in records if r["game"] is None),
    }
