"""Composition, last stage of an answer: the Answer a player reads, from the findings and the decision.

A card question is answered by the card's line (or refused: the card does not give it); an answer quotes the
best passage's answering sentence with its citation, its answer set, a common mistake that bears on it, and,
when it is not sure, the choices to pick from; a refusal says why in French.
"""

from __future__ import annotations

from service.engine.answer import Answer, CitedPassage, GameRef, Quote, Refusal
from service.engine.compose.card import card_answer
from service.engine.compose.choices import choices
from service.engine.compose.messages import card_refusal_message, found_message, refusal_message
from service.engine.compose.mistakes import warning
from service.engine.compose.quote import citation, extract_answer, short_citation
from service.engine.decide.refusal import DEFINITIVE, ELSEWHERE, Reason
from service.engine.findings import Findings
from service.engine.question import Query
from service.engine.routing.router import Route


def reply(query: Query, found: Findings, reason: Reason | None, retriever, calibration) -> Answer:
    route = found.route
    if reason in ELSEWHERE and route.how != "given":
        route = Route(None, "none")  # a game guessed for a question about something else is noise
    game = retriever.game(route.game) if route.game else None
    title = game.title if game else None
    question = query.analysed
    quote = mistake = refusal = None
    hits, sure = found.hits, False
    if found.card is not None and reason not in ELSEWHERE:
        card = retriever.card(found.route.game)
        line, hits = card_answer(card, found.card.field, found.hits)
        if line is None:
            reason = Reason.NOT_IN_RULES
            refusal = Refusal(reason, card_refusal_message(found.card.missing, title))
        else:
            reason, sure = None, True  # the card's own line: nothing to choose from
            quote = Quote(line, citation(card, title), card.id, [card.id])
    elif reason is None:
        top = found.hits[0].passage
        answer_set = calibration.answer_set.select(found.hits)
        quote = Quote(extract_answer(top, question), citation(top, title), top.id, [h.passage.id for h in answer_set])
        nearest = retriever.nearest_mistake(found.scores, game.id, set(quote.passage_ids))
        mistake = warning(nearest, calibration.warning, game.title)
        sure = calibration.confidence.sure(hits)
    else:
        refusal = _refusal(reason, found, route, title, retriever)
    offered = [] if sure or reason in DEFINITIVE else calibration.confidence.offered(hits)
    picks = choices(offered, question, lambda g: retriever.game(g).title)
    message = refusal.message if quote is None else found_message(quote.citation, probable=not sure and bool(picks))
    return Answer(
        question=query.question,
        game=GameRef(game.id, game.title) if game else None,
        game_detected=route.detected,
        found=reason is None,
        answer=quote,
        message=message,
        passages=[_cited(h, retriever) for h in hits],
        refusal=refusal,
        warning=mistake,
        sure=sure,
        choices=picks,
    )


def _refusal(reason: Reason, found: Findings, route: Route, title: str | None, retriever) -> Refusal:
    titles = [g.title for g in retriever.games]
    if reason == Reason.AMBIGUOUS_GAME:
        titles = [retriever.game(g).title for g in route.candidates]
    names = found.signals.other_games or found.signals.unknown_names
    return Refusal(reason, refusal_message(reason, title, names, titles),
                   [GameRef(g, retriever.game(g).title) for g in route.candidates])


def _cited(hit, retriever) -> CitedPassage:
    p = hit.passage
    title = retriever.game(p.game).title
    return CitedPassage(p.id, p.game, p.section, list(p.pages), p.text, round(hit.score, 4), citation(p, title),
                        short_citation(p))
