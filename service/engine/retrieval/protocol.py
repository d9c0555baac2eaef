"""What the answer reads of a retriever: the `Retriever` protocol, and the values it hands back.

Two implementations: `SingleIndexRetriever` (single.py, one index folder in this process) and
`ShardedRetriever` (sharded.py, a shelf in shards reached through clients, in process or Ray handles). The
Answerer, the router and the eval call these members only; tests/service/engine/test_protocol.py checks
that both implementations have each of them with the same parameters.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from service.engine.retrieval.fusion import METHODS

if TYPE_CHECKING:
    from indexer.corpus import Game
    from indexer.passages import Passage
    from indexer.store import Manifest
    from service.engine.question import Question


@dataclass(frozen=True)
class FusionConfig:
    """Chosen by measurement on the eval's dev split (docs/EVAL.md)."""

    method: str = "weighted"
    dense_weight: float = 0.7
    rrf_k: int = 60

    def __post_init__(self):
        # A typo in a calibration file must not silently fall back to another fusion.
        if self.method not in METHODS:
            raise ValueError(f"fusion inconnue {self.method!r} (méthodes : {', '.join(METHODS)})")


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
    rerank: float | None = None  # the judge's score of the top passage, when one judges (service/engine/judge.py)


class Scored(Protocol):
    """A question scored once by a retriever (each implementation has its own); ranked any number of times."""

    vector: np.ndarray  # the question's embedding


@runtime_checkable
class Retriever(Protocol):
    embedder: object  # encodes questions (indexer/models/e5)
    fusion: FusionConfig
    games: list[Game]
    game_ids: list[str]
    words: frozenset[str]  # the corpus's folded words (the refusal's and the router's vocabulary)

    @property
    def manifest(self) -> Manifest: ...

    def game(self, game_id: str) -> Game:
        """The game, or UnknownGameError naming the known ones."""

    def passage(self, game_id: str, passage_id: str) -> Passage | None: ...

    def card(self, game_id: str) -> Passage | None:
        """The game's card passage (indexer/game_card.py), or None when its header gives no card field."""

    def game_text(self, game_id: str) -> str:
        """The game's rule passages and sections (its card aside), folded (service/engine/phrases.py)."""

    def game_words(self, game_id: str) -> frozenset[str]:
        """The folded words of game_text."""

    def score(self, question: Question, game: str | None = None, vector: np.ndarray | None = None) -> Scored:
        """The question encoded (unless `vector` is given) and scored once: over the game's passages only when
        `game` is given (then only that game can be ranked from the result), else over every passage."""

    def rank(self, scores: Scored, game: str | None = None, k: int = 5, mode: str = "hybrid") -> list[Hit]: ...

    def likely_games(self, scores: Scored, n: int) -> list[tuple[str, float]]:
        """The n games whose best passage is nearest to the question, with that cosine, best first."""

    def best_lexical(self, question: Question, game: str) -> float:
        """The best BM25 score of the question among the game's passages (no encoding)."""

    def coverage(self, scores: Scored) -> float:
        """Share of the question's terms that occur anywhere in the corpus."""

    def evidence(self, scores: Scored, hit: Hit) -> Evidence: ...

    def nearest_mistake(self, scores: Scored, game: str, exclude: set[str]) -> tuple[Passage, float] | None:
        """The game's common-mistake passage nearest to the question (service/engine/compose/mistakes.py) with
        its cosine, leaving out the passages whose id is in `exclude`; None when it has none."""

    def with_fusion(self, fusion: FusionConfig) -> Retriever:
        """The same loaded index and model, ranked with another fusion."""

    def with_embedder(self, embedder) -> Retriever:
        """The same loaded index, questions encoded by `embedder` (the same model, e.g. batched)."""


class Reconfigurable:
    """`with_fusion` and `with_embedder` for the implementations: a shallow copy sharing the loaded index."""

    fusion: FusionConfig
    embedder: object

    def with_fusion(self, fusion: FusionConfig):
        other = copy.copy(self)
        other.fusion = fusion
        return other

    def with_embedder(self, embedder):
        other = copy.copy(self)
        other.embedder = embedder
        return other
