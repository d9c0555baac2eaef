"""Combining the dense and lexical scores of the same candidates into one ranking score."""

import numpy as np

from service.engine.limits import MODES

__all__ = ["METHODS", "MODES", "fuse", "rrf", "weighted"]
METHODS = ("weighted", "rrf")


def _minmax(x: np.ndarray) -> np.ndarray:
    span = float(x.max() - x.min()) if len(x) else 0.0
    return (x - x.min()) / span if span > 0 else np.zeros_like(x)


def weighted(dense: np.ndarray, lexical: np.ndarray, dense_weight: float) -> np.ndarray:
    """Convex combination of the min-max normalised scores over the candidate set.

    BM25 scores have no fixed scale (they grow with query length), cosine scores live in a narrow band;
    normalising each over the candidates puts them on the same footing before weighting.
    """
    return dense_weight * _minmax(dense) + (1.0 - dense_weight) * _minmax(lexical)


def _ranks(scores: np.ndarray) -> np.ndarray:
    order = np.argsort(-scores, kind="stable")
    ranks = np.empty(len(scores), dtype=np.float64)
    ranks[order] = np.arange(1, len(scores) + 1)
    return ranks


def rrf(dense: np.ndarray, lexical: np.ndarray, k: int = 60) -> np.ndarray:
    """Reciprocal rank fusion: sum of 1 / (k + rank) over the two rankings."""
    return 1.0 / (k + _ranks(dense)) + 1.0 / (k + _ranks(lexical))


def fuse(dense: np.ndarray, lexical: np.ndarray, mode: str, method: str, dense_weight: float, rrf_k: int) -> np.ndarray:
    if mode == "dense":
        return dense.astype(np.float64)
    if mode == "lexical":
        return lexical.astype(np.float64)
    if method == "rrf":
        return rrf(dense, lexical, rrf_k)
    return weighted(dense, lexical, dense_weight)
