"""The retriever contract: what the answer reads of a retriever, and the values it hands back.

Two implementations: `SingleIndexRetriever` (single.py, one index folder in this process) and
`ShardedRetriever` (sharded.py, a shelf in shards reached through typed clients, in process or Ray handles);
what they share is written once, in retrieve.py. The answerer asks `retrieve` once per question and reads
the catalogue's lookups; `score` and `rank` are the primitives retrieval is built from (the index's tests and
benchmarks read them too). tests/service/engine/test_protocol.py checks that both implementations have each
member with the same parameters.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Protocol, runtime_checkable

import numpy as np

from service.engine.findings import Evidence, Hit, Retrieved
from service.engine.retrieval.fusion import METHODS

if TYPE_CHECKING:
    from indexer.corpus import Game
    from indexer.passages import Passage
    from indexer.store import Manifest
    from service.engine.question import Question
    from service.engine.retrieval.retrieve import Request

__all__ = ["Evidence", "FusionConfig", "Hit", "QuestionScores", "Retriever"]


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


class QuestionScores(Protocol):
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

    def retrieve(self, request: Request) -> Retrieved:
        """The question asked of the index once (retrieve.py): what every later stage reads."""

    def score(self, question: Question, game: str | None = None, vector: np.ndarray | None = None) -> QuestionScores:
        """The question encoded (unless `vector` is given) and scored once: over the game's passages only when
        `game` is given (then only that game can be ranked from the result), else over every passage."""

    def rank(self, scores: QuestionScores, game: str | None = None, k: int = 5, mode: str = "hybrid") -> list[Hit]: ...

    def likely_games(self, scores: QuestionScores, n: int) -> list[tuple[str, float]]:
        """The n games whose best passage is nearest to the question, with that cosine, best first."""

    def best_lexical(self, question: Question, game: str) -> float:
        """The best BM25 score of the question among the game's passages (no encoding)."""

    def mistakes(self, vector: np.ndarray, game: str) -> tuple[tuple[Passage, float], ...]:
        """The game's common-mistake passages (compose/common_mistake.py) with their cosine to the question,
        nearest first."""

    def with_fusion(self, fusion: FusionConfig) -> Retriever:
        """The same loaded index and model, ranked with another fusion."""

    def with_embedder(self, embedder) -> Retriever:
        """The same loaded index, questions encoded by `embedder` (the same model, e.g. batched)."""
