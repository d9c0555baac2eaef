"""Starting a server: a missing index built by a child process, a stale one answering while a child rebuilds
it, then swapped in. The child is `rulesqa index` with the model replaced by fakes (tests/child_build.py)."""

import shutil
import sys
import time

import pytest
from fastapi.testclient import TestClient

import indexer.model_for_index as adaptation
import service.runtime.startup as startup
from indexer.build import build_index
from indexer.errors import IndexMismatchError
from service.runtime.startup import BuildError
from service.web.app import create_app
from service.runtime.settings import Settings
from tests.fakes import CORPUS, REPO, FakeEmbedder, FakeFolderEmbedder

CHILD = [sys.executable, "-c", f"import sys, runpy; sys.path.insert(0, {str(REPO)!r}); "
                               "runpy.run_module('tests.child_build', run_name='__main__')"]


@pytest.fixture
def fake_child(monkeypatch):
    """Builds run by the fake `rulesqa index` child; this process loads fake model folders, and must build
    nothing itself."""
    monkeypatch.setattr(startup, "index_command", lambda settings: CHILD)
    monkeypatch.setattr(adaptation, "load_folder_embedder", lambda path, threads, model_id=None:
                        FakeFolderEmbedder(path, model_id))

    def forbidden(*args, **kwargs):
        raise AssertionError("the server process built something itself")

    monkeypatch.setattr("indexer.build.build_index", forbidden)
    monkeypatch.setattr(adaptation, "corpus_embedder", forbidden)


def settings_for(tmp_path, corpus=CORPUS, **kwargs) -> Settings:
    return Settings(index_dir=tmp_path / "index", corpus_dir=corpus, models_dir=tmp_path / "models",
                    cache_dir=tmp_path / "cache", **kwargs)


def corpus_copy(tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    return corpus


def test_a_missing_index_is_built_by_a_child_process_then_answers(tmp_path, fake_child):
    settings = settings_for(tmp_path)
    opened = startup.open_answerer(settings)
    assert opened.stale is None and opened.answerer.retriever.manifest.corpus.passages == 81
    assert opened.answerer.ask("Les pépites d'or rapportent combien ?", "karuba").passages
    assert (tmp_path / "index" / "model" / "rulesqa_build.json").is_file()  # the index holds its model
    built_at = opened.answerer.retriever.manifest.built_at
    again = startup.open_answerer(settings)  # built once: the next start only loads it
    assert again.answerer.retriever.manifest.built_at == built_at and again.stale is None


def test_a_failed_child_build_is_one_error_and_its_own_line(tmp_path, fake_child, capfd):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    (corpus / "jeu.md").write_text("---\nid: jeu\n---\n\nSans titre.\n")
    with pytest.raises(BuildError, match="a échoué"):
        startup.open_answerer(settings_for(tmp_path, corpus))
    assert "jeu.md:" in capfd.readouterr().err  # the child's own message, FILE:LINE first


def test_a_stale_index_answers_at_once_and_says_why(tmp_path):
    corpus = corpus_copy(tmp_path)
    settings = settings_for(tmp_path, corpus)
    build_index(corpus, settings.index_dir, FakeEmbedder(), progress=False)
    (corpus / "cubirds.md").unlink()
    builds = []
    opened = startup.open_answerer(settings, FakeEmbedder(), build=builds.append)
    assert builds == [] and "a changé" in opened.stale
    assert opened.answerer.retriever.manifest.corpus.games == 4  # the old version, at once
    # A caller that cannot rebuild in the background rebuilds before answering.
    fresh = startup.load_answerer(settings, FakeEmbedder(),
                                  build=lambda s: build_index(corpus, s.index_dir, FakeEmbedder(), progress=False))
    assert fresh.retriever.manifest.corpus.games == 3


def test_an_index_of_another_model_is_rebuilt_or_refused(tmp_path):
    settings = settings_for(tmp_path)
    build_index(CORPUS, settings.index_dir, FakeEmbedder(), progress=False)
    other = FakeEmbedder(salt="autre")
    rebuilt = startup.open_answerer(settings, other, build=lambda s: build_index(CORPUS, s.index_dir, other,
                                                                                progress=False))
    assert rebuilt.answerer.retriever.manifest.embedding.fingerprint == other.fingerprint()
    frozen = settings_for(tmp_path, build_index_if_missing=False)
    with pytest.raises(IndexMismatchError, match="modèle"):
        startup.open_answerer(frozen, FakeEmbedder())


def test_the_server_rebuilds_a_stale_index_in_the_background_and_swaps_it_in(tmp_path, fake_child):
    corpus = corpus_copy(tmp_path)
    settings = settings_for(tmp_path, corpus)
    opened = startup.open_answerer(settings)  # built by the child
    (corpus / "cubirds.md").unlink()
    opened = startup.open_answerer(settings)
    assert opened.stale and opened.answerer.retriever.manifest.corpus.games == 4
    with TestClient(create_app(settings, opened.answerer, stale=opened.stale)) as client:
        assert client.get("/health").json()["games"] == 4  # answering at once, from the old version
        assert client.post("/api/ask", json={"question": "Combien de cartes en main ?", "game": "cubirds"}
                           ).status_code == 200
        deadline = time.monotonic() + 120
        while client.get("/health").json()["games"] != 3:
            assert time.monotonic() < deadline, "the rebuilt index was never swapped in"
            time.sleep(0.2)
        assert client.post("/api/ask", json={"question": "Combien de cartes en main ?", "game": "cubirds"}
                           ).status_code == 404  # the new version has no cubirds (unknown_game)
