"""Answering from a shelf in shards (indexer/shelf.py): the same answers as from the single index.

`ShardSearch` holds one shard folder and answers for its games: the candidates of one game (a question
with a game, or the game retrieval routed to), or its best rows for a question naming no game.
`ShardedRetriever` implements the `Retriever` protocol (retrieval/protocol.py) as the single index does: it encodes
the question once, asks the game's shard only, or every shard at once and merges their best rows (by
score, ties by the single index's row), then fuses the candidates itself, from their stored float16
vectors, exactly as `SingleIndexRetriever.rank` does. The shards' BM25 statistics are the shelf's, so the scores
are the single index's; what the service reads besides them (words, centroid, games, the common-mistake
passages) is the catalogue's. A shard is reached through a `ShardClient` (shard_client.py): in process
(`LocalShard`), or a Ray Serve handle (service/cluster/).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from indexer import store
from indexer.errors import IndexMismatchError
from indexer.passages import Passage
from indexer.shelf import Shelf, read_shelf
from service.engine.findings import Hit
from service.engine.question import Question
from service.engine.retrieval.fusion import fuse
from service.engine.retrieval.mistake_rows import MistakeRows
from service.engine.retrieval.protocol import FusionConfig
from service.engine.retrieval.retrieve import RetrieverBase
from service.engine.retrieval.shard_client import ShardClient
from service.engine.retrieval.shard_search import SHELF_DEPTH, Candidates, MistakeParts
from service.engine.retrieval.single import CANDIDATES

@dataclass
class ShardedScores:
    """What `Scores` is to a `Retriever`, for a `ShardedRetriever`."""

    vector: np.ndarray
    terms: list[str]
    n_terms: int
    game: str | None = None
    question: str = ""
    candidates: dict[str, Candidates] = field(default_factory=dict)  # per game
    dense_order: np.ndarray | None = None  # shelf-wide only: merged best rows, best first
    dense_dots: dict[int, float] = field(default_factory=dict)
    dense_games: dict[int, str] = field(default_factory=dict)
    lexical_order: np.ndarray | None = None
    pool: dict[int, tuple[np.ndarray, float, Passage]] = field(default_factory=dict)


class _MistakeTable:
    """Every shard's common-mistake passages, with their rows and vectors, gathered once by the front: what
    `mistakes` searches (retrieval/mistake_rows.py), as the single index searches its own."""

    def __init__(self, shelf: Shelf, parts: list[MistakeParts], exact: bool):
        dim = len(shelf.centroid)
        rows = np.concatenate([p[0] for p in parts] + [np.zeros(0, np.int64)])
        sections = [s for p in parts for s in p[1]]
        vectors = np.concatenate([p[2] for p in parts] + [np.zeros((0, dim), np.float16)])
        passages = [x for p in parts for x in p[3]]
        order = np.argsort(rows, kind="stable")
        names = sorted({s for s in sections if s is not None})
        game_index = {g.id: i for i, g in enumerate(shelf.games)}
        self.passages = [passages[i] for i in order]
        self.rows = store.Rows(np.array([game_index[p.game] for p in self.passages], dtype=np.int32),
                               np.array([names.index(sections[i]) if sections[i] is not None else -1 for i in order],
                                        dtype=np.int32), tuple(names))
        stacked = vectors[order]
        # As the single index holds them: float32 when exact, the stored float16 above (store.load).
        self.vectors = stacked.astype(np.float32) if exact else stacked
        self.mistakes = MistakeRows(self.passages, self.rows, [g.id for g in shelf.games])


class ShardedRetriever(RetrieverBase):
    def __init__(self, shelf: Shelf, clients: list[ShardClient], embedder, fusion: FusionConfig | None = None):
        self.shelf = shelf
        self.clients = clients
        self.embedder = embedder
        self.fusion = fusion or FusionConfig()
        self._init_catalogue(shelf.games, shelf.centroid)
        self._shard_of = shelf.shard_of()
        self._exact = shelf.manifest.dense_index == "IndexFlatIP"
        self._versions = [s.corpus_hash for s in shelf.shards]
        self._rows = int(sum(s.passages for s in shelf.shards))
        self.words = shelf.words
        self._mistakes = _MistakeTable(shelf, [c.mistakes().result() for c in clients], self._exact)

    @classmethod
    def load(cls, folder: Path, clients: list[ShardClient], embedder, fusion: FusionConfig | None = None) -> ShardedRetriever:
        shelf = read_shelf(folder)
        shelf.manifest.check_compatible(embedder)
        if len(clients) != len(shelf.shards):
            raise IndexMismatchError(f"{len(clients)} shards servis pour {len(shelf.shards)} dans {folder}")
        return cls(shelf, clients, embedder, fusion)

    def _check(self, shard: int, result, check: bool = True):
        if check and result.version != self._versions[shard]:
            raise IndexMismatchError("index en cours de rechargement (shards de versions différentes) ; réessayez")
        return result

    @property
    def manifest(self) -> store.Manifest:
        return self.shelf.manifest

    def _client_of(self, game_id: str) -> ShardClient:
        """The client of the game's shard, once the game is known (`game` refuses an unknown one)."""
        self.game(game_id)
        return self.clients[self._shard_of[game_id]]

    def passage(self, game_id: str, passage_id: str) -> Passage | None:
        return self._client_of(game_id).passage(game_id, passage_id).result()

    def _read_vocabulary(self, game_id: str) -> tuple[str, frozenset[str]]:
        return self._client_of(game_id).vocabulary(game_id).result()

    def card(self, game_id: str) -> Passage | None:
        return self._client_of(game_id).card(game_id).result()

    def best_lexical(self, question: Question, game: str) -> float:
        return self._client_of(game).best_lexical(question.text, game).result()

    def mistakes(self, vector: np.ndarray, game: str) -> tuple[tuple[Passage, float], ...]:
        return self._mistakes.mistakes.ranked(self._mistakes.vectors, vector, game)

    def score(self, question: Question, game: str | None = None, vector: np.ndarray | None = None
              ) -> ShardedScores:
        if vector is None:
            vector = self.embedder.encode_queries([question.text])[0]
        question = question.text
        if game is not None:
            self.game(game)
            shard = self._shard_of[game]
            found = self._check(shard, self.clients[shard].game(question, vector, game).result())
            return ShardedScores(vector, found.terms, found.n_terms, game, question, {game: found.candidates})
        pending = [c.shelf(question, vector) for c in self.clients]
        parts = [self._check(i, p.result()) for i, p in enumerate(pending)]
        scores = ShardedScores(vector, parts[0].terms if parts else [], parts[0].n_terms if parts else 0,
                               question=question)
        rows = np.concatenate([p.dense_rows for p in parts]) if parts else np.zeros(0, np.int64)
        values = np.concatenate([p.dense_cosines for p in parts]) if parts else np.zeros(0, np.float32)
        scores.dense_order = rows[np.lexsort((rows, -values))]
        for p in parts:
            scores.dense_dots.update(zip(p.dense_rows.tolist(), p.dense_dots.tolist()))
            scores.dense_games.update(zip(p.dense_rows.tolist(), p.dense_games))
            for i, row in enumerate(p.pool.rows.tolist()):
                scores.pool[row] = (p.pool.vectors[i], float(p.pool.lexical[i]), p.pool.passages[i])
            if p.top_game is not None:
                scores.candidates[p.top_game] = p.top_candidates
        lexical = np.concatenate([p.lexical_rows for p in parts]) if parts else np.zeros(0, np.int64)
        lexical_values = np.concatenate([p.lexical_scores for p in parts]) if parts else np.zeros(0)
        scores.lexical_order = lexical[np.lexsort((lexical, -lexical_values))][:CANDIDATES]
        return scores

    def _game_candidates(self, scores: ShardedScores, game: str) -> Candidates:
        if game not in scores.candidates:
            shard = self._shard_of[game]
            found = self.clients[shard].shelf_game(scores.question, scores.vector, game).result()
            scores.candidates[game] = self._check(shard, found).candidates
        return scores.candidates[game]

    def _shelf_candidates(self, scores: ShardedScores) -> Candidates:
        rows = np.unique(np.concatenate([scores.dense_order[:CANDIDATES], scores.lexical_order]))
        if not len(rows):
            return Candidates.empty(len(self._centroid))
        picked = [scores.pool[int(r)] for r in rows]
        return Candidates(rows, np.stack([p[0] for p in picked]), np.array([p[1] for p in picked]),
                          [p[2] for p in picked])

    def rank(self, scores: ShardedScores, game: str | None = None, k: int = 5, mode: str = "hybrid") -> list[Hit]:
        if game is not None:
            self.game(game)
        if scores.game is not None and game != scores.game:
            raise ValueError(f"scores of {scores.game!r} only, ranked for {game!r}")
        if self._rows == 0 or (game is not None and not self.manifest.corpus.passages_per_game.get(game)):
            return []
        found = self._game_candidates(scores, game) if game is not None else self._shelf_candidates(scores)
        if not len(found.rows):
            return []
        vectors = found.vectors.astype(np.float32) if self._exact else found.vectors
        dense = vectors @ scores.vector
        fused = fuse(dense, found.lexical, mode, self.fusion.method, self.fusion.dense_weight, self.fusion.rrf_k)
        order = np.lexsort((found.rows, -fused))[:k]
        return [Hit(found.passages[i], float(fused[i]), float(dense[i]), float(found.lexical[i])) for i in order]

    def likely_games(self, scores: ShardedScores, n: int) -> list[tuple[str, float]]:
        if n * CANDIDATES > SHELF_DEPTH:
            raise ValueError(f"the shards rank {SHELF_DEPTH} rows, not the {n * CANDIDATES} of {n} games")
        order = scores.dense_order[: CANDIDATES * n].tolist()
        seen: dict[str, int] = {}
        for r in order:
            seen.setdefault(scores.dense_games[r], r)
        return [(g, scores.dense_dots[r]) for g, r in list(seen.items())[:n]]
