"""Retriever: loaded once from an index folder; ranks passages for a question.

A question is encoded and scored once (`score`): one encoding, one dense scoring of every passage (one
FAISS search when the index is approximate) and one BM25 scoring. The result can then be ranked for any
game and mode (`rank`) in memory, with no further search; routing and answering rank the same scores
several times.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from indexer import store
from indexer.analysis import analyze, folded_words
from indexer.corpus import Game
from indexer.errors import QuestionError, UnknownGameError
from indexer.passages import Passage
from service.engine.retrieval.fusion import METHODS, MODES, fuse
from service.engine.phrases import folded

if TYPE_CHECKING:
    from indexer.e5 import Embedder

# Candidates taken from each of the dense and lexical lists before fusion.
CANDIDATES = 50
# Inverted lists visited by a shelf-wide search of an IVF index (above EXACT_SEARCH_MAX passages), and the
# most games whose candidates one such search gathers (routing reads the first few games only).
NPROBE = 16
SHELF_SEARCH_GAMES = 40
GAME_WORDS_KEPT = 256


@dataclass(frozen=True)
class FusionConfig:
    """Chosen by measurement on the eval's dev split (docs/EVAL.md)."""

    method: str = "weighted"
    dense_weight: float = 0.7
    rrf_k: int = 60

    def __post_init__(self):
        # A typo in service/engine/data/calibration.json must not silently fall back to another fusion.
        if self.method not in METHODS:
            raise ValueError(f"fusion inconnue {self.method!r} (méthodes : {', '.join(METHODS)})")


@dataclass(frozen=True)
class Hit:
    passage: Passage
    score: float
    dense: float
    lexical: float


@dataclass
class Scores:
    """Everything known about one question, computed once."""

    vector: np.ndarray
    terms: list[str]  # analyzed question terms found in the corpus vocabulary
    n_terms: int  # analyzed question terms, found or not
    lexical: np.ndarray  # BM25 score of every passage
    # Rows by descending cosine, ties by row (FAISS's order): every passage when the index is exact, else
    # those of the one approximate search (`Retriever.rank` completes a game that gets too few of them).
    dense_order: np.ndarray
    # The first CANDIDATES rows with a positive BM25 score, by descending score, ties by row. Only these:
    # sorting every positive row took 20 ms for the 340,000 of a million-passage shelf. A game ranked from
    # scores of every game takes its own rows' from `lexical` (Retriever._lexical_candidates).
    lexical_order: np.ndarray
    # Set when only this game's passages were scored (`Retriever.score(question, game)`): `lexical` then
    # holds the scores of rows offset .. offset + len(lexical) only.
    game: str | None = None
    offset: int = 0


@dataclass(frozen=True)
class Evidence:
    """How strongly the corpus supports the top passage; the abstention decision reads these."""

    top: float  # cosine of the question and the top passage
    lift: float  # that cosine minus the question's mean cosine to all passages
    coverage: float  # share of the question's terms that occur anywhere in the corpus
    rerank: float | None = None  # the reranker's score of the top passage, when one judges (service/engine/judge.py)


class Retriever:
    def __init__(self, data: store.IndexData, embedder: Embedder, fusion: FusionConfig | None = None):
        self.data = data
        self.embedder = embedder
        self.fusion = fusion or FusionConfig()
        self.passages = data.passages
        self.games = data.games
        self.game_ids = [g.id for g in data.games]
        self._games = {g.id: g for g in data.games}
        # mean(V @ q) == mean(V) @ q: the mean cosine to all passages costs one dot product. Stored by the
        # build (store.centroid): computing it here would read every vector of a memory-mapped shelf.
        self._centroid = data.centroid
        # The game of each row, as an index into game_ids: filtering a ranking by game is one comparison.
        self._game_index = {gid: gi for gi, gid in enumerate(self.game_ids)}
        self._game_of_row = np.asarray(data.rows.game, dtype=np.int32)
        # Rows of each game in one pass (a shelf has thousands of games and a million rows).
        order = np.argsort(self._game_of_row, kind="stable")
        bounds = np.searchsorted(self._game_of_row[order], np.arange(len(self.game_ids) + 1))
        self._rows_of_game = {gid: order[bounds[gi]:bounds[gi + 1]].astype(np.int64)
                              for gi, gid in enumerate(self.game_ids)}
        # The build writes each game's passages together: a game is then one row range, which a question
        # with a game scores alone, at a cost that does not grow with the shelf.
        self._range_of_game = {
            gid: (int(rows[0]), int(rows[-1]) + 1) for gid, rows in self._rows_of_game.items()
            if len(rows) and rows[-1] - rows[0] + 1 == len(rows)
        }
        self._postings_sorted = _postings_sorted(data.lexical)
        self._game_words: dict[str, tuple[str, frozenset[str]]] = {}
        # The manifest says which FAISS index the build chose; only an exact one can be replaced by a product.
        self._exact = data.manifest.dense_index == "IndexFlatIP"
        if data.manifest.dense_index.startswith("IVF"):
            import faiss

            faiss.extract_index_ivf(data.dense).nprobe = NPROBE

    @classmethod
    def load(cls, folder: Path, embedder: Embedder, fusion: FusionConfig | None = None) -> Retriever:
        return cls.from_data(store.load(folder), embedder, fusion)

    @classmethod
    def from_data(cls, data: store.IndexData, embedder: Embedder, fusion: FusionConfig | None = None) -> Retriever:
        data.manifest.check_compatible(embedder)
        return cls(data, embedder, fusion)

    def with_fusion(self, fusion: FusionConfig) -> Retriever:
        """The same loaded index and model, ranked with another fusion."""
        other = copy.copy(self)
        other.fusion = fusion
        return other

    def with_embedder(self, embedder: Embedder) -> Retriever:
        """The same loaded index, questions encoded by `embedder` (the same model, e.g. batched)."""
        other = copy.copy(self)
        other.embedder = embedder
        return other

    @property
    def manifest(self) -> store.Manifest:
        return self.data.manifest

    def game(self, game_id: str) -> Game:
        try:
            return self._games[game_id]
        except KeyError:
            raise UnknownGameError(game_id, self.game_ids) from None

    def passage(self, game_id: str, passage_id: str) -> Passage | None:
        """The passage `passage_id` of the game, read from that game's rows only; None if it has none such."""
        self.game(game_id)
        return next((p for p in map(self.passages.__getitem__, self._rows_of_game[game_id].tolist())
                     if p.id == passage_id), None)

    def game_words(self, game_id: str) -> frozenset[str]:
        """The folded words of the game's rule passages and sections (its card aside)."""
        return self._game_vocabulary(game_id)[1]

    def game_text(self, game_id: str) -> str:
        """The game's rule passages and sections (its card aside), folded (service/engine/phrases.py)."""
        return self._game_vocabulary(game_id)[0]

    def _game_vocabulary(self, game_id: str) -> tuple[str, frozenset[str]]:
        # Read once per game and kept for the GAME_WORDS_KEPT games asked about last: a question reads its
        # own game's passages, never the shelf's.
        known = self._game_words.get(game_id)
        if known is None:
            rows = self._rows_of_game[self.game(game_id).id].tolist()
            texts = [f"{p.section or ''}\n{p.text}" for p in map(self.passages.__getitem__, rows) if not p.is_card]
            text = folded("\n".join(texts))
            known = (text, folded_words(text.split()))
            if len(self._game_words) >= GAME_WORDS_KEPT:
                self._game_words.pop(next(iter(self._game_words)))
            self._game_words[game_id] = known
        return known

    def card(self, game_id: str) -> Passage | None:
        """The game's card passage (indexer/game_card.py): the first of its rows when it has one."""
        rows = self._rows_of_game[self.game(game_id).id]
        first = self.passages[int(rows[0])] if len(rows) else None
        return first if first is not None and first.is_card else None

    def score(self, question: str, game: str | None = None) -> Scores:
        """The question's scores over every passage, or over one game's passages only when `game` is
        given (then only that game can be ranked from them)."""
        vector = self.embedder.encode_queries([question])[0]
        analyzed = analyze(question)
        terms = [t for t in analyzed if t in self.data.lexical.vocab_dict]
        if game is not None:
            self.game(game)
            if game in self._range_of_game and self._postings_sorted:
                return self._score_range(vector, terms, len(analyzed), game, *self._range_of_game[game])
        if terms:
            lexical = np.asarray(self.data.lexical.get_scores(terms), dtype=np.float64)
        else:
            lexical = np.zeros(len(self.passages))
        return Scores(vector, terms, len(analyzed), lexical, self._dense_order(vector), _top(lexical, CANDIDATES))

    def _score_range(self, vector: np.ndarray, terms: list[str], n_terms: int, game: str, lo: int, hi: int) -> Scores:
        """Scores of rows lo..hi only: a slice of the vectors, and each term's postings within the range."""
        cosines = self.data.vectors[lo:hi] @ vector
        dense_order = lo + np.argsort(-cosines, kind="stable")
        lexical = self._bm25_range(terms, lo, hi)
        return Scores(vector, terms, n_terms, lexical, dense_order, lo + _top(lexical, CANDIDATES), game, lo)

    def _bm25_range(self, terms: list[str], lo: int, hi: int) -> np.ndarray:
        """BM25 of rows lo..hi from each term's postings within the range (bm25s keeps them sorted by row),
        added in the same order as bm25s does for the same floats."""
        lexical = np.zeros(hi - lo, dtype=np.dtype(self.data.lexical.dtype))
        if terms:
            bm25 = self.data.lexical.scores
            indices, data, indptr = bm25["indices"], bm25["data"], bm25["indptr"]
            for token in self.data.lexical.get_tokens_ids(terms):
                start, end = int(indptr[token]), int(indptr[token + 1])
                a = start + int(np.searchsorted(indices[start:end], lo))
                b = start + int(np.searchsorted(indices[start:end], hi))
                np.add.at(lexical, indices[a:b] - lo, data[a:b])
        return lexical.astype(np.float64)

    def best_lexical(self, question: str, game: str) -> float:
        """The best BM25 score of the question among the game's passages (no encoding: routing compares
        games by it)."""
        terms = [t for t in analyze(question) if t in self.data.lexical.vocab_dict]
        if not terms:
            return 0.0
        if game in self._range_of_game and self._postings_sorted:
            scores = self._bm25_range(terms, *self._range_of_game[game])
        else:
            scores = np.asarray(self.data.lexical.get_scores(terms), dtype=np.float64)[self._rows_of_game[game]]
        return float(scores.max()) if len(scores) else 0.0

    def _dense_order(self, vector: np.ndarray) -> np.ndarray:
        """Rows by descending cosine to the question, ties by row (as FAISS's flat search keeps them)."""
        if self._exact:
            # Where the index is exact, one matrix-vector product gives the same order, cheaper than FAISS.
            return np.argsort(-(self.data.vectors @ vector), kind="stable")
        # One approximate search over all games, deep enough for the usual per-game filtering.
        n = min(len(self.passages), CANDIDATES * max(1, min(len(self.game_ids), SHELF_SEARCH_GAMES)))
        _, ids = self.data.dense.search(vector[None, :].astype(np.float32), n)
        return ids[0][ids[0] >= 0]

    def likely_games(self, scores: Scores, n: int) -> list[tuple[str, float]]:
        """The n games whose best passage is nearest to the question, with that cosine, best first."""
        order = scores.dense_order[: CANDIDATES * n]
        games, first = np.unique(self._game_of_row[order], return_index=True)
        best = order[np.sort(first)[:n]]
        return [(self.game_ids[self._game_of_row[r]], float(self.data.vectors[r] @ scores.vector)) for r in best]

    def coverage(self, scores: Scores) -> float:
        """Share of the question's terms that occur anywhere in the corpus."""
        return len(scores.terms) / scores.n_terms if scores.n_terms else 0.0

    def evidence(self, scores: Scores, hit: Hit) -> Evidence:
        return Evidence(hit.dense, hit.dense - float(self._centroid @ scores.vector), self.coverage(scores))

    def _dense_candidates(self, scores: Scores, game: str | None, rows: np.ndarray | None) -> np.ndarray:
        """The CANDIDATES rows of the game (or of all games) nearest to the question, from `scores` only."""
        order = scores.dense_order
        if game is not None:
            order = order[self._game_of_row[order] == self._game_index[game]]
        pool = rows if rows is not None else np.arange(len(self.passages))
        if len(order) < min(CANDIDATES, len(pool)):
            # Approximate index only: too few of the game's rows in the one search; their exact cosines.
            order = pool[np.argsort(-(self.data.vectors[pool] @ scores.vector), kind="stable")]
        return order[:CANDIDATES]

    def _lexical_candidates(self, scores: Scores, game: str | None, rows: np.ndarray | None) -> np.ndarray:
        if game is None or scores.game is not None:  # every game's best, or the scored game's own
            return scores.lexical_order[:CANDIDATES]
        # The game's rows are in row order, so this is a shelf-wide ranking filtered to the game.
        return rows[_top(scores.lexical[rows], CANDIDATES)]

    def rank(self, scores: Scores, game: str | None = None, k: int = 5, mode: str = "hybrid") -> list[Hit]:
        if mode not in MODES:
            raise QuestionError(f"mode inconnu « {mode} » (modes : {', '.join(MODES)})")
        rows = None
        if game is not None:
            self.game(game)
            rows = self._rows_of_game[game]
        if scores.game is not None and game != scores.game:
            raise ValueError(f"scores of {scores.game!r} only, ranked for {game!r}")
        if len(self.passages) == 0 or (rows is not None and len(rows) == 0):
            return []
        # Top CANDIDATES by cosine ∪ top CANDIDATES with a positive BM25 score, filtered in memory.
        candidates = np.unique(np.concatenate([self._dense_candidates(scores, game, rows),
                                               self._lexical_candidates(scores, game, rows)]))
        # Exact cosine for every candidate, including those found only lexically (vectors are normalised).
        dense = self.data.vectors[candidates] @ scores.vector
        lexical = scores.lexical[candidates - scores.offset]
        fused = fuse(dense, lexical, mode, self.fusion.method, self.fusion.dense_weight, self.fusion.rrf_k)
        order = np.lexsort((candidates, -fused))[:k]
        return [
            Hit(self.passages[candidates[i]], float(fused[i]), float(dense[i]), float(lexical[i])) for i in order
        ]


def _top(values: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k highest positive values, by descending value, ties by index: the first k of a
    stable sort of every positive value, without sorting them all."""
    positive = np.flatnonzero(values > 0)
    if len(positive) > k:
        kth = np.partition(values[positive], len(positive) - k)[len(positive) - k]  # the k-th highest
        positive = positive[values[positive] >= kth]  # every row tied with it too, for ties by index
    return positive[np.argsort(-values[positive], kind="stable")][:k]


def _postings_sorted(lexical) -> bool:
    """Whether every term's postings are in row order, as bm25s writes them (checked, not assumed: a
    range search needs it)."""
    indices, indptr = lexical.scores["indices"], lexical.scores["indptr"]
    if len(indices) < 2:
        return True
    steps = np.diff(indices.astype(np.int64))
    # A step may go down only where a new term's postings start.
    starts = np.zeros(len(indices), dtype=bool)
    starts[np.asarray(indptr[1:-1], dtype=np.int64)[np.asarray(indptr[1:-1]) < len(indices)]] = True
    return bool(np.all((steps >= 0) | starts[1:]))
