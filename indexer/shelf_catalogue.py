"""A shelf's catalogue (indexer/shelf.py: K index folders of whole games): beside its shard folders, what the
service needs of the whole corpus without opening a shard (`save_shelf_catalogue`, `read_shelf_catalogue`).

    shelf.json      the shards: each one's folder, games (in the single index's row order), the row where
                    each game starts in the single index, its passage count and corpus hash; the rows in all
    manifest.json   the manifest a single index of the whole corpus would have (same corpus hash)
    games.json      every game, in the single index's order
    words.txt       the whole corpus's folded words (the union of the shards', folding is per token)
    centroid.npy    the mean of every vector (exact in float64, as `centroid`)
"""

from __future__ import annotations

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from indexer import store
from indexer.corpus import Game
from indexer.errors import IndexMismatchError

SHELF_FILE = "shelf.json"
SHELF_FORMAT = 1


@dataclass(frozen=True)
class ShardInfo:
    folder: str
    games: list[str]
    starts: list[int]  # the row of each game's first passage in the single index
    passages: int
    corpus_hash: str


@dataclass(frozen=True)
class ShelfCatalogue:
    """A shelf's own files: the whole corpus as a single index would describe it, and its shards."""

    manifest: store.Manifest
    games: list[Game]
    words: frozenset[str]
    centroid: np.ndarray
    shards: list[ShardInfo]


def is_shelf(folder: Path) -> bool:
    return (Path(folder) / SHELF_FILE).is_file()


def save_shelf_catalogue(folder: Path, catalogue: ShelfCatalogue) -> None:
    """Write the catalogue into `folder`, a shelf being written beside its place: the shelf renames the
    whole folder into place (indexer/shelf.py), so a reader never sees half a catalogue."""
    folder = Path(folder)
    store.write_manifest(folder, catalogue.manifest)
    store.write_games(folder, catalogue.games)
    store.write_words(folder, catalogue.words)
    store.write_centroid(folder, catalogue.centroid)
    shelf = {"format": SHELF_FORMAT, "rows": sum(s.passages for s in catalogue.shards),
             "shards": [asdict(s) for s in catalogue.shards]}
    (folder / SHELF_FILE).write_text(json.dumps(shelf, ensure_ascii=False, indent=1), "utf-8")


def read_shelf_catalogue(folder: Path) -> ShelfCatalogue:
    """The catalogue of a shelf; refused (IndexMismatchError) when unreadable, not one, or of another format."""
    folder = Path(folder)
    try:
        shelf = json.loads((folder / SHELF_FILE).read_text("utf-8"))
        if shelf.get("format") != SHELF_FORMAT:
            raise ValueError(f"format {shelf.get('format')!r}")
        manifest = store.Manifest.from_dict(json.loads((folder / "manifest.json").read_text("utf-8")))
        games, words, mean = store.read_games(folder), store.read_words(folder), store.read_centroid(folder)
        shards = [ShardInfo(**s) for s in shelf["shards"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise IndexMismatchError(f"index partagé illisible dans {folder} ({exc}) : {store.REBUILD_HINT}") from None
    if manifest.format_version != store.FORMAT_VERSION:
        raise IndexMismatchError(f"index au format {manifest.format_version!r}, ce code attend le format "
                                 f"{store.FORMAT_VERSION} : {store.REBUILD_HINT}")
    return ShelfCatalogue(manifest, games, words, mean, shards)
