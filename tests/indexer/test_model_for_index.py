"""Which model indexes a corpus and which answers over an index, with the training and the model stubbed
(model folders of a manifest and a dummy graph): the real fine-tune is tested in tests/indexer/models/e5/test_adapt.py."""

import shutil

import pytest

import indexer.model_for_index as adaptation
from indexer.build import build_index
from indexer.errors import IndexMismatchError
from tests.fakes import CORPUS, FakeEmbedder, FakeFolderEmbedder as FolderEmbedder
from tests.fakes import write_fake_model as write_model

BASE_ID = "multilingual-e5-small"


@pytest.fixture
def stubs(tmp_path, monkeypatch):
    base = tmp_path / "models" / BASE_ID
    trained = []

    def ensure_model(folder):
        if not folder.exists():
            write_model(folder, BASE_ID, "base")
        return folder

    def adapt_model(base_dir, pairs, out, **kwargs):
        if (out / "rulesqa_build.json").is_file():  # as the real one: an existing build is reused
            return out
        trained.append((base_dir, len(pairs), out))
        return write_model(out, f"{BASE_ID}-adapted-{out.name[-12:]}", f"adapted-{len(pairs)}")

    monkeypatch.setattr(adaptation, "ensure_model", ensure_model)
    monkeypatch.setattr(adaptation, "base_fingerprint", lambda folder: "base")
    monkeypatch.setattr(adaptation, "adapted_fingerprint", lambda base_fp, pairs: f"adapted-{len(pairs)}")
    monkeypatch.setattr(adaptation, "adapt_model", adapt_model)
    monkeypatch.setattr(adaptation, "load_embedder", lambda name, models_dir, threads, **_: FolderEmbedder(ensure_model(models_dir / BASE_ID)))
    monkeypatch.setattr(adaptation, "load_folder_embedder",
                        lambda folder, threads, model_id=None: FolderEmbedder(folder, model_id))
    return base, trained


def test_the_base_model_by_default_and_the_index_holds_it(stubs, tmp_path):
    base, trained = stubs
    embedder = adaptation.corpus_embedder(CORPUS, base.parent, threads=1)
    assert embedder.model_id == BASE_ID and trained == []
    build_index(CORPUS, tmp_path / "idx", embedder, progress=False)
    graph = tmp_path / "idx" / "model" / "onnx" / "model.onnx"
    assert graph.read_bytes() == (base / "onnx" / "model.onnx").read_bytes()
    assert graph.stat().st_ino == (base / "onnx" / "model.onnx").stat().st_ino  # linked, not copied
    # Answering needs nothing outside the index: its copy in /tmp or elsewhere answers with its own model.
    shutil.rmtree(base.parent)
    moved = tmp_path / "elsewhere" / "idx"
    shutil.copytree(tmp_path / "idx", moved)
    again = adaptation.index_embedder(moved, threads=1)
    assert again.model_id == BASE_ID and again.path == moved / "model"


def test_adapt_trains_once_and_the_index_answers_with_the_adapted_model(stubs, tmp_path):
    base, trained = stubs
    embedder = adaptation.corpus_embedder(CORPUS, base.parent, threads=1, adapt=True)
    assert embedder.model_id.startswith(f"{BASE_ID}-adapted-")
    (called_base, pairs, out), = trained
    assert called_base == base and pairs >= 16 and out.parent == base.parent
    build_index(CORPUS, tmp_path / "idx", embedder, progress=False)
    assert adaptation.index_embedder(tmp_path / "idx", threads=1).model_id == embedder.model_id
    # The cached folder goes away: the index still answers with the model it holds.
    embedder.close()
    shutil.rmtree(out)
    assert adaptation.index_embedder(tmp_path / "idx", threads=1).model_id == embedder.model_id


def test_a_rebuild_reuses_the_adaptation_its_index_holds(stubs, tmp_path):
    base, trained = stubs
    embedder = adaptation.corpus_embedder(CORPUS, base.parent, threads=1, adapt=True)
    build_index(CORPUS, tmp_path / "idx", embedder, progress=False)
    embedder.close()
    shutil.rmtree(trained[0][2])  # the cache lost it (another corpus's build removed it, say)
    again = adaptation.corpus_embedder(CORPUS, base.parent, threads=1, adapt=True, index_dir=tmp_path / "idx")
    assert len(trained) == 1 and again.path == tmp_path / "idx" / "model"
    assert again.model_id == embedder.model_id


def test_cached_adaptations_no_index_links_and_no_process_holds_are_removed(stubs, tmp_path):
    base, trained = stubs
    root = base.parent
    linked = write_model(root / f"{BASE_ID}-adapted-aaaaaaaaaaaa", "a", "fa")
    indexing = FolderEmbedder(linked)
    build_index(CORPUS, tmp_path / "idx", indexing, progress=False)  # an index links its graph
    indexing.close()
    loaded = write_model(root / f"{BASE_ID}-adapted-bbbbbbbbbbbb", "b", "fb")
    holder = FolderEmbedder(loaded)  # a running process has it loaded
    unused = write_model(root / f"{BASE_ID}-adapted-cccccccccccc", "c", "fc")
    adaptation.corpus_embedder(CORPUS, base.parent, threads=1)  # any build cleans the cache first
    assert linked.is_dir() and loaded.is_dir() and not unused.exists() and base.is_dir()
    holder.close()
    adaptation.corpus_embedder(CORPUS, base.parent, threads=1)
    assert not loaded.exists() and linked.is_dir()
    shutil.rmtree(tmp_path / "idx")  # the last index linking it is gone: so is the cached copy
    adaptation.corpus_embedder(CORPUS, base.parent, threads=1)
    assert not linked.exists()


def test_too_few_pairs_keep_the_base_model(stubs, tmp_path, capsys):
    base, trained = stubs
    tiny = tmp_path / "corpus"
    tiny.mkdir()
    (tiny / "jeu.md").write_text("---\nid: jeu\ntitle: Jeu\n---\n\n# Règles\n\nOn joue à tour de rôle. (p. 2)\n")
    assert adaptation.corpus_embedder(tiny, base.parent, threads=1, adapt=True).model_id == BASE_ID
    assert trained == [] and "modèle de base, non adapté" in capsys.readouterr().err


def test_an_index_without_its_model_is_refused_with_the_fix(stubs, tmp_path):
    build_index(CORPUS, tmp_path / "named", FakeEmbedder(), progress=False)  # a model named only
    with pytest.raises(IndexMismatchError, match="fake-hashing.*RULESQA_MODEL.*rulesqa index"):
        adaptation.index_embedder(tmp_path / "named", threads=1)
    base, _ = stubs
    build_index(CORPUS, tmp_path / "idx", adaptation.corpus_embedder(CORPUS, base.parent, threads=1), progress=False)
    graph = tmp_path / "idx" / "model" / "onnx" / "model.onnx"
    graph.unlink()  # a damaged copy (never written in place: the file is the cache's too)
    graph.write_bytes(b"truncated")
    with pytest.raises(IndexMismatchError, match="n'est pas celui de son manifeste"):
        adaptation.index_embedder(tmp_path / "idx", threads=1)


def test_the_cached_adaptation_a_build_asks_for_is_kept_and_reused(stubs, tmp_path):
    base, trained = stubs
    first = adaptation.corpus_embedder(CORPUS, base.parent, threads=1, adapt=True)
    first.close()  # its index was thrown away (an eval's scratch index): nothing links or holds it now
    again = adaptation.corpus_embedder(CORPUS, base.parent, threads=1, adapt=True)
    assert len(trained) == 1 and again.path == trained[0][2]  # not removed before use, not trained again
