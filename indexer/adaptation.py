"""Which model embeds a corpus, and which model answers over an index.

Indexing adapts the base e5 folder to the corpus being indexed (indexer/e5/adapt.py) and embeds with the
adapted model; the index's manifest records that model's id, so answering loads the same folder again.
The adapted folder sits beside the base one and is reused while the corpus's training pairs are the same.
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from indexer import store
from indexer.e5 import MODEL_NAME, ensure_model, load_embedder
from indexer.e5.adapt import (
    ADAPTED_SUFFIX,
    MIN_PAIRS,
    adapt_model,
    adapted_dir,
    base_fingerprint,
    load_folder_embedder,
    pairs_digest,
    training_pairs,
)
from indexer.e5.folder import read_manifest
from indexer.errors import IndexMismatchError
from indexer.passages import load_passages


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def corpus_embedder(corpus_dir: Path, base_dir: Path, *, threads: int, adapt: bool = True, progress: bool = False,
                    corpus: tuple | None = None):
    """The embedder to index `corpus_dir` with: the base model adapted to it (trained once, then reused),
    or the base model when `adapt` is off or the corpus yields too few training pairs (said on stderr).
    `corpus`: `load_passages(corpus_dir)` when the caller has already read it."""
    base_dir = ensure_model(base_dir)
    if not adapt:
        return load_embedder(None, model_dir=base_dir, threads=threads)
    docs, passages = corpus if corpus is not None else load_passages(corpus_dir)
    pairs = training_pairs(passages, [d.game for d in docs])
    if len(pairs) < MIN_PAIRS:
        _say(f"attention : le corpus ne donne que {len(pairs)} paires d'entraînement (il en faut {MIN_PAIRS}) ; "
             "index construit avec le modèle de base, non adapté")
        return load_embedder(None, model_dir=base_dir, threads=threads)
    out = adapted_dir(base_dir.parent, base_fingerprint(base_dir), pairs_digest(pairs))
    adapt_model(base_dir, pairs, out, progress=progress, threads=threads)
    _remove_other_adaptations(out)
    return load_folder_embedder(out, threads)


def index_embedder(index_dir: Path, base_dir: Path, *, threads: int):
    """The embedder an index was built with: its adapted folder beside the base one, else the base model.
    A missing adapted folder is an IndexMismatchError (the index must be rebuilt)."""
    model_id = store.read_manifest(index_dir).embedding.model_id
    if not model_id.startswith(MODEL_NAME + ADAPTED_SUFFIX):
        return load_embedder(None, model_dir=base_dir, threads=threads)
    for folder in _adaptations(Path(base_dir).parent):
        if (read_manifest(folder) or {}).get("model_id") == model_id:
            return load_folder_embedder(folder, threads)
    raise IndexMismatchError(f"l'index a été construit avec le modèle adapté {model_id}, introuvable dans "
                             f"{Path(base_dir).parent} : {store.REBUILD_HINT}")


def _adaptations(models_root: Path) -> list[Path]:
    return sorted(f for f in models_root.glob(f"{MODEL_NAME}{ADAPTED_SUFFIX}-*") if f.is_dir())


def _remove_other_adaptations(keep: Path) -> None:
    """An adapted folder is about 1 GB: keep only the one for the current corpus."""
    for folder in _adaptations(keep.parent):
        if folder != keep:
            shutil.rmtree(folder, ignore_errors=True)
