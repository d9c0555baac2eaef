"""The decision, fifth stage of an answer: answer, or refuse and why, from the findings and the calibration.

A game found by retrieval is kept only when its first passage is evidence enough (the abstention policy's
test); otherwise the question is treated as naming no game. The refusal signals (signals.py) are then read off
what the question found, and the reason decided (refusal.py). A card question is the card's to answer: its line
for the field asked, sure, or not_in_rules when the card lacks it (card_answer.py). Whether an answer is sure is
decided here too; composition (compose/) only formats what was decided."""

from __future__ import annotations

from dataclasses import dataclass

from service.engine.decide.card_answer import card_answer
from service.engine.decide.refusal import ELSEWHERE, Reason
from service.engine.decide.signals import Signaller, Signals
from service.engine.findings import Findings, Hit, Route
from service.engine.question.reading import Reading


@dataclass(frozen=True)
class Decision:
    findings: Findings  # as decided on: a route by retrieval without evidence enough has become none
    signals: Signals
    reason: Reason | None  # None: answer
    shown: list[Hit]  # the passages the answer shows: the findings' hits, the card first when the card answers
    sure: bool = False  # an answer sure enough to offer no choices (the card's own line always is)
    # A card question (findings.card_question) about the corpus's games is the card's: its line for the field asked
    # answers, or the card lacking that field refuses (not_in_rules).
    card_line: str | None = None
    card_refused: bool = False

    @property
    def route(self) -> Route:
        """The route the answer states: none for a game guessed (not given) for a question about something else,
        which would be noise."""
        route = self.findings.route
        return Route(None, "none") if self.reason in ELSEWHERE and route.how != "given" else route


def kept_route(findings: Findings, abstention) -> Findings:
    """The findings, or those of a question naming no game when retrieval's game has too weak a first passage."""
    guess = findings.route.guess
    if guess is None:
        return findings
    game = findings.retrieved.games.get(guess)
    evidence = game.routing_evidence() if game is not None else None
    if evidence is not None and abstention.accepts(evidence):
        return findings
    return Findings(Route(None, "none"), findings.unrouted, None, findings.retrieved, unrouted=findings.unrouted)


def refusal_reason(findings: Findings, signals: Signals, calibration) -> Reason | None:
    """The refusal signals' reason, else not_in_rules when the learned judge finds none of the first passages
    likely to answer, else weak_evidence when the best passage is not close enough, else None."""
    reason = calibration.refusal.reason(signals, game_known=findings.route.game is not None)
    if reason is None and calibration.answerability.refuses(findings.judgement):
        reason = Reason.NOT_IN_RULES
    if reason is None and (findings.evidence is None or not calibration.abstention.accepts(findings.evidence)):
        reason = Reason.WEAK_EVIDENCE
    return reason


def decide(reading: Reading, findings: Findings, calibration, signaller: Signaller) -> Decision:
    """Weak evidence among games retrieval could not tell apart asks the player which game (ambiguous_game)."""
    findings = kept_route(findings, calibration.abstention)
    signals = signaller.signals(reading, findings)
    reason = refusal_reason(findings, signals, calibration)
    if reason == Reason.WEAK_EVIDENCE and findings.route.how == "ambiguous":
        reason = Reason.AMBIGUOUS_GAME
    if findings.card_question is not None and reason not in ELSEWHERE:
        return by_card(findings, signals)
    return Decision(findings, signals, reason, findings.hits, reason is None and sure(findings, calibration))


def by_card(findings: Findings, signals: Signals) -> Decision:
    """A card question's decision, whatever the other reasons: the card's line answers, sure (nothing to choose
    from), or the card lacking the field asked makes it not_in_rules."""
    line, shown = card_answer(findings.game.card, findings.card_question.field, findings.hits)
    if line is None:
        return Decision(findings, signals, Reason.NOT_IN_RULES, shown, card_refused=True)
    return Decision(findings, signals, None, shown, sure=True, card_line=line)


def sure(findings: Findings, calibration) -> bool:
    """The learned judge's calibrated word when it has one, else the lead of the first passage's score."""
    judged = calibration.answerability.sure(findings.judgement)
    return judged if judged is not None else calibration.confidence.sure(findings.hits)
