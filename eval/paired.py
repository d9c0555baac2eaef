"""A paired test on what a player gets, question by question: the right answer shown first, or the refusal
of a question the rules do not answer. ranx compares rankings (hit@1, MRR@10) over answerable questions
only; a default that refuses ("au poker" is another game) changes the other questions, which this test
covers: the exact McNemar test on the questions where two runs disagree."""

from __future__ import annotations

from collections.abc import Sequence
from math import comb


def outcome(record: dict) -> bool:
    """The player got what the gold set expects: a right first passage answered, or a refusal."""
    if record["answerable"]:
        return bool(record["found"] and record["relevant"] and record["relevant"][0])
    return not record["found"]


def mcnemar(a: Sequence[bool], b: Sequence[bool]) -> float:
    """Exact two-sided McNemar p-value of paired binary outcomes: under the null, each question where the
    runs disagree is a fair coin toss for which one is right."""
    if len(a) != len(b):
        raise ValueError("paired outcomes of different lengths")
    only_a = sum(1 for x, y in zip(a, b) if x and not y)
    only_b = sum(1 for x, y in zip(a, b) if y and not x)
    n = only_a + only_b
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(only_a, only_b) + 1)) / 2 ** n
    return min(1.0, 2 * tail)
