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
from service.engine.question.reading import Asked


@dataclass(frozen=True)
class Decision:
    found: Findings  # as decided on: a route by retrieval without evidence enough has become none
    signals: Signals
    reason: Reason | None  # None: answer
    shown: list[Hit]  # the passages the answer shows: the findings' hits, the card first when the card answers
    sure: bool = False  # an answer sure enough to offer no choices (the card's own line always is)
    # A card question (found.card_question) about the corpus's games is the card's: its line for the field asked answers,
    # or the card lacking that field refuses (not_in_rules).
    card_line: str | None = None
    card_refused: bool = False

    @property
    def route(self) -> Route:
        """The route the answer states: none for a game guessed (not given) for a question about something else,
        which would be noise."""
        route = self.found.route
        return Route(None, "none") if self.reason in ELSEWHERE and route.how != "given" else route


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
    if found.card_question is not None and reason not in ELSEWHERE:
        return by_card(found, signals)
    return Decision(found, signals, reason, found.hits, reason is None and sure(found, calibration))


def by_card(found: Findings, signals: Signals) -> Decision:
    """A card question's decision, whatever the other reasons: the card's line answers, sure (nothing to choose
    from), or the card lacking the field asked makes it not_in_rules."""
    line, shown = card_answer(found.game.card, found.card_question.field, found.hits)
    if line is None:
        return Decision(found, signals, Reason.NOT_IN_RULES, shown, card_refused=True)
    return Decision(found, signals, None, shown, sure=True, card_line=line)


def sure(found: Findings, calibration) -> bool:
    """The learned judge's calibrated word when it has one, else the lead of the first passage's score."""
    judged = calibration.answerability.sure(found.judgement)
    return judged if judged is not None else calibration.confidence.sure(found.hits)
