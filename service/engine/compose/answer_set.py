"""The answer set: the passages that together hold the answer when the evidence is split.

The quoted passage comes first; the next passages of the same game join it while their score stays
within `max_gap` of the top one (at most `max_size` in all). `max_gap` is sized by split-conformal
calibration on the dev split (eval/tune.py) so that most answerable questions have a right passage in
their set: a set is small when the first passage stands out, and grows when its neighbours score alike.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

SCORES = ("fused", "dense")


@dataclass(frozen=True)
class AnswerSetPolicy:
    max_gap: float = 0.0  # 0: the quoted passage alone
    max_size: int = 3
    score: str = "fused"  # which score the gap is measured on: "fused" (the ranking's) or "dense" (cosine)

    def __post_init__(self):
        if self.score not in SCORES:
            raise ValueError(f"score inconnu {self.score!r} pour l'ensemble de réponses ({', '.join(SCORES)})")
        if self.max_size < 1:
            raise ValueError("max_size doit valoir au moins 1")

    def value(self, hit) -> float:
        return hit.score if self.score == "fused" else hit.dense

    def select(self, hits: list) -> list:
        """The hits of the set, in ranking order; `hits` are ranked within the answer's game."""
        if not hits:
            return []
        top = self.value(hits[0])
        return [h for h in hits[: self.max_size] if top - self.value(h) <= self.max_gap + 1e-12]


def conformal_gap(gaps: list[float], coverage: float) -> float:
    """Split-conformal quantile: the smallest gap such that, for a new question exchangeable with the
    calibration ones, P(its first right passage is within the gap) >= coverage. `gaps` holds, per
    calibration question, the score gap between the top passage and its first right one (inf if none)."""
    n = len(gaps)
    if n == 0:
        return 0.0
    rank = math.ceil((n + 1) * coverage)
    if rank > n:
        return math.inf
    return sorted(gaps)[rank - 1]
