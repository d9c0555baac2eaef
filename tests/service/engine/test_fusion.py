import numpy as np
import pytest

from service.engine.retrieval.fusion import fuse, rrf, weighted


def test_weighted_is_a_convex_mix_of_minmax_scores():
    dense = np.array([0.9, 0.8, 0.7])  # minmax -> 1, .5, 0
    lexical = np.array([0.0, 4.0, 2.0])  # minmax -> 0, 1, .5
    assert weighted(dense, lexical, 0.5) == pytest.approx([0.5, 0.75, 0.25])
    assert weighted(dense, lexical, 1.0) == pytest.approx([1.0, 0.5, 0.0])


def test_weighted_with_constant_scores_gives_zero_not_nan():
    assert weighted(np.array([0.5, 0.5]), np.array([0.0, 0.0]), 0.7) == pytest.approx([0.0, 0.0])


def test_rrf_by_hand():
    dense = np.array([0.9, 0.1, 0.5])  # ranks 1, 3, 2
    lexical = np.array([1.0, 3.0, 2.0])  # ranks 3, 1, 2
    expected = [1 / 61 + 1 / 63, 1 / 63 + 1 / 61, 2 / 62]
    assert rrf(dense, lexical, k=60) == pytest.approx(expected)


def test_single_modes_pass_scores_through():
    dense, lexical = np.array([0.3, 0.2]), np.array([1.0, 5.0])
    assert list(fuse(dense, lexical, "dense", "weighted", 0.7, 60)) == [0.3, 0.2]
    assert list(fuse(dense, lexical, "lexical", "rrf", 0.7, 60)) == [1.0, 5.0]
