"""Orchestration only: corpus -> passages -> vectors + BM25 -> store."""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from indexer import store
from indexer.analysis import analyze
from indexer.locks import index_locked
from indexer.passages import load_passages
from indexer.store import CorpusInfo, EmbeddingInfo, Manifest, corpus_hash, embedding_text, lexical_text

if TYPE_CHECKING:
    from indexer.e5 import Embedder

# Up to this many passages the dense index is exact (IndexFlatIP; the service multiplies the vectors
# itself). Above, an inverted file over 8-bit scalar-quantised vectors (IVF-SQ8): a quarter of the memory
# of float32, trained and filled in seconds where HNSW took minutes on a shelf, so that updating one game
# stays cheap; a question with a game never uses it (it scores the game's own rows, service/retrieval.py).
EXACT_SEARCH_MAX = 100_000
IVF_TRAIN_PER_LIST = 40  # k-means sample: this many vectors per inverted list
IVF_NITER = 10
MODEL_MAX_TOKENS = 512
BATCH = 32
BM25 = {"method": "lucene", "k1": 1.2, "b": 0.75}


@dataclass(frozen=True)
class BuildStats:
    encoded: int
    reused: int
    seconds: float
    truncated: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class BuildResult:
    manifest: Manifest
    stats: BuildStats


def dense_index(vectors: np.ndarray):
    import faiss

    n, dim = vectors.shape
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    if n <= EXACT_SEARCH_MAX:
        index = faiss.IndexFlatIP(dim)
        index.add(vectors)
        return index, "IndexFlatIP"
    nlist = int(np.sqrt(n))
    kind = f"IVF{nlist},SQ8"
    index = faiss.index_factory(dim, kind, faiss.METRIC_INNER_PRODUCT)
    faiss.extract_index_ivf(index).cp.niter = IVF_NITER
    sample = np.random.default_rng(0).choice(n, min(n, IVF_TRAIN_PER_LIST * nlist), replace=False)
    index.train(vectors[np.sort(sample)])
    for start in range(0, n, 65_536):  # added in chunks: no second full copy of the vectors
        index.add(vectors[start : start + 65_536])
    return index, kind


def lexical_index(tokens: list[list[str]]):
    """The BM25 index of passages already analysed (indexer.analysis.analyze)."""
    import bm25s

    retriever = bm25s.BM25(**BM25)
    # create_empty_token keeps a passage with no indexable word from breaking the matrix.
    retriever.index(tokens, show_progress=False)
    return retriever


def embed_passages(embedder: Embedder, texts: list[str], ids: list[str], reuse: dict, progress: bool) -> tuple[np.ndarray, int]:
    """Vectors for every text, encoding only those whose passage id has no reusable vector."""
    todo = [i for i, pid in enumerate(ids) if pid not in reuse]
    vectors = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    for i, pid in enumerate(ids):
        if pid in reuse:
            vectors[i] = reuse[pid]
    bar = None
    if progress and todo:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), desc="embeddings", unit="passage", file=sys.stderr)
    for start in range(0, len(todo), BATCH):
        chunk = todo[start : start + BATCH]
        vectors[chunk] = embedder.encode_passages([texts[i] for i in chunk])
        if bar:
            bar.update(len(chunk))
    if bar:
        bar.close()
    return vectors, len(todo)


def truncated_passages(embedder: Embedder, texts: list[str], ids: list[str]) -> list[str]:
    """Ids of passages longer than the model reads (512 tokens for e5): their vectors only see the
    beginning, while the lexical index still has all of the text. Split such paragraphs in the corpus."""
    count = getattr(embedder, "token_count", None)
    if count is None:
        return []
    return [pid for pid, text in zip(ids, texts) if count(text) > MODEL_MAX_TOKENS]


def make_manifest(embedding: EmbeddingInfo, games, passages, dense_kind: str) -> Manifest:
    return Manifest(
        embedding=embedding,
        corpus=CorpusInfo(corpus_hash(games, passages), len(games), len(passages),
                          dict(sorted(Counter(p.game for p in passages).items()))),
        dense_index=dense_kind,
        built_at=datetime.now(UTC).isoformat(timespec="seconds"),
    )


def model_source(embedder) -> Path | None:
    """The model folder an index built with `embedder` holds (store.py, model/): the folder of ours the
    embedder runs (the e5 folder, base or adapted, through onnxruntime). None for a model that is only
    named: a sentence-transformers name or path (RULESQA_MODEL), or a test's fake."""
    from indexer.e5.folder import MANIFEST, ONNX_FILE

    path = getattr(embedder, "path", None)
    if getattr(embedder, "backend", None) != "onnx" or path is None:
        return None
    path = Path(path)
    return path if (path / MANIFEST).is_file() and (path / ONNX_FILE).is_file() else None


def build_index(corpus: Path, out: Path, embedder: Embedder, progress: bool = True) -> BuildResult:
    """Build the index of `corpus` into `out` (atomically, under the folder's lock: a concurrent build of the
    same folder waits); returns its manifest and build statistics. The embedder's model folder, when it is
    one of ours (`model_source`), goes into the index, so that loading it needs nothing else."""
    with index_locked(out):
        return _build_index(corpus, Path(out), embedder, progress)


def _build_index(corpus: Path, out: Path, embedder: Embedder, progress: bool) -> BuildResult:
    started = time.perf_counter()
    docs, passages = load_passages(corpus)
    games = [doc.game for doc in docs]
    by_id = {g.id: g for g in games}
    embedding = EmbeddingInfo.of(embedder)
    reuse = store.load_vectors_for_reuse(out, embedding)
    texts, ids = [embedding_text(p, by_id[p.game]) for p in passages], [p.id for p in passages]
    truncated = truncated_passages(embedder, texts, ids)
    if truncated:
        print(f"attention : {len(truncated)} passage(s) de plus de {MODEL_MAX_TOKENS} jetons, tronqué(s) "
              f"pour l'embedding : {', '.join(truncated)}", file=sys.stderr)
    vectors, encoded = embed_passages(embedder, texts, ids, reuse, progress)
    dense, kind = dense_index(vectors)
    tokens = [analyze(lexical_text(p, by_id[p.game])) for p in passages]
    lexical = lexical_index(tokens)
    manifest = make_manifest(embedding, games, passages, kind)
    store.save(store.IndexData(manifest, passages, games, vectors, dense, lexical, tokens,
                               model_dir=model_source(embedder)), out)
    stats = BuildStats(encoded, len(passages) - encoded, round(time.perf_counter() - started, 2), truncated)
    return BuildResult(store.read_manifest(out), stats)
