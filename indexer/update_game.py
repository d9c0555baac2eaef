"""Adding, replacing or removing one game of an existing index, without touching the others' work.

The other games keep their vectors (nothing is encoded again) and their analysed terms (nothing is
analysed again); only the BM25 statistics, which are the shelf's (document frequencies, mean length),
and the dense index are recomputed from them. The new version is written beside the old one and renamed
into place (store.save), so a service answering from the old version never reads a half-written one,
and picks the new one up on reload (POST /api/admin/reload). The game's rows go to the end of the index:
each game stays one row range. The index's model is kept (its model/ folder is linked into the new
version): an update never adapts e5 again; adapting it to the changed corpus is what a full
`rulesqa index --adapt` does. An update holds the folder's lock, as a build does.
"""

from __future__ import annotations

import re
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from indexer import store
from indexer.analysis import analyze
from indexer.build import PassageEncoder, dense_index, embed_passages, make_manifest, model_source
from indexer.lexical import lexical_index
from indexer.corpus import corpus_files, read_game
from indexer.errors import CorpusError, UnknownGameError
from indexer.locks import index_locked
from indexer.passages import passages_of
from indexer.passage_text import embedding_text, lexical_text
from indexer.store import EmbeddingInfo

ID_LINE = re.compile(r"^id:\s*(\S+)\s*$", re.MULTILINE)


@dataclass(frozen=True)
class UpdateResult:
    manifest: store.Manifest
    game: str
    removed: int  # rows of the game before
    added: int  # rows of the game after
    encoded: int
    seconds: float


def game_file(corpus: Path, game_id: str) -> Path:
    """The corpus file declaring `id: game_id` (ID.md first, else the file whose header says so)."""
    corpus = Path(corpus)
    candidates = [corpus / f"{game_id}.md"] + corpus_files(corpus)
    for path in candidates:
        if path.is_file():
            header = path.read_text("utf-8").split("\n---", 1)[0]
            found = ID_LINE.search(header)
            if found and found.group(1) == game_id:
                return path
    raise CorpusError(corpus, 1, f"aucun fichier du corpus ne déclare « id: {game_id} »")


def update_game(index_dir: Path, embedder, game_id: str, corpus: Path | None = None, remove: bool = False,
                encode: PassageEncoder | None = None) -> UpdateResult:
    """Replace (or add) the game `game_id` from its corpus file, or remove it; returns the new manifest.
    `embedder` must be the index's own model (`indexer.model_for_index.index_embedder`); `encode`: how its new
    passages are encoded (here by default, or on a cluster: indexer/ray_encode.py)."""
    with index_locked(index_dir):
        return _update_game(Path(index_dir), embedder, game_id, corpus, remove, encode)


def _update_game(index_dir: Path, embedder, game_id: str, corpus: Path | None, remove: bool,
                 encode: PassageEncoder | None) -> UpdateResult:
    started = time.perf_counter()
    data = store.load(index_dir)
    data.manifest.check_compatible(embedder)
    tokens = store.load_tokens(index_dir)
    known = [g.id for g in data.games]
    if remove and game_id not in known:
        raise UnknownGameError(game_id, known)
    keep = data.rows.game != (known.index(game_id) if game_id in known else -1)  # no passage read for this
    old_rows = np.flatnonzero(~keep)
    reuse = {data.passages[r].id: data.vectors[r] for r in old_rows}  # unchanged passages keep their vector
    passages = [p for p, k in zip(data.passages, keep) if k]
    tokens = [t for t, k in zip(tokens, keep) if k]
    games = [g for g in data.games if g.id != game_id]
    vectors = data.vectors[keep]
    added = encoded = 0
    if not remove:
        doc = read_game(game_file(corpus, game_id))
        if doc.game.id != game_id:
            raise CorpusError(Path(doc.game.path or corpus), 1, f"le fichier déclare « {doc.game.id} »")
        new = passages_of(doc)
        texts = [embedding_text(p, doc.game, embedder.passage_form) for p in new]
        new_vectors, encoded = embed_passages(embedder, texts, [p.id for p in new], reuse, progress=False,
                                               encode=encode)
        games.append(doc.game)
        passages += new
        tokens += [analyze(lexical_text(p, doc.game)) for p in new]
        vectors = np.concatenate([vectors, new_vectors.astype(vectors.dtype)])
        added = len(new)
    dense, kind = dense_index(np.ascontiguousarray(vectors, dtype=np.float32))
    manifest = make_manifest(EmbeddingInfo.of(embedder), games, passages, kind)
    # The model the embedder runs: the index's own model/ (linked into the new version), or a named one.
    model = data.model_dir or model_source(embedder)
    store.save(store.IndexData(manifest, passages, games, vectors, dense, lexical_index(tokens), tokens,
                               model_dir=model), index_dir)
    manifest = store.read_manifest(index_dir)
    return UpdateResult(manifest, game_id, len(old_rows), added, encoded, round(time.perf_counter() - started, 2))
