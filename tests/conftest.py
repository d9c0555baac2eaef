"""Shared fixtures. Most tests use FakeEmbedder, a deterministic bag-of-stems hashing embedder, so they
need no model: texts sharing stems get close vectors, which is enough to exercise retrieval code."""

import hashlib
from pathlib import Path

import numpy as np
import pytest

from indexer.analysis import analyze
from indexer.defaults import REPO

CORPUS = REPO / "corpus"


class FakeEmbedder:
    model_id = "fake-hashing"
    dim = 64

    def __init__(self, salt: str = ""):
        self.salt = salt
        self.passage_calls: list[int] = []  # batch sizes given to encode_passages

    def fingerprint(self) -> str:
        return f"fake-{self.dim}-{self.salt}"

    def _vector(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        for term in analyze(text) or ["<vide>"]:
            seed = int.from_bytes(hashlib.sha256((self.salt + term).encode()).digest()[:8], "little")
            v += np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return v / (np.linalg.norm(v) or 1.0)

    def _encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts])

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts)

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        self.passage_calls.append(len(texts))
        return self._encode(texts)


@pytest.fixture
def fake_embedder():
    return FakeEmbedder()


@pytest.fixture
def corpus_dir() -> Path:
    return CORPUS


@pytest.fixture(scope="session")
def fake_index(tmp_path_factory) -> Path:
    """The real corpus indexed with the fake embedder, built once per session."""
    from indexer.build import build_index

    out = tmp_path_factory.mktemp("fake-index") / "index"
    build_index(CORPUS, out, FakeEmbedder(), progress=False)
    return out


# Real-model fixtures (tests marked `model`): the e5 folder is built once into the default location.
from model_fixtures import e5_engine, e5_model_dir  # noqa: E402,F401


@pytest.fixture(scope="session")
def real_embedder(e5_model_dir):  # noqa: F811 (the fixture imported above)
    from indexer.embed import load_embedder

    return load_embedder()


@pytest.fixture(scope="session")
def real_index(tmp_path_factory, real_embedder) -> Path:
    """The real corpus indexed with the real model, built once per session."""
    from indexer.build import build_index

    out = tmp_path_factory.mktemp("real-index") / "index"
    build_index(CORPUS, out, real_embedder, progress=False)
    return out
