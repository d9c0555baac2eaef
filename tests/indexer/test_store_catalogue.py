"""A shelf's catalogue through store.py: typed values written and read back as they were, refused when
unreadable or of another format (tiny values, no build)."""

import json

import numpy as np
import pytest

from indexer import store
from indexer.corpus import Game
from indexer.errors import IndexMismatchError


def tiny_catalogue() -> store.ShelfCatalogue:
    manifest = store.Manifest(store.EmbeddingInfo("fake", "fp", 2), store.CorpusInfo("h", 2, 3, {"a": 2, "b": 1}),
                              "IndexFlatIP", "2026-01-01T00:00:00+00:00")
    games = [Game("a", "Jeu A", aliases=("A",), lexicon=(("pion", ("meeple",)),)), Game("b", "Jeu B")]
    shards = [store.ShardInfo("shard-00", ["a"], [0], 2, "ha"), store.ShardInfo("shard-01", ["b"], [2], 1, "hb")]
    mean = np.array([0.5, -0.25], np.float32)
    return store.ShelfCatalogue(manifest, games, frozenset({"pion", "jeu"}), mean, shards)


def test_catalogue_round_trips(tmp_path):
    catalogue = tiny_catalogue()
    store.save_shelf_catalogue(tmp_path, catalogue)
    back = store.read_shelf_catalogue(tmp_path)
    assert store.is_shelf(tmp_path) and not store.is_shelf(tmp_path / "shard-00")
    assert (back.manifest, back.games, back.words, back.shards) == (
        catalogue.manifest, catalogue.games, catalogue.words, catalogue.shards)
    assert back.centroid.dtype == np.float32 and np.array_equal(back.centroid, catalogue.centroid)
    assert json.loads((tmp_path / store.SHELF_FILE).read_text())["rows"] == 3  # the single index's rows
    assert store.read_words(tmp_path) == catalogue.words


def test_catalogue_of_another_format_or_incomplete_is_refused(tmp_path):
    store.save_shelf_catalogue(tmp_path, tiny_catalogue())
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    (tmp_path / "manifest.json").write_text(json.dumps({**manifest, "format_version": 1}))
    with pytest.raises(IndexMismatchError, match="index au format 1"):
        store.read_shelf_catalogue(tmp_path)
    (tmp_path / "words.txt").unlink()
    with pytest.raises(IndexMismatchError, match="index partagé illisible"):
        store.read_shelf_catalogue(tmp_path)
