"""Whether the evidence for the best passage is strong enough to answer at all (else `weak_evidence`)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from service.engine.retrieval.protocol import Evidence

# The Evidence fields the policy may read (its `feature`, as calibration.json names it).
EVIDENCE_FIELDS = ("top", "lift", "rerank")


@dataclass(frozen=True)
class AbstentionPolicy:
    """found when feature + coverage_weight * coverage >= threshold (see Evidence for the features)."""

    threshold: float = -math.inf
    feature: str = "top"
    coverage_weight: float = 0.0

    def __post_init__(self):
        if self.feature not in EVIDENCE_FIELDS:
            raise ValueError(f"indice d'abstention inconnu {self.feature!r} ({', '.join(EVIDENCE_FIELDS)})")

    def confidence(self, evidence: Evidence) -> float:
        value = getattr(evidence, self.feature)
        if value is None:  # "rerank" measured with a judge, asked without one: nothing is accepted
            return -math.inf
        return value + self.coverage_weight * evidence.coverage

    def accepts(self, evidence: Evidence) -> bool:
        return self.confidence(evidence) >= self.threshold
