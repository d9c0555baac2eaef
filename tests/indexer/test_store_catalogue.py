"""A shelf's catalogue through shelf_catalogue.py: typed values written and read back as they were, refused when
unreadable or of another format (tiny values, no build)."""

import json

import numpy as np
import pytest

from indexer import shelf_catalogue, store
from indexer.corpus import Game
from indexer.errors import IndexMismatchError


def tiny_catalogue() -> shelf_catalogue.ShelfCatalogue:
    manifest = store.Manifest(store.EmbeddingInfo("fake", "fp", 2), store.CorpusInfo("h", 2, 3, {"a": 2, "b": 1}),
                              "IndexFlatIP", "2026-01-01T00:00:00+00:00")
    games = [Game("a", "Jeu A", aliases=("A",), lexicon=(("pion", ("meeple",)),)), Game("b", "Jeu B")]
    shards = [shelf_catalogue.ShardInfo("shard-00", ["a"], [0], 2, "ha"), shelf_catalogue.ShardInfo("shard-01", ["b"], [2], 1, "hb")]
    mean = np.array([0.5, -0.25], np.float32)
    return shelf_catalogue.ShelfCatalogue(manifest, games, frozenset({"pion", "jeu"}), mean, shards)


def test_catalogue_round_trips(tmp_path):
    catalogue = tiny_catalogue()
    shelf_catalogue.save_shelf_catalogue(tmp_path, catalogue)
    back = shelf_catalogue.read_shelf_catalogue(tmp_path)
    assert shelf_catalogue.is_shelf(tmp_path) and not shelf_catalogue.is_shelf(tmp_path / "shard-00")
    assert (back.manifest, back.games, back.words, back.shards) == (
        catalogue.manifest, catalogue.games, catalogue.words, catalogue.shards)
    assert back.centroid.dtype == np.float32 and np.array_equal(back.centroid, catalogue.centroid)
    assert json.loads((tmp_path / shelf_catalogue.SHELF_FILE).read_text())["rows"] == 3  # the single index's rows
    assert store.read_words(tmp_path) == catalogue.words


def test_catalogue_of_another_format_or_incomplete_is_refused(tmp_path):
    shelf_catalogue.save_shelf_catalogue(tmp_path, tiny_catalogue())
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    (tmp_path / "manifest.json").write_text(json.dumps({**manifest, "format_version": 1}))
    with pytest.raises(IndexMismatchError, match="index au format 1"):
        shelf_catalogue.read_shelf_catalogue(tmp_path)
    (tmp_path / "words.txt").unlink()
    with pytest.raises(IndexMismatchError, match="index partagé illisible"):
        shelf_catalogue.read_shelf_catalogue(tmp_path)
