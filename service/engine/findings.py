"""What the stages hand each other: a question scored once (`Scored`), and what retrieval found for it before
any decision (`Findings`), which the decision, the composition and the calibration (eval/tune.py) read."""

from __future__ import annotations

from dataclasses import dataclass, field

from service.engine.compose.card import CardQuestion
from service.engine.decide.signals import Signals
from service.engine.question import Query, Question
from service.engine.retrieval.protocol import Evidence, Hit
from service.engine.routing.players_words import Rewrite
from service.engine.routing.router import Route


@dataclass
class Scored:
    """A question scored once, reused when the same query is decided under many settings (calibration):
    the scores of the question as asked, and per game those of the question in that game's words."""

    query: Query
    named: Route | None  # the game given or named in the question, or kept from the previous turn
    base: object  # the retriever's scores of the question as asked
    per_game: dict[str, tuple[Rewrite, object]] = field(default_factory=dict)


@dataclass(frozen=True)
class Findings:
    route: Route
    hits: list[Hit]
    evidence: Evidence | None  # None when no game was routed or nothing was found
    signals: Signals
    scores: object = None  # the retriever's scores the hits were ranked from
    card: CardQuestion | None = None  # the card field asked about, when the question is a card question
    rewrite: Rewrite | None = None  # the question in the routed game's words (routing/players_words.py)
    question: Question | None = None  # the question as asked, analysed
