"""The values the stages hand each other, in the order they are made: retrieval's `Retrieved` (and its `Hit`s
and `Evidence`), routing's `Route`, the judge's `Findings`. Each stage reads the values of the stages before
it and never calls one; this module defines values only and imports no stage (an import-linter contract).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:
    from indexer.corpus import Game
    from indexer.passages import Passage
    from service.engine.players_words import Rewrite
    from service.engine.question import Question


@dataclass(frozen=True)
class Hit:
    passage: Passage
    score: float
    dense: float
    lexical: float


@dataclass(frozen=True)
class Evidence:
    """How strongly the corpus supports the top passage; the abstention decision reads these."""

    top: float  # cosine of the question and the top passage
    lift: float  # that cosine minus the question's mean cosine to all passages
    coverage: float  # share of the question's terms that occur anywhere in the corpus
    rerank: float | None = None  # the reranker's score of the top passage, when one re-orders (judge/reranker.py)


@dataclass(frozen=True)
class GameRetrieved:
    """What retrieval found in one game: its passages ranked for the question in the game's words."""

    game: Game
    rewrite: Rewrite  # the question in the game's words (unchanged unless the players' words are read in ranking)
    hits: list[Hit]  # best first, as many as the judge reads
    vector: np.ndarray  # the embedding of the question as ranked here
    coverage: float  # share of the question's terms that occur anywhere in the corpus
    mean_cosine: float  # the question's mean cosine to every passage of the index
    text: str  # the game's rule passages and sections, folded (Retriever.game_text)
    card: Passage | None = None  # the game's card passage, when it has one
    words: frozenset[str] = frozenset()  # the folded words of `text` (Retriever.game_words)
    # The game's common-mistake passages with their cosine to the question, nearest first.
    mistakes: tuple[tuple[Passage, float], ...] = ()
    # The first passage's evidence for the question as asked, when the players' words changed it: a route found
    # by retrieval is judged by the question as asked (decide/decision.py).
    as_asked: Evidence | None = None

    def evidence(self, hit: Hit) -> Evidence:
        return Evidence(hit.dense, hit.dense - self.mean_cosine, self.coverage)

    def routing_evidence(self) -> Evidence | None:
        """The evidence for the game's first passage, for the question as asked."""
        if self.as_asked is not None:
            return self.as_asked
        return self.evidence(self.hits[0]) if self.hits else None


@dataclass(frozen=True)
class ShelfRetrieved:
    """What retrieval found over every game, for a question naming none: what routing reads."""

    hits: list[Hit]  # every game's passages ranked together, best first
    dense_first: Hit | None  # the nearest passage by cosine alone
    lexical_first: Hit | None  # the best passage by BM25 alone
    likely: tuple[tuple[str, float], ...]  # the games whose best passage is nearest, with that cosine, best first
    vector: np.ndarray
    coverage: float
    # The best BM25 score of the question, in each likely game's own words, in that game: the likely games,
    # then the lexical first passage's game.
    best_lexical: dict[str, float] = field(default_factory=dict)

    def lexical_ranking(self) -> list[str]:
        """The games of `best_lexical`, best first; a tie goes to the lexical first passage's game."""
        own = self.lexical_first.passage.game if self.lexical_first else None
        return sorted(self.best_lexical, key=lambda g: (-self.best_lexical[g], g != own))


@dataclass(frozen=True)
class Retrieved:
    """Retrieval's one value for a question: the games it ranked, and over every game when none was named."""

    question: Question  # the question as retrieved (a follow-up carries the previous question's words)
    games: dict[str, GameRetrieved]
    shelf: ShelfRetrieved | None = None


@dataclass(frozen=True)
class Route:
    game: str | None
    # "given", "name" (title or alias in the question), "previous" (kept from the previous turn of a
    # follow-up), "retrieval", "ambiguous" or "none"
    how: str
    # Where the name was read in the question (character offsets), for a name route.
    span: tuple[int, int] | None = None
    # The likeliest games when retrieval cannot choose between them ("ambiguous"), best first.
    candidates: tuple[str, ...] = field(default_factory=tuple)
    # The game retrieval pointed to (routes by retrieval only): the decision keeps the route only when its
    # first passage is evidence enough (decide/decision.py).
    guess: str | None = None

    @property
    def detected(self) -> bool:
        """The game was found rather than given."""
        return self.how in ("name", "retrieval", "previous")


@dataclass(frozen=True)
class CardQuestion:
    field: str  # a key of indexer.game_card.FIELDS
    missing: str  # what the card does not say, for the refusal ("l'âge conseillé")
    # The question's folded words beside the field's cue that no card question holds but a game's names
    # ("Karuba c'est pour quel âge ?"): a card question about a game whose names hold them all.
    others: frozenset[str] = frozenset()

    def of_game(self, name_words: frozenset[str]) -> bool:
        """A card question about the game whose names' folded words are `name_words`."""
        return self.others <= name_words


@dataclass(frozen=True)
class Judgement:
    """What the answerability judge says of the first passages, in the ranker's order (judge/learned.py)."""

    first: float  # probability that the first passage answers the question
    any_top: float  # probability that one of the first TOP passages does


@dataclass(frozen=True)
class Findings:
    """What the question found before any decision: the judge's order of the routed game's passages."""

    route: Route
    hits: list[Hit]  # the routed game's passages (every game's when none is routed), best first, k of them
    evidence: Evidence | None  # None when no game was routed or nothing was found
    retrieved: Retrieved
    card_question: CardQuestion | None = None  # the card field asked about, when the question is a card question
    # Every game's passages in the judge's order, for a question naming no game: what is shown when the decision
    # drops a route by retrieval.
    unrouted: list[Hit] = field(default_factory=list)
    # The learned judge's probabilities for the first passages (judge/learned.py), when it judged them.
    judgement: Judgement | None = None
    # Each shown passage's judge features (judge/features.py), one row each, for `rulesqa ask --explain`.
    feature_rows: np.ndarray | None = None

    @property
    def game(self) -> GameRetrieved | None:
        """What retrieval found in the routed game."""
        return self.retrieved.games.get(self.route.game) if self.route.game else None
