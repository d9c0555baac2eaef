"""Orchestration only: corpus -> passages -> vectors + BM25 -> store."""

from __future__ import annotations

import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from collections.abc import Callable
from typing import TYPE_CHECKING

import numpy as np

from indexer import store
from indexer.analysis import analyze
from indexer.lexical import lexical_index
from indexer.locks import index_locked
from indexer.passages import load_passages
from indexer.passage_text import corpus_hash, embedding_text, lexical_text
from indexer.store import CorpusInfo, EmbeddingInfo, Manifest

if TYPE_CHECKING:
    from indexer.models import Embedder

# Up to this many passages the dense index is exact (IndexFlatIP; the service multiplies the vectors
# itself). Above, an inverted file over 8-bit scalar-quantised vectors (IVF-SQ8): a quarter of the memory
# of float32, trained and filled in seconds where HNSW took minutes on a shelf, so that updating one game
# stays cheap; a question with a game never uses it (it scores the game's own rows, service/engine/retrieval/single.py).
EXACT_SEARCH_MAX = 100_000
IVF_TRAIN_PER_LIST = 40  # k-means sample: this many vectors per inverted list
IVF_NITER = 10
MODEL_MAX_TOKENS = 512
BATCH = 32


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


def dense_kind(n: int) -> str:
    """The FAISS index type `dense_index` makes for n vectors."""
    return "IndexFlatIP" if n <= EXACT_SEARCH_MAX else f"IVF{int(np.sqrt(n))},SQ8"


def dense_index(vectors: np.ndarray):
    import faiss

    n, dim = vectors.shape
    vectors = np.ascontiguousarray(vectors, dtype=np.float32)
    kind = dense_kind(n)
    if kind == "IndexFlatIP":
        index = faiss.IndexFlatIP(dim)
        index.add(vectors)
        return index, kind
    nlist = int(np.sqrt(n))
    index = faiss.index_factory(dim, kind, faiss.METRIC_INNER_PRODUCT)
    faiss.extract_index_ivf(index).cp.niter = IVF_NITER
    sample = np.random.default_rng(0).choice(n, min(n, IVF_TRAIN_PER_LIST * nlist), replace=False)
    index.train(vectors[np.sort(sample)])
    for start in range(0, n, 65_536):  # added in chunks: no second full copy of the vectors
        index.add(vectors[start : start + 65_536])
    return index, kind


# Encodes passage texts (already prompted by the embedder) into L2-normalised float32 rows, in order,
# calling `progress(n)` as each n are done: the local loop below, or a cluster (indexer/ray_encode.py).
PassageEncoder = Callable[[list[str], Callable[[int], None]], np.ndarray]


def chunks(count: int, size: int = BATCH) -> list[range]:
    """The batch boundaries of an encoding: fixed, so that every encoder gives the model the same
    batches (a batch's padding changes the last bits of its vectors)."""
    return [range(start, min(start + size, count)) for start in range(0, count, size)]


def local_encoder(embedder: Embedder) -> PassageEncoder:
    def encode(texts: list[str], progress: Callable[[int], None]) -> np.ndarray:
        vectors = np.zeros((len(texts), embedder.dim), dtype=np.float32)
        for chunk in chunks(len(texts)):
            vectors[chunk.start : chunk.stop] = embedder.encode_passages(texts[chunk.start : chunk.stop])
            progress(len(chunk))
        return vectors

    return encode


def embed_passages(embedder: Embedder, texts: list[str], ids: list[str], reuse: dict, progress: bool,
                   encode: PassageEncoder | None = None) -> tuple[np.ndarray, int]:
    """Vectors for every text, encoding (by `encode`, locally by default) only those whose passage id has
    no reusable vector."""
    todo = [i for i, pid in enumerate(ids) if pid not in reuse]
    vectors = np.zeros((len(texts), embedder.dim), dtype=np.float32)
    for i, pid in enumerate(ids):
        if pid in reuse:
            vectors[i] = reuse[pid]
    bar = None
    if progress and todo:
        from tqdm import tqdm

        bar = tqdm(total=len(todo), desc="embeddings", unit="passage", file=sys.stderr)
    if todo:
        encoded = (encode or local_encoder(embedder))([texts[i] for i in todo], bar.update if bar else _ignore)
        if encoded.shape != (len(todo), embedder.dim):
            raise ValueError(f"the encoder returned {encoded.shape} for {len(todo)} passages")
        vectors[todo] = encoded
    if bar:
        bar.close()
    return vectors, len(todo)


def _ignore(_: int) -> None:
    pass


def truncated_passages(embedder: Embedder, texts: list[str], ids: list[str]) -> list[str]:
    """Ids of passages longer than the model reads (512 tokens for e5, its `max_tokens`): their vectors only see
    the beginning, while the lexical index still has all of the text. Split such paragraphs in the corpus."""
    count = getattr(embedder, "token_count", None)
    if count is None:
        return []
    limit = getattr(embedder, "max_tokens", MODEL_MAX_TOKENS)
    return [pid for pid, text in zip(ids, texts) if count(text) > limit]


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
    embedder runs (a family's folder, or an adapted e5, through onnxruntime). None for a model that is only
    named: a sentence-transformers name or path (RULESQA_MODEL), or a test's fake."""
    from indexer.models.description import MANIFEST, ONNX_FILE

    path = getattr(embedder, "path", None)
    if getattr(embedder, "backend", None) != "onnx" or path is None:
        return None
    path = Path(path)
    return path if (path / MANIFEST).is_file() and (path / ONNX_FILE).is_file() else None


def build_index(corpus: Path, out: Path, embedder: Embedder, progress: bool = True,
                encode: PassageEncoder | None = None) -> BuildResult:
    """Build the index of `corpus` into `out` (atomically, under the folder's lock: a concurrent build of the
    same folder waits); returns its manifest and build statistics. The embedder's model folder, when it is
    one of ours (`model_source`), goes into the index, so that loading it needs nothing else. `encode`
    encodes the passages (default: here, with `embedder`; indexer/ray_encode.py: on a Ray cluster)."""
    with index_locked(out):
        return _build_index(corpus, Path(out), embedder, progress, encode)


def _build_index(corpus: Path, out: Path, embedder: Embedder, progress: bool,
                 encode: PassageEncoder | None) -> BuildResult:
    started = time.perf_counter()
    built = prepare_index(corpus, [out], embedder, progress, encode)
    store.save(built.data, out)
    return BuildResult(store.read_manifest(out), built.stats(started))


@dataclass
class PreparedIndex:
    """Everything an index folder holds, computed but not yet written (store.save writes it; a sharded
    build, indexer/shelf.py, splits it first)."""

    data: store.IndexData
    encoded: int
    truncated: list[str]

    def stats(self, started: float) -> BuildStats:
        reused = len(self.data.passages) - self.encoded
        return BuildStats(self.encoded, reused, round(time.perf_counter() - started, 2), self.truncated)


def prepare_index(corpus: Path, previous: list[Path], embedder: Embedder, progress: bool = True,
                  encode: PassageEncoder | None = None, dense: bool = True) -> PreparedIndex:
    """The corpus parsed once, its passages encoded (reusing the vectors of the index folders `previous`
    made by the same model), the dense and lexical indexes and the manifest. Without `dense`, no FAISS
    index is built (a sharded build makes one per shard) and `data.dense` is None."""
    docs, passages = load_passages(corpus)
    games = [doc.game for doc in docs]
    by_id = {g.id: g for g in games}
    embedding = EmbeddingInfo.of(embedder)
    reuse = {pid: v for folder in previous for pid, v in store.load_vectors_for_reuse(folder, embedding).items()}
    form = embedder.passage_form
    texts, ids = [embedding_text(p, by_id[p.game], form) for p in passages], [p.id for p in passages]
    truncated = truncated_passages(embedder, texts, ids)
    if truncated:
        limit = getattr(embedder, "max_tokens", MODEL_MAX_TOKENS)
        print(f"attention : {len(truncated)} passage(s) de plus de {limit} jetons, tronqué(s) "
              f"pour l'embedding : {', '.join(truncated)}", file=sys.stderr)
    vectors, encoded = embed_passages(embedder, texts, ids, reuse, progress, encode)
    dense, kind = dense_index(vectors) if dense else (None, dense_kind(len(vectors)))
    tokens = [analyze(lexical_text(p, by_id[p.game])) for p in passages]
    lexical = lexical_index(tokens)
    manifest = make_manifest(embedding, games, passages, kind)
    return PreparedIndex(store.IndexData(manifest, passages, games, vectors, dense, lexical, tokens,
                                         model_dir=model_source(embedder)), encoded, truncated)
