"""Orchestration only: corpus -> passages -> vectors + BM25 -> store."""

from __future__ import annotations

import hashlib
import json
import sys
import time
from collections import Counter
from dataclasses import asdict
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import numpy as np

from indexer import store
from indexer.analysis import ANALYZER_VERSION, analyze
from indexer.corpus import Game
from indexer.passages import Passage, load_passages

if TYPE_CHECKING:
    from indexer.embed import Embedder

# Up to this many passages the dense index is exact (IndexFlatIP); above, HNSW keeps queries fast.
EXACT_SEARCH_MAX = 100_000
HNSW_M = 32
MODEL_MAX_TOKENS = 512
BATCH = 32
# Bump when embedding_text() changes: stored vectors of unchanged passages are then not reused.
PASSAGE_TEMPLATE = 1


def embedding_text(passage: Passage, game: Game) -> str:
    # The game and section give the model context a bare bullet lacks ("Aux points" alone says little).
    header = " · ".join(x for x in (game.title, passage.section) if x)
    return f"{header}\n{passage.text}"


def lexical_text(passage: Passage, game: Game) -> str:
    return f"{game.title} {passage.section or ''}\n{passage.text}"


def corpus_hash(games: list[Game], passages: list[Passage]) -> str:
    canonical = json.dumps(
        {
            "games": [{k: v for k, v in asdict(g).items() if k != "path"} for g in games],
            "passages": [p.to_dict() for p in passages],
        },
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


def dense_index(vectors: np.ndarray):
    import faiss

    n, dim = vectors.shape
    if n <= EXACT_SEARCH_MAX:
        index, kind = faiss.IndexFlatIP(dim), "IndexFlatIP"
    else:
        index, kind = faiss.IndexHNSWFlat(dim, HNSW_M, faiss.METRIC_INNER_PRODUCT), f"IndexHNSWFlat(M={HNSW_M})"
    index.add(vectors)
    return index, kind


def lexical_index(texts: list[str]):
    import bm25s

    retriever = bm25s.BM25(method="lucene", k1=1.2, b=0.75)
    # create_empty_token keeps a passage with no indexable word from breaking the matrix.
    retriever.index([analyze(t) for t in texts], show_progress=False)
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


def build_index(corpus: Path, out: Path, embedder: Embedder, progress: bool = True) -> dict:
    """Build the index of `corpus` into `out` (atomically); returns the manifest with build statistics."""
    started = time.perf_counter()
    docs, passages = load_passages(corpus)
    games = [doc.game for doc in docs]
    by_id = {g.id: g for g in games}
    embedding = {
        "model_id": embedder.model_id,
        "fingerprint": embedder.fingerprint(),
        "dim": embedder.dim,
        "normalized": True,
        "passage_template": PASSAGE_TEMPLATE,
    }
    reuse = store.load_vectors_for_reuse(out, embedding)
    texts, ids = [embedding_text(p, by_id[p.game]) for p in passages], [p.id for p in passages]
    truncated = truncated_passages(embedder, texts, ids)
    if truncated:
        print(f"attention : {len(truncated)} passage(s) de plus de {MODEL_MAX_TOKENS} jetons, tronqué(s) "
              f"pour l'embedding : {', '.join(truncated)}", file=sys.stderr)
    vectors, encoded = embed_passages(embedder, texts, ids, reuse, progress)
    dense, kind = dense_index(vectors)
    lexical = lexical_index([lexical_text(p, by_id[p.game]) for p in passages])
    manifest = {
        "format_version": store.FORMAT_VERSION,
        "built_at": datetime.now(UTC).isoformat(timespec="seconds"),
        "embedding": embedding,
        "dense_index": {"type": kind, "metric": "inner_product", "exact_search_max": EXACT_SEARCH_MAX},
        "lexical_index": {"library": "bm25s", "method": "lucene", "k1": 1.2, "b": 0.75, "analyzer": ANALYZER_VERSION},
        "corpus": {
            "hash": corpus_hash(games, passages),
            "games": len(games),
            "passages": len(passages),
            "passages_per_game": dict(sorted(Counter(p.game for p in passages).items())),
        },
    }
    store.save(store.IndexData(manifest, passages, games, vectors, dense, lexical), out)
    return {**manifest, "stats": {"encoded": encoded, "reused": len(passages) - encoded, "truncated": truncated,
                                  "seconds": round(time.perf_counter() - started, 2)}}
