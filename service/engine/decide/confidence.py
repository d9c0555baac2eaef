"""One tap instead of false certainty: an answer is "sure" when the calibrated signal says so; otherwise it
offers the best few passages as "Tu parles de… ?" choices, the best guess first.

Sure means the fused score of the first passage stands out from the second by `min_gap` or more, chosen on
the dev split so that what is shown as sure is right at least CONFIDENCE_PRECISION of the time
(eval/tune.py). Without a measurement nothing is sure: every answer offers its choices.
"""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class ConfidencePolicy:
    min_gap: float = math.inf  # sure when the first passage's fused score leads the second's by this much
    choices: int = 3  # passages offered when not sure, the best guess included

    def __post_init__(self):
        if not 2 <= self.choices <= 5:
            raise ValueError("choices doit valoir entre 2 et 5")

    @staticmethod
    def gap(hits: list) -> float:
        """How far the first passage's fused score leads the second's (the first alone leads by its score)."""
        if not hits:
            return 0.0
        return hits[0].score - (hits[1].score if len(hits) > 1 else 0.0)

    def sure(self, hits: list) -> bool:
        return bool(hits) and self.gap(hits) >= self.min_gap

    def offered(self, hits: list) -> list:
        """The hits offered as choices: the first `choices` ones (distinct passages by construction)."""
        return hits[: self.choices]
