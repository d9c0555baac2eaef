"""The decision, fifth stage of an answer: answer, or refuse and why, from the findings and the calibration.

A game found by retrieval is kept only when its first passage is evidence enough (the abstention policy's
test); otherwise the question is treated as naming no game. The refusal signals (signals.py) are then read off
what the question found, and the reason decided (refusal.py)."""

from __future__ import annotations

from dataclasses import dataclass

from service.engine.decide.refusal import Reason
from service.engine.decide.signals import Signaller, Signals
from service.engine.findings import Findings, Route
from service.engine.question.reading import Asked


@dataclass(frozen=True)
class Decision:
    found: Findings  # as decided on: a route by retrieval without evidence enough has become none
    signals: Signals
    reason: Reason | None  # None: answer
    sure: bool = False  # an answer sure enough to offer no choices


def kept_route(found: Findings, abstention) -> Findings:
    """The findings, or those of a question naming no game when retrieval's game has too weak a first passage."""
    guess = found.route.guess
    if guess is None:
        return found
    game = found.retrieved.games.get(guess)
    evidence = game.routing_evidence() if game is not None else None
    if evidence is not None and abstention.accepts(evidence):
        return found
    return Findings(Route(None, "none"), found.unrouted, None, found.retrieved, unrouted=found.unrouted)


def refusal_reason(found: Findings, signals: Signals, calibration) -> Reason | None:
    """The refusal signals' reason, else not_in_rules when the learned judge finds none of the first passages
    likely to answer, else weak_evidence when the best passage is not close enough, else None."""
    reason = calibration.refusal.reason(signals, game_known=found.route.game is not None)
    if reason is None and calibration.answerability.refuses(found.judgement):
        reason = Reason.NOT_IN_RULES
    if reason is None and (found.evidence is None or not calibration.abstention.accepts(found.evidence)):
        reason = Reason.WEAK_EVIDENCE
    return reason


def decide(asked: Asked, found: Findings, calibration, signaller: Signaller) -> Decision:
    """Weak evidence among games retrieval could not tell apart asks the player which game (ambiguous_game)."""
    found = kept_route(found, calibration.abstention)
    signals = signaller.signals(asked, found)
    reason = refusal_reason(found, signals, calibration)
    if reason == Reason.WEAK_EVIDENCE and found.route.how == "ambiguous":
        reason = Reason.AMBIGUOUS_GAME
    return Decision(found, signals, reason, reason is None and sure(found, calibration))


def sure(found: Findings, calibration) -> bool:
    """The learned judge's calibrated word when it has one, else the lead of the first passage's score."""
    judged = calibration.answerability.sure(found.judgement)
    return judged if judged is not None else calibration.confidence.sure(found.hits)
