"""A shelf in K shards by game (`rulesqa index --shards K`): K index folders and a catalogue.

    OUT/shelf.json …     the catalogue (shelf.json, manifest.json, games.json, words.txt, centroid.npy): the
                         shards, and the whole corpus as a single index of it would describe it; written
                         and read by shelf_catalogue.py alone (save_shelf_catalogue, read_shelf_catalogue)
    OUT/shard-00/ …      ordinary index folders (store.py), each with whole games, in the single index's
                         row order

The corpus is parsed and encoded once (build.prepare_index: here or on a cluster). Games go to shards
largest first, each to the shard with the fewest passages so far, and keep their relative order. Each
shard's BM25 is the whole shelf's, restricted to its rows: its terms' document frequencies and the mean
length are the shelf's, so a passage scores in its shard exactly as in the single index (bm25s stores
each posting's score; the postings of the shard's rows are kept as they are, renumbered). The whole
folder is written beside the old one and renamed into place.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from indexer import shelf_catalogue, store
from indexer.atomic import folder_replaced
from indexer.build import BuildResult, PassageEncoder, dense_index, make_manifest, prepare_index
from indexer.corpus import Game
from indexer.errors import IndexMismatchError
from indexer.lexical import restrict

MAX_SHARDS = 256


@dataclass(frozen=True)
class Shelf:
    """A sharded index folder as read back: the catalogue's parts and the shards' descriptions."""

    folder: Path
    manifest: store.Manifest
    shards: list[shelf_catalogue.ShardInfo]
    games: list[Game]
    words: frozenset[str]
    centroid: np.ndarray

    def shard_of(self) -> dict[str, int]:
        return {g: i for i, s in enumerate(self.shards) for g in s.games}


def is_sharded(folder: Path) -> bool:
    return shelf_catalogue.is_shelf(folder)


def assign(passages_per_game: dict[str, int], k: int) -> list[list[str]]:
    """Whole games into k shards balanced by passage count: largest game first, to the lightest shard
    (the first one on a tie); each shard keeps its games in the given order."""
    loads = [0] * k
    owner: dict[str, int] = {}
    for game in sorted(passages_per_game, key=lambda g: (-passages_per_game[g], g)):
        target = min(range(k), key=lambda i: (loads[i], i))
        owner[game] = target
        loads[target] += passages_per_game[game]
    return [[g for g in passages_per_game if owner[g] == i] for i in range(k)]


def build_shards(corpus: Path, out: Path, embedder, shards: int, progress: bool = True,
                 encode: PassageEncoder | None = None) -> BuildResult:
    """Build the sharded index of `corpus` into `out` (atomically)."""
    if not 1 <= shards <= MAX_SHARDS:
        raise IndexMismatchError(f"nombre de shards invalide : {shards} (1 à {MAX_SHARDS})")
    started = time.perf_counter()
    previous = [out] + sorted(Path(out).glob("shard-*")) if Path(out).is_dir() else []
    built = prepare_index(corpus, previous, embedder, progress, encode, dense=False)
    data = built.data
    if len(data.games) < shards:
        raise IndexMismatchError(f"{shards} shards pour {len(data.games)} jeux : un jeu ne se partage pas")
    game_rows: dict[str, list[int]] = {}
    for i, p in enumerate(data.passages):
        game_rows.setdefault(p.game, []).append(i)
    by_id = {g.id: g for g in data.games}
    groups = assign({g.id: len(game_rows.get(g.id, [])) for g in data.games}, shards)
    vectors16 = np.asarray(data.vectors, dtype=np.float16)
    infos, words = [], set()
    with folder_replaced(out) as tmp:
        for i, group in enumerate(groups):
            rows = np.array(sorted(r for g in group for r in game_rows.get(g, [])), dtype=np.int64)
            games = [by_id[g] for g in group]
            passages = [data.passages[r] for r in rows]
            dense, kind = dense_index(data.vectors[rows])
            manifest = make_manifest(data.manifest.embedding, games, passages, kind)
            folder = f"shard-{i:02d}"
            store.save(store.IndexData(manifest, passages, games, data.vectors[rows], dense,
                                       restrict(data.lexical, rows), [data.tokens[r] for r in rows],
                                       model_dir=data.model_dir),  # each shard holds its model (index format 6)
                       tmp / folder)
            words |= store.read_words(tmp / folder)
            infos.append(shelf_catalogue.ShardInfo(folder, group,
                                                   [game_rows[g][0] if g in game_rows else -1 for g in group],
                                                   len(rows), manifest.corpus.hash))
        shelf_catalogue.save_shelf_catalogue(tmp, shelf_catalogue.ShelfCatalogue(
            data.manifest, data.games, frozenset(words), store.centroid(vectors16), infos))
    return BuildResult(data.manifest, built.stats(started))


def read_shelf(folder: Path) -> Shelf:
    """The catalogue of a sharded index folder; refused (IndexMismatchError) when unreadable or not one."""
    catalogue = shelf_catalogue.read_shelf_catalogue(folder)
    return Shelf(Path(folder), catalogue.manifest, catalogue.shards, catalogue.games, catalogue.words,
                 catalogue.centroid)
