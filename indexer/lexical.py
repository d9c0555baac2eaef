"""The French BM25 index (bm25s): built, restricted to a shard's rows, and scored. The only module that reads
bm25s's own arrays (its postings in CSC form): the retrievers ask it for scores, never for its internals."""

from __future__ import annotations

import copy
from collections.abc import Sequence

import numpy as np

BM25 = {"method": "lucene", "k1": 1.2, "b": 0.75}


def lexical_index(tokens: list[list[str]]):
    """The BM25 index of passages already analysed (indexer.analysis.analyze)."""
    import bm25s

    retriever = bm25s.BM25(**BM25)
    # create_empty_token keeps a passage with no indexable word from breaking the matrix.
    retriever.index(tokens, show_progress=False)
    return retriever


def restrict(lexical, rows: np.ndarray):
    """The bm25s index of the rows `rows` (sorted) only, with the whole index's vocabulary and scores."""
    scores = lexical.scores
    data, indices, indptr = scores["data"], scores["indices"], scores["indptr"]
    keep = np.zeros(int(scores["num_docs"]), dtype=bool)
    keep[rows] = True
    kept = keep[indices]
    token_of = np.repeat(np.arange(len(indptr) - 1), np.diff(indptr))
    counts = np.bincount(token_of[kept], minlength=len(indptr) - 1)
    part = copy.copy(lexical)
    part.scores = {
        "data": data[kept],
        "indices": np.searchsorted(rows, indices[kept]).astype(indices.dtype),
        "indptr": np.concatenate([[0], np.cumsum(counts)]).astype(indptr.dtype),
        "num_docs": len(rows),
    }
    return part


class LexicalScores:
    """BM25 scores of a loaded bm25s index, over every row or over one range of rows."""

    def __init__(self, bm25):
        self._bm25 = bm25
        self._vocab = bm25.vocab_dict
        self.postings_sorted = _postings_sorted(bm25)

    def known(self, terms: Sequence[str]) -> list[str]:
        """The terms the index has (a question's other terms score nothing)."""
        return [t for t in terms if t in self._vocab]

    def scores(self, terms: Sequence[str], rows: int) -> np.ndarray:
        """Every row's score (float64) for terms the index knows; zeros without any."""
        if not terms:
            return np.zeros(rows)
        return np.asarray(self._bm25.get_scores(list(terms)), dtype=np.float64)

    def range_scores(self, terms: Sequence[str], lo: int, hi: int) -> np.ndarray:
        """The scores of rows lo..hi only, from each term's postings within the range (bm25s keeps them sorted
        by row, `postings_sorted`), added in the same order as bm25s does for the same floats."""
        lexical = np.zeros(hi - lo, dtype=np.dtype(self._bm25.dtype))
        if terms:
            bm25 = self._bm25.scores
            indices, data, indptr = bm25["indices"], bm25["data"], bm25["indptr"]
            for token in self._bm25.get_tokens_ids(list(terms)):
                start, end = int(indptr[token]), int(indptr[token + 1])
                a = start + int(np.searchsorted(indices[start:end], lo))
                b = start + int(np.searchsorted(indices[start:end], hi))
                np.add.at(lexical, indices[a:b] - lo, data[a:b])
        return lexical.astype(np.float64)


def _postings_sorted(bm25) -> bool:
    """Whether every term's postings are in row order, as bm25s writes them (checked, not assumed: a
    range search needs it)."""
    indices, indptr = bm25.scores["indices"], bm25.scores["indptr"]
    if len(indices) < 2:
        return True
    steps = np.diff(indices.astype(np.int64))
    # A step may go down only where a new term's postings start.
    starts = np.zeros(len(indices), dtype=bool)
    starts[np.asarray(indptr[1:-1], dtype=np.int64)[np.asarray(indptr[1:-1]) < len(indices)]] = True
    return bool(np.all((steps >= 0) | starts[1:]))
