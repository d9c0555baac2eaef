"""The decision, fourth stage of an answer: answer, or refuse and why, from the findings and the calibration."""

from __future__ import annotations

from service.engine.decide.refusal import Reason
from service.engine.findings import Findings


def refusal_reason(found: Findings, calibration) -> Reason | None:
    """The refusal signals' reason, else weak_evidence when the best passage is not close enough, else None."""
    reason = calibration.refusal.reason(found.signals, game_known=found.route.game is not None)
    if reason is None and (found.evidence is None or not calibration.abstention.accepts(found.evidence)):
        reason = Reason.WEAK_EVIDENCE
    return reason


def decide(found: Findings, calibration) -> Reason | None:
    """None to answer; else the reason to refuse. Weak evidence among games retrieval could not tell apart
    asks the player which game (ambiguous_game)."""
    reason = refusal_reason(found, calibration)
    if reason == Reason.WEAK_EVIDENCE and found.route.how == "ambiguous":
        return Reason.AMBIGUOUS_GAME
    return reason
