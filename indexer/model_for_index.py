"""Which model embeds a corpus, and which model answers over an index.

Indexing embeds with a family's folder (indexer/models/registry.py), or, with `adapt` (`rulesqa index --adapt`,
RULESQA_ADAPT), with the base e5-small adapted to the corpus being indexed (indexer/models/e5/finetune.py).
Either way the index holds the model it was built with (store.py, model/), and answering loads that one:
`index_embedder` needs nothing outside the index folder.

The folders under the models root (RULESQA_MODELS_DIR, var/models by default) are only a build
cache: the families' folders, and the adapted folders, each reused while the corpus's training pairs are the
same. An index's model/ hard-links their files, so an adapted folder whose graph has a single link is used
by no index on this file system; the next build removes it (unless a running process has it loaded),
together with the scratch folders of killed builds, under the cache's lock (indexer/locks.py). Removing a
cached model never breaks an index; at worst a later build of the same corpus trains again, unless the
index it rebuilds already holds that model (then its model/ is reused).
"""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

from indexer import store
from indexer.errors import IndexMismatchError, ModelError
from indexer.locks import exclusive_if_unused, models_locked, remove_leftovers
from indexer.models import get_family, load_embedder
from indexer.models.embedders import load_folder_embedder
from indexer.models.description import MANIFEST, ONNX_FILE, read_model_manifest
from indexer.models.e5 import MODEL_NAME, ensure_model
from indexer.models.e5.finetune import (
    ADAPTED_SUFFIX,
    MIN_PAIRS,
    adapt_model,
    adapted_dir,
    adapted_fingerprint,
    base_fingerprint,
    pairs_digest,
)
from indexer.corpus_pairs import training_pairs
from indexer.passages import load_passages


def _say(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


def corpus_embedder(corpus_dir: Path, models_dir: Path, *, threads: int, family: str = "e5-small",
                    adapt: bool = False, progress: bool = False, corpus: tuple | None = None,
                    index_dir: Path | None = None):
    """The embedder to index `corpus_dir` with: the `family`'s model, or with `adapt` the base e5-small adapted
    to the corpus (trained once, then reused from the cache, or from `index_dir`'s model/ when the index being
    rebuilt already holds it). The base model too when the corpus yields too few training pairs (said on
    stderr). Runs under the model cache's lock, after removing what killed builds left there and the
    cached adapted models that nothing uses. `corpus`: `load_passages(corpus_dir)` when already read."""
    root = Path(models_dir)
    with models_locked(root):
        remove_leftovers(root)
        base_dir = ensure_model(root / MODEL_NAME) if adapt else root / MODEL_NAME
        pairs = None
        if adapt:
            docs, passages = corpus if corpus is not None else load_passages(corpus_dir)
            pairs = training_pairs(passages, [d.game for d in docs])
        wanted = adapted_dir(root, base_fingerprint(base_dir), pairs_digest(pairs)) if pairs else None
        remove_unused_adaptations(root, keep=wanted)  # never the one about to be used
        if not adapt:
            return load_embedder(family, models_dir=root, threads=threads, progress=progress)
        if len(pairs) < MIN_PAIRS:
            _say(f"attention : le corpus ne donne que {len(pairs)} paires d'entraînement (il en faut {MIN_PAIRS}) ; "
                 "index construit avec le modèle de base, non adapté")
            return load_embedder("e5-small", models_dir=root, threads=threads)
        own = (_own_model(index_dir, adapted_fingerprint(base_fingerprint(base_dir), pairs))
               if index_dir is not None else None)
        if own is not None:
            return load_folder_embedder(own, threads)
        adapt_model(base_dir, pairs, wanted, progress=progress, threads=threads)
        return load_folder_embedder(wanted, threads)


def _own_model(index_dir: Path, fingerprint: str) -> Path | None:
    """The model/ of the index at `index_dir` when it is the model of that fingerprint."""
    try:
        folder = store.model_folder(index_dir)
    except IndexMismatchError:
        return None
    if folder is None or (read_model_manifest(folder) or {}).get("fingerprint") != fingerprint:
        return None
    return folder


def index_embedder(index_dir: Path, *, threads: int, family: str | None = None):
    """The embedder an index answers with: the model inside it (model/, checked against its manifest).
    An index that only names its model (built with RULESQA_MODEL) cannot give it, and one whose model is not
    of the `family` asked for must be rebuilt: IndexMismatchError, said before any model is loaded."""
    manifest = store.read_manifest(index_dir)
    folder = store.model_folder(index_dir, manifest)
    if folder is None:
        raise IndexMismatchError(
            f"l'index {index_dir} a été construit avec le modèle {manifest.embedding.model_id!r}, qu'il ne contient "
            f"pas : donnez ce modèle (RULESQA_MODEL ou --model), ou {store.REBUILD_HINT}")
    if family is not None and manifest.model.family != family:
        asked = get_family(family).model_id
        raise IndexMismatchError(f"l'index {index_dir} a été construit avec le modèle {manifest.embedding.model_id}, "
                                 f"le modèle demandé est {asked} (RULESQA_MODEL) : {store.REBUILD_HINT}")
    try:
        return load_folder_embedder(folder, threads, model_id=manifest.embedding.model_id)
    except ModelError as exc:  # a model folder of an older build: the index is rebuilt with today's
        raise IndexMismatchError(f"modèle de l'index inutilisable ({exc}) : {store.REBUILD_HINT}") from None


def cached_adaptations(models_root: Path) -> list[Path]:
    return sorted(f for f in Path(models_root).glob(f"{MODEL_NAME}{ADAPTED_SUFFIX}-*") if f.is_dir())


def remove_unused_adaptations(models_root: Path, keep: Path | None = None) -> list[Path]:
    """Remove the cached adapted folders (but `keep`) that no index links (their graph has one link) and no
    running process has loaded (indexer.locks.exclusive_if_unused). Call it holding the cache's lock."""
    removed = []
    for folder in cached_adaptations(models_root):
        if keep is not None and folder == Path(keep):
            continue
        graph = folder / ONNX_FILE
        if graph.is_file() and graph.stat().st_nlink > 1:
            continue
        with exclusive_if_unused(folder / MANIFEST) as unused:
            if unused:
                shutil.rmtree(folder, ignore_errors=True)
                removed.append(folder)
    return removed
