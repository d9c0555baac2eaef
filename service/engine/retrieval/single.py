"""The single-index retriever: one index folder loaded in this process; ranks passages for a question.

A question is encoded and scored once (`score`): one encoding, one dense scoring of every passage (one
FAISS search when the index is approximate) and one BM25 scoring. The result can then be ranked for any
game and mode (`rank`) in memory, with no further search; routing and answering rank the same scores
several times.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from indexer import store
from indexer.lexical import LexicalScores
from indexer.passages import Passage
from service.engine.findings import Hit
from service.engine.phrases import folded
from service.engine.question import Question
from service.engine.retrieval.fusion import fuse
from service.engine.retrieval.mistake_rows import MistakeRows
from service.engine.retrieval.protocol import FusionConfig
from service.engine.retrieval.retrieve import RetrieverBase

# Candidates taken from each of the dense and lexical lists before fusion.
CANDIDATES = 50
# Inverted lists visited by a shelf-wide search of an IVF index (above EXACT_SEARCH_MAX passages), and the
# most games whose candidates one such search gathers (routing reads the first few games only).
NPROBE = 16
SHELF_SEARCH_GAMES = 40


@dataclass
class Scores:
    """Everything known about one question, computed once."""

    vector: np.ndarray
    terms: list[str]  # analyzed question terms found in the corpus vocabulary
    n_terms: int  # analyzed question terms, found or not
    lexical: np.ndarray  # BM25 score of every passage
    # Rows by descending cosine, ties by row (FAISS's order): every passage when the index is exact, else
    # those of the one approximate search (`rank` completes a game that gets too few of them).
    dense_order: np.ndarray
    # The first CANDIDATES rows with a positive BM25 score, by descending score, ties by row. Only these:
    # sorting every positive row took 20 ms for the 340,000 of a million-passage shelf. A game ranked from
    # scores of every game takes its own rows' from `lexical` (`_lexical_candidates`).
    lexical_order: np.ndarray
    # Set when only this game's passages were scored (`score(question, game)`): `lexical` then holds the
    # scores of rows offset .. offset + len(lexical) only.
    game: str | None = None
    offset: int = 0


class SingleIndexRetriever(RetrieverBase):
    def __init__(self, data: store.IndexData, embedder, fusion: FusionConfig | None = None):
        self.data = data
        self.embedder = embedder
        self.fusion = fusion or FusionConfig()
        self.passages = data.passages
        self._init_catalogue(data.games, data.centroid)
        self.words = data.words
        self.lexical = LexicalScores(data.lexical)
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
        self._mistakes = MistakeRows(data.passages, data.rows, self.game_ids)
        # The manifest says which FAISS index the build chose; only an exact one can be replaced by a product.
        self.exact = data.manifest.dense_index == "IndexFlatIP"
        if data.manifest.dense_index.startswith("IVF"):
            import faiss

            faiss.extract_index_ivf(data.dense).nprobe = NPROBE

    @classmethod
    def load(cls, folder: Path, embedder, fusion: FusionConfig | None = None) -> SingleIndexRetriever:
        return cls.from_data(store.load(folder), embedder, fusion)

    @classmethod
    def from_data(cls, data: store.IndexData, embedder, fusion: FusionConfig | None = None) -> SingleIndexRetriever:
        data.manifest.check_compatible(embedder)
        return cls(data, embedder, fusion)


    @property
    def manifest(self) -> store.Manifest:
        return self.data.manifest

    def rows_of(self, game_id: str) -> np.ndarray:
        """The game's rows (sorted)."""
        return self._rows_of_game[self.game(game_id).id]

    def games_of(self, rows: np.ndarray) -> list[str]:
        return [self.game_ids[g] for g in self._game_of_row[rows]]

    def passage(self, game_id: str, passage_id: str) -> Passage | None:
        """The passage `passage_id` of the game, read from that game's rows only; None if it has none such."""
        return next((p for p in map(self.passages.__getitem__, self.rows_of(game_id).tolist())
                     if p.id == passage_id), None)

    def _read_vocabulary(self, game_id: str) -> tuple[str, frozenset[str]]:
        """The game's folded text and words, from its own rows only (kept by RetrieverBase)."""
        from indexer.analysis import folded_words

        rows = self.rows_of(game_id).tolist()
        texts = [f"{p.section or ''}\n{p.text}" for p in map(self.passages.__getitem__, rows) if not p.is_card]
        text = folded("\n".join(texts))
        return text, folded_words(text.split())

    def card(self, game_id: str) -> Passage | None:
        rows = self.rows_of(game_id)
        first = self.passages[int(rows[0])] if len(rows) else None
        return first if first is not None and first.is_card else None

    def score(self, question: Question, game: str | None = None, vector: np.ndarray | None = None) -> Scores:
        if vector is None:
            vector = self.embedder.encode_queries([question.text])[0]
        terms = self.lexical.known(question.terms)
        if game is not None:
            self.game(game)
            if game in self._range_of_game and self.lexical.postings_sorted:
                lo, hi = self._range_of_game[game]
                cosines = self.data.vectors[lo:hi] @ vector
                dense_order = lo + np.argsort(-cosines, kind="stable")
                lexical = self.lexical.range_scores(terms, lo, hi)
                return Scores(vector, terms, len(question.terms), lexical, dense_order,
                              lo + top_rows(lexical, CANDIDATES), game, lo)
        lexical = self.lexical.scores(terms, len(self.passages))
        return Scores(vector, terms, len(question.terms), lexical, self._dense_order(vector),
                      top_rows(lexical, CANDIDATES))

    def best_lexical(self, question: Question, game: str) -> float:
        terms = self.lexical.known(question.terms)
        if not terms:
            return 0.0
        if game in self._range_of_game and self.lexical.postings_sorted:
            scores = self.lexical.range_scores(terms, *self._range_of_game[game])
        else:
            scores = self.lexical.scores(terms, len(self.passages))[self.rows_of(game)]
        return float(scores.max()) if len(scores) else 0.0

    def _dense_order(self, vector: np.ndarray) -> np.ndarray:
        """Rows by descending cosine to the question, ties by row (as FAISS's flat search keeps them)."""
        if self.exact:
            # Where the index is exact, one matrix-vector product gives the same order, cheaper than FAISS.
            return np.argsort(-(self.data.vectors @ vector), kind="stable")
        return self.dense_ranking(vector)[0]

    def dense_ranking(self, vector: np.ndarray, depth: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        """(rows, cosines) by descending cosine, at most `depth` of them: every row when the index is exact,
        else one approximate search over all games, deep enough for the usual per-game filtering."""
        if self.exact:
            cosines = self.data.vectors @ vector
            order = np.argsort(-cosines, kind="stable")
            return order, cosines[order[:depth]]
        n = min(len(self.passages), CANDIDATES * max(1, min(len(self.game_ids), SHELF_SEARCH_GAMES)))
        distances, ids = self.data.dense.search(vector[None, :].astype(np.float32), n)
        keep = ids[0] >= 0
        return ids[0][keep], distances[0][keep][:depth]

    def likely_games(self, scores: Scores, n: int) -> list[tuple[str, float]]:
        order = scores.dense_order[: CANDIDATES * n]
        games, first = np.unique(self._game_of_row[order], return_index=True)
        best = order[np.sort(first)[:n]]
        return [(self.game_ids[self._game_of_row[r]], float(self.data.vectors[r] @ scores.vector)) for r in best]

    def mistakes(self, vector: np.ndarray, game: str) -> tuple[tuple[Passage, float], ...]:
        return self._mistakes.ranked(self.data.vectors, vector, game)

    def candidate_rows(self, scores: Scores, game: str | None) -> np.ndarray:
        """The rows a ranking fuses: the game's (or every game's) CANDIDATES nearest by cosine and CANDIDATES
        best by BM25 (positive only), from `scores` alone; sorted, each once."""
        rows = self.rows_of(game) if game is not None else None
        return np.unique(np.concatenate([self._dense_candidates(scores, game, rows),
                                         self._lexical_candidates(scores, game, rows)]))

    def _dense_candidates(self, scores: Scores, game: str | None, rows: np.ndarray | None) -> np.ndarray:
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
        return rows[top_rows(scores.lexical[rows], CANDIDATES)]

    def rank(self, scores: Scores, game: str | None = None, k: int = 5, mode: str = "hybrid") -> list[Hit]:
        rows = self.rows_of(game) if game is not None else None
        if scores.game is not None and game != scores.game:
            raise ValueError(f"scores of {scores.game!r} only, ranked for {game!r}")
        if len(self.passages) == 0 or (rows is not None and len(rows) == 0):
            return []
        candidates = self.candidate_rows(scores, game)
        # Exact cosine for every candidate, including those found only lexically (vectors are normalised).
        dense = self.data.vectors[candidates] @ scores.vector
        lexical = scores.lexical[candidates - scores.offset]
        fused = fuse(dense, lexical, mode, self.fusion.method, self.fusion.dense_weight, self.fusion.rrf_k)
        order = np.lexsort((candidates, -fused))[:k]
        return [
            Hit(self.passages[candidates[i]], float(fused[i]), float(dense[i]), float(lexical[i])) for i in order
        ]


def top_rows(values: np.ndarray, k: int) -> np.ndarray:
    """Indices of the k highest positive values, by descending value, ties by index: the first k of a
    stable sort of every positive value, without sorting them all."""
    positive = np.flatnonzero(values > 0)
    if len(positive) > k:
        kth = np.partition(values[positive], len(positive) - k)[len(positive) - k]  # the k-th highest
        positive = positive[values[positive] >= kth]  # every row tied with it too, for ties by index
    return positive[np.argsort(-values[positive], kind="stable")][:k]
