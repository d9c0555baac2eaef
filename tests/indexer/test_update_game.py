"""Updating one game of an index: the result is the index a full build of the same corpus gives."""

import shutil

import numpy as np
import pytest

from indexer import store
from indexer.build import build_index
from indexer.errors import CorpusError, UnknownGameError
from indexer.update_game import update_game
from service.engine.retrieval.fusion import MODES
from service.engine.retrieval.single import SingleIndexRetriever as Retriever
from tests.fakes import CORPUS, FakeEmbedder
from service.engine.question import Question

QUESTIONS = ["Les pépites d'or rapportent combien ?", "Combien de dés peut-on acheter ?",
             "Quand un vol d'oiseaux s'envole-t-il ?", "relancer les dés sans arrêter ?"]


def assert_derived_files_describe_the_index(index_dir):
    """The centroid, rows and words store.save derives are those of the updated passages and vectors."""
    data = store.load(index_dir)
    stored = np.load(index_dir / "vectors.npy")
    assert np.array_equal(data.centroid, stored.mean(axis=0, dtype=np.float64).astype(np.float32))
    passages = list(data.passages)
    assert [data.games[g].id for g in data.rows.game] == [p.game for p in passages]
    assert [data.rows.sections[s] if s >= 0 else None for s in data.rows.section] == [p.section for p in passages]
    return data


def rankings(index_dir):
    retriever = Retriever.load(index_dir, FakeEmbedder())
    out = {}
    for q in QUESTIONS:
        scores = retriever.score(Question.of(q))
        for game in (None, *sorted(retriever.game_ids)):
            for mode in MODES:
                out[q, game, mode] = [(h.passage.id, round(h.score, 6)) for h in retriever.rank(scores, game, 5, mode)]
    return out


@pytest.fixture
def corpus(tmp_path):
    folder = tmp_path / "corpus"
    shutil.copytree(CORPUS, folder)
    return folder


def test_remove_then_add_back_equals_full_builds(corpus, tmp_path):
    index = tmp_path / "index"
    build_index(corpus, index, FakeEmbedder(), progress=False)
    full = store.read_manifest(index)
    karuba = (corpus / "karuba.md").read_text("utf-8")

    built = store.load(index)
    removed = update_game(index, FakeEmbedder(), "karuba", remove=True)
    assert (removed.removed, removed.added, removed.encoded) == (19, 0, 0)
    without_karuba = assert_derived_files_describe_the_index(index)
    assert not np.array_equal(without_karuba.centroid, built.centroid)
    assert "karuba" in built.words and "karuba" not in without_karuba.words
    (corpus / "karuba.md").unlink()
    without = tmp_path / "without"
    build_index(corpus, without, FakeEmbedder(), progress=False)
    assert removed.manifest.corpus.hash == store.read_manifest(without).corpus.hash
    assert rankings(index) == rankings(without)

    (corpus / "karuba.md").write_text(karuba, "utf-8")
    embedder = FakeEmbedder()
    added = update_game(index, embedder, "karuba", corpus)
    assert (added.added, added.encoded, sum(embedder.passage_calls)) == (19, 19, 19)  # only Karuba encoded (its card included)
    assert added.manifest.corpus == full.corpus  # same hash, counts, passages per game as a full build
    data = assert_derived_files_describe_the_index(index)
    assert [g.id for g in data.games][-1] == "karuba"  # appended: each game stays one row range
    # Other rows' order, same vectors: the same centroid to the bit (store.centroid), the same words.
    assert np.array_equal(data.centroid, built.centroid) and data.words == built.words
    fresh = tmp_path / "fresh"
    build_index(corpus, fresh, FakeEmbedder(), progress=False)
    assert rankings(index) == rankings(fresh)


def test_replace_encodes_only_changed_passages_and_keeps_a_readable_index(corpus, tmp_path):
    index = tmp_path / "index"
    build_index(corpus, index, FakeEmbedder(), progress=False)
    path = corpus / "cubirds.md"
    path.write_text(path.read_text("utf-8") + "\n# Variante\n\nUne variante à deux joueurs existe. (p. 9)\n", "utf-8")
    embedder = FakeEmbedder()
    result = update_game(index, embedder, "cubirds", corpus)
    assert (result.removed, result.added, result.encoded) == (23, 24, 1)
    retriever = Retriever.load(index, FakeEmbedder())
    hits = retriever.rank(retriever.score(Question.of("variante à deux joueurs"), "cubirds"), "cubirds", 1)
    assert hits[0].passage.pages == (9,) and retriever.manifest.corpus.passages_per_game["cubirds"] == 24
    assert np.allclose(np.linalg.norm(store.load(index).vectors, axis=1), 1.0, atol=1e-3)
    assert "variante" in assert_derived_files_describe_the_index(index).words


def test_unknown_game_and_missing_file_are_clear_errors(corpus, tmp_path):
    index = tmp_path / "index"
    build_index(corpus, index, FakeEmbedder(), progress=False)
    before = (index / "manifest.json").read_text("utf-8")
    with pytest.raises(UnknownGameError, match="jeu inconnu : 'monopoly'"):
        update_game(index, FakeEmbedder(), "monopoly", remove=True)
    with pytest.raises(CorpusError, match="aucun fichier du corpus ne déclare « id: monopoly »"):
        update_game(index, FakeEmbedder(), "monopoly", corpus)
    assert (index / "manifest.json").read_text("utf-8") == before  # nothing written on error
