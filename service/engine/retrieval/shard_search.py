"""The shard side of a shelf in shards (indexer/shelf.py): `ShardSearch` holds one shard folder and answers for
its games, the candidates of one game (a question with a game, or the game retrieval routed to), or its best
rows for a question naming no game, numbered as in the single index of the shelf. A shard is reached through
a client (`ShardClient`, shard_client.py): in process (`LocalShard`), or a Ray Serve handle (service/cluster/).
The front side, which merges them, is sharded.py.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Generic, TypeVar

import numpy as np

from indexer import store
from indexer.errors import IndexMismatchError
from indexer.passages import Passage
from indexer.shelf import read_shelf
from service.engine.question import Question
from service.engine.retrieval.mistake_rows import is_mistakes_section
from service.engine.retrieval.single import CANDIDATES, Scores, SingleIndexRetriever, top_rows

# How deep each shard's dense ranking goes for a question naming no game: the routing reads the games
# of the first CANDIDATES * AMBIGUOUS_GAMES rows (service/engine/answerer.py: likely_games).
SHELF_DEPTH = CANDIDATES * 3
# A shard's common-mistake passages: (single-index rows, sections, float16 vectors, passages).
MistakeParts = tuple[np.ndarray, list[str | None], np.ndarray, list[Passage]]
T = TypeVar("T")


@dataclass
class Candidates:
    """Rows of one game or of the shelf that a ranking fuses: single-index row numbers (sorted), stored
    vectors, BM25 scores and passages."""

    rows: np.ndarray
    vectors: np.ndarray  # float16, as stored
    lexical: np.ndarray  # float64
    passages: list[Passage]

    @classmethod
    def empty(cls, dim: int) -> Candidates:
        return cls(np.zeros(0, np.int64), np.zeros((0, dim), np.float16), np.zeros(0), [])


@dataclass
class GameResult:
    version: str
    terms: list[str]
    n_terms: int
    candidates: Candidates


@dataclass
class ShelfResult:
    version: str
    terms: list[str]
    n_terms: int
    dense_rows: np.ndarray  # the shard's best rows by cosine (single-index numbers), best first
    dense_cosines: np.ndarray  # their cosines as the shard's ranking computed them (for the merge)
    dense_dots: np.ndarray  # vector · question one row at a time (what Retriever.likely_games reports)
    dense_games: list[str]
    lexical_rows: np.ndarray
    lexical_scores: np.ndarray
    pool: Candidates  # the rows of the first CANDIDATES of both lists
    top_game: str | None  # the game of the shard's best row, and its candidates from these scores
    top_candidates: Candidates | None


class ShardSearch:
    """One shard folder, loaded once. Its rows are numbered as in the single index of the shelf."""

    def __init__(self, shelf_folder: Path, index: int):
        shelf = read_shelf(shelf_folder)
        self.info = shelf.shards[index]
        data = store.load(Path(shelf_folder) / self.info.folder)
        if data.manifest.corpus.hash != self.info.corpus_hash:
            raise IndexMismatchError(f"le shard {self.info.folder} ne correspond pas au catalogue : {store.REBUILD_HINT}")
        self.data = data
        self.retriever = SingleIndexRetriever(data, embedder=None)
        self.version = self.info.corpus_hash
        self.global_rows = np.zeros(len(data.passages), dtype=np.int64)
        for game, start in zip(self.info.games, self.info.starts):
            rows = self.retriever.rows_of(game)
            self.global_rows[rows] = start + np.arange(len(rows))

    def _candidates(self, local: np.ndarray, scores: Scores) -> Candidates:
        local = np.unique(local)
        return Candidates(self.global_rows[local], np.asarray(self.data.vectors[local], dtype=np.float16),
                          np.asarray(scores.lexical[local - scores.offset], dtype=np.float64),
                          [self.data.passages[int(r)] for r in local])

    def _game_candidates(self, scores: Scores, game: str) -> Candidates:
        if not len(self.retriever.rows_of(game)):
            return Candidates.empty(self.data.vectors.shape[1])
        return self._candidates(self.retriever.candidate_rows(scores, game), scores)

    def game(self, question: str, vector: np.ndarray, game: str) -> GameResult:
        """The candidates of `game` for the question, as `SingleIndexRetriever.score(question, game)` then `rank`."""
        scores = self.retriever.score(Question.of(question), game, np.asarray(vector, dtype=np.float32))
        return GameResult(self.version, scores.terms, scores.n_terms, self._game_candidates(scores, game))

    def shelf(self, question: str, vector: np.ndarray, depth: int = SHELF_DEPTH) -> ShelfResult:
        """The shard's part of a shelf-wide scoring (`SingleIndexRetriever.score(question)`): its best rows by
        cosine and by BM25, the candidates they bring, and those of its best game."""
        vector = np.asarray(vector, dtype=np.float32)
        analysed = Question.of(question)
        terms = self.retriever.lexical.known(analysed.terms)
        lexical = self.retriever.lexical.scores(terms, len(self.data.passages))
        order, values = self.retriever.dense_ranking(vector, depth)
        scores = Scores(vector, terms, len(analysed.terms), lexical, order, top_rows(lexical, CANDIDATES))
        top = order[:depth]
        top_game = self.retriever.games_of(top[:1])[0] if len(top) else None
        return ShelfResult(
            self.version, terms, len(analysed.terms), self.global_rows[top], np.asarray(values, dtype=np.float32),
            np.array([float(self.data.vectors[r] @ vector) for r in top]), self.retriever.games_of(top),
            self.global_rows[scores.lexical_order], lexical[scores.lexical_order],
            self._candidates(np.concatenate([order[:CANDIDATES], scores.lexical_order]), scores),
            top_game, self._game_candidates(scores, top_game) if top_game else None)

    def shelf_game(self, question: str, vector: np.ndarray, game: str) -> GameResult:
        """The candidates of `game` from shelf-wide scores (as `rank(score(question), game)`)."""
        result = self.shelf(question, vector)
        if result.top_game == game:
            return GameResult(self.version, result.terms, result.n_terms, result.top_candidates)
        scores = self.retriever.score(Question.of(question), None, np.asarray(vector, dtype=np.float32))
        return GameResult(self.version, scores.terms, scores.n_terms, self._game_candidates(scores, game))

    def passage(self, game: str, passage_id: str) -> Passage | None:
        return self.retriever.passage(game, passage_id)

    def vocabulary(self, game: str) -> tuple[str, frozenset[str]]:
        """The game's folded text and words (SingleIndexRetriever.game_text, game_words)."""
        return self.retriever.game_text(game), self.retriever.game_words(game)

    def card(self, game: str) -> Passage | None:
        return self.retriever.card(game)

    def best_lexical(self, question: str, game: str) -> float:
        # The shard's BM25 is the shelf's restricted to its rows: the same score as the single index's.
        return self.retriever.best_lexical(Question.of(question), game)

    def mistakes(self) -> MistakeParts:
        """(single-index rows, sections, float16 vectors, passages) of the shard's common-mistake passages."""
        rows = self.data.rows
        marked = [i for i, s in enumerate(rows.sections) if is_mistakes_section(s)]
        local = np.flatnonzero(np.isin(rows.section, marked))
        return (self.global_rows[local], [rows.sections[rows.section[r]] for r in local],
                np.asarray(self.data.vectors[local], dtype=np.float16), [self.data.passages[int(r)] for r in local])


class Done(Generic[T]):
    """An answer already there (a `Pending` of shard_client.py): what a shard in this process returns."""

    def __init__(self, value: T):
        self.value = value

    def result(self) -> T:
        return self.value


class LocalShard:
    """A shard in this process: a `ShardClient` (shard_client.py) whose answers are there at once."""

    def __init__(self, search: ShardSearch):
        self.search = search

    def game(self, question: str, vector: np.ndarray, game: str) -> Done[GameResult]:
        return Done(self.search.game(question, vector, game))

    def shelf(self, question: str, vector: np.ndarray) -> Done[ShelfResult]:
        return Done(self.search.shelf(question, vector))

    def shelf_game(self, question: str, vector: np.ndarray, game: str) -> Done[GameResult]:
        return Done(self.search.shelf_game(question, vector, game))

    def passage(self, game: str, passage_id: str) -> Done[Passage | None]:
        return Done(self.search.passage(game, passage_id))

    def vocabulary(self, game: str) -> Done[tuple[str, frozenset[str]]]:
        return Done(self.search.vocabulary(game))

    def card(self, game: str) -> Done[Passage | None]:
        return Done(self.search.card(game))

    def best_lexical(self, question: str, game: str) -> Done[float]:
        return Done(self.search.best_lexical(question, game))

    def mistakes(self) -> Done[MistakeParts]:
        return Done(self.search.mistakes())


def local_shards(folder: Path) -> list[LocalShard]:
    """Every shard of the sharded index `folder`, loaded in this process."""
    return [LocalShard(ShardSearch(folder, i)) for i in range(len(read_shelf(folder).shards))]
