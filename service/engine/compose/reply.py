"""Composition, last stage of an answer: the Answer a player reads, formatted from the decision and what it
decided on; it decides nothing.

A card question the card answers quotes the card's line (decide/card_answer.py); an answer quotes the best
passage's answering sentence with its citation, its answer set, a common mistake that bears on it, and, when it
is not sure, the choices to pick from; a refusal says why in French. It reads only what the earlier stages
produced, and the games' titles.
"""

from __future__ import annotations

from collections.abc import Mapping

from indexer.corpus import Game
from service.engine.answer import Answer, CitedPassage, GameRef, Quote, Refusal
from service.engine.compose.choices import choices
from service.engine.compose.common_mistake import common_mistake, nearest
from service.engine.compose.messages import card_refusal_message, found_message, refusal_message
from service.engine.compose.quote import citation, extract_answer, short_citation
from service.engine.decide.decision import Decision
from service.engine.decide.refusal import DEFINITIVE, Reason
from service.engine.findings import Route
from service.engine.question.reading import Reading


def reply(reading: Reading, decision: Decision, games: Mapping[str, Game], calibration) -> Answer:
    findings, reason, route = decision.findings, decision.reason, decision.route
    game = games[route.game] if route.game else None
    title = game.title if game else None
    question = reading.question
    quote = mistake = refusal = None
    if decision.card_line is not None:
        card = findings.game.card
        quote = Quote(decision.card_line, citation(card, title), card.id, [card.id])
    elif decision.card_refused:
        refusal = Refusal(reason, card_refusal_message(findings.card_question.missing, title))
    elif reason is None:
        top = findings.hits[0].passage
        answer_set = calibration.answer_set.select(findings.hits)
        quote = Quote(extract_answer(top, question), citation(top, title), top.id, [h.passage.id for h in answer_set])
        nearest_mistake = nearest(findings.game.mistakes, set(quote.passage_ids))
        mistake = common_mistake(nearest_mistake, calibration.common_mistake, title)
    else:
        refusal = _refusal(reason, decision, route, title, games)
    sure = decision.sure
    hits = decision.shown
    offered = [] if sure or reason in DEFINITIVE else calibration.confidence.offered(hits)
    picks = choices(offered, question, lambda g: games[g].title, quote)
    message = refusal.message if quote is None else found_message(quote.citation, probable=not sure and bool(picks))
    return Answer(
        question=reading.query.question,
        game=GameRef(game.id, game.title) if game else None,
        game_detected=route.detected,
        found=reason is None,
        answer=quote,
        message=message,
        passages=[_cited(h, games) for h in hits],
        refusal=refusal,
        warning=mistake,
        sure=sure,
        choices=picks,
    )


def _refusal(reason: Reason, decision: Decision, route: Route, title: str | None, games: Mapping[str, Game]
             ) -> Refusal:
    titles = [g.title for g in games.values()]
    if reason == Reason.AMBIGUOUS_GAME:
        titles = [games[g].title for g in route.candidates]
    names = decision.signals.other_games or decision.signals.unknown_names
    return Refusal(reason, refusal_message(reason, title, names, titles),
                   [GameRef(g, games[g].title) for g in route.candidates])


def _cited(hit, games: Mapping[str, Game]) -> CitedPassage:
    p = hit.passage
    title = games[p.game].title
    return CitedPassage(p.id, p.game, p.section, list(p.pages), p.text, round(hit.score, 4), citation(p, title),
                        short_citation(p))
