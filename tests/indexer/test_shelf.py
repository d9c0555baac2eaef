"""The sharded build: whole games balanced by passages, the shelf's BM25 statistics in every shard, a
catalogue equal to what the single index holds."""

import json

import numpy as np
import pytest

from indexer import store
from indexer.errors import IndexMismatchError
from indexer.lexical import restrict as restrict_lexical
from indexer.shelf import assign, build_shards, is_sharded, read_shelf
from tests.fakes import CORPUS, FakeEmbedder


@pytest.fixture(scope="module")
def shelf(tmp_path_factory):
    out = tmp_path_factory.mktemp("shards") / "index"
    build_shards(CORPUS, out, FakeEmbedder(), 2, progress=False)
    return out


def test_assign_balances_whole_games_largest_first():
    groups = assign({"a": 10, "b": 7, "c": 6, "d": 3, "e": 1}, 2)
    assert groups == [["a", "d", "e"], ["b", "c"]]  # 14 / 13; each shard keeps the given order
    assert assign({"a": 1, "b": 1, "c": 1}, 3) == [["a"], ["b"], ["c"]]


def test_shard_scores_equal_the_single_index(shelf, fake_index):
    single = store.load(fake_index)
    info = read_shelf(shelf)
    questions = ["combien de cartes on pioche", "pépites d'or temple", "fin de la partie égalité", "dés relance"]
    from indexer.analysis import analyze

    for shard in info.shards:
        part = store.load(shelf / shard.folder)
        assert part.lexical.vocab_dict == single.lexical.vocab_dict
        rows = np.concatenate([np.arange(s, s + single.manifest.corpus.passages_per_game[g])
                               for g, s in zip(shard.games, shard.starts)])
        assert [p.id for p in part.passages] == [single.passages[int(r)].id for r in rows]
        assert np.array_equal(part.vectors, single.vectors[rows])
        for q in questions:
            terms = [t for t in analyze(q) if t in single.lexical.vocab_dict]
            assert np.array_equal(part.lexical.get_scores(terms), single.lexical.get_scores(terms)[rows])


def test_restrict_lexical_keeps_postings_of_the_rows_only(fake_index):
    lexical = store.load(fake_index).lexical
    rows = np.array([0, 5, 6, 40])
    part = restrict_lexical(lexical, rows)
    assert part.scores["num_docs"] == 4 and part.scores["indices"].max() <= 3
    terms = list(lexical.vocab_dict)[:50]
    assert np.array_equal(part.get_scores(terms), lexical.get_scores(terms)[rows])


def test_catalogue_is_what_the_single_index_holds(shelf, fake_index):
    single = store.load(fake_index)
    info = read_shelf(shelf)
    assert is_sharded(shelf) and not is_sharded(fake_index)
    assert info.manifest.corpus == single.manifest.corpus  # same hash, counts and games
    assert info.words == single.words and np.array_equal(info.centroid, single.centroid)
    assert [g.id for g in info.games] == [g.id for g in single.games]
    assert sorted(g for s in info.shards for g in s.games) == sorted(g.id for g in single.games)
    assert sum(s.passages for s in info.shards) == len(single.passages)


def test_rebuild_reuses_the_shards_vectors(shelf, tmp_path):
    embedder = FakeEmbedder()
    result = build_shards(CORPUS, shelf, embedder, 2, progress=False)
    assert result.stats.encoded == 0 and embedder.passage_calls == []


def test_bad_shard_counts_are_refused(tmp_path):
    with pytest.raises(IndexMismatchError, match="5 shards pour 4 jeux"):
        build_shards(CORPUS, tmp_path / "x", FakeEmbedder(), 5, progress=False)
    with pytest.raises(IndexMismatchError, match="nombre de shards invalide"):
        build_shards(CORPUS, tmp_path / "x", FakeEmbedder(), 0, progress=False)
    assert not (tmp_path / "x").exists()


def test_unreadable_catalogue_is_refused(shelf, tmp_path):
    import shutil

    broken = tmp_path / "broken"
    shutil.copytree(shelf, broken)
    (broken / "shelf.json").write_text(json.dumps({"format": 99}))
    with pytest.raises(IndexMismatchError, match="index partagé illisible"):
        read_shelf(broken)


@pytest.mark.model
def test_every_shard_holds_the_model_it_was_built_with(real_embedder, settings, tmp_path):
    """A shard is an index folder like any other (format 6): it answers from its own model folder."""
    out = tmp_path / "index"
    build_shards(CORPUS, out, real_embedder, 2, progress=False)
    for shard in read_shelf(out).shards:
        folder = out / shard.folder
        assert (folder / "model").is_dir()
        embedder = settings.model_copy(update={"index_dir": folder}).index_embedder()
        assert embedder.fingerprint() == real_embedder.fingerprint()
