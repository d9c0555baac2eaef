"""Which model indexes a corpus and which answers over an index, with the training and the model stubbed:
the real fine-tune is tested in tests/indexer/e5/test_adapt.py."""

import json
import shutil

import pytest

import indexer.adaptation as adaptation
from indexer.build import build_index
from indexer.errors import IndexMismatchError
from tests.fakes import CORPUS, FakeEmbedder


class FolderEmbedder(FakeEmbedder):
    def __init__(self, model_id):
        super().__init__(salt=model_id)
        self.model_id = model_id


@pytest.fixture
def stubs(tmp_path, monkeypatch):
    base = tmp_path / "models" / "multilingual-e5-small"
    trained = []

    def adapt_model(base_dir, pairs, out, **kwargs):
        trained.append((base_dir, len(pairs), out))
        out.mkdir(parents=True, exist_ok=True)
        (out / "rulesqa_build.json").write_text(json.dumps(
            {"model_id": f"multilingual-e5-small-adapted-{out.name[-12:]}", "fingerprint": "f"}))
        return out

    monkeypatch.setattr(adaptation, "ensure_model", lambda folder: folder)
    monkeypatch.setattr(adaptation, "base_fingerprint", lambda folder: "base")
    monkeypatch.setattr(adaptation, "adapt_model", adapt_model)
    monkeypatch.setattr(adaptation, "load_embedder", lambda name, model_dir, threads: FolderEmbedder("multilingual-e5-small"))
    monkeypatch.setattr(adaptation, "load_folder_embedder",
                        lambda folder, threads: FolderEmbedder(json.loads((folder / "rulesqa_build.json").read_text())["model_id"]))
    return base, trained


def test_the_corpus_is_indexed_with_the_model_adapted_to_it(stubs, tmp_path):
    base, trained = stubs
    stale = base.parent / "multilingual-e5-small-adapted-000000000000"
    stale.mkdir(parents=True)  # an adaptation to an older corpus: about 1 GB, removed
    embedder = adaptation.corpus_embedder(CORPUS, base, threads=1)
    assert embedder.model_id.startswith("multilingual-e5-small-adapted-")
    (called_base, pairs, out), = trained
    assert called_base == base and pairs >= 16 and out.parent == base.parent
    assert not stale.exists() and out.is_dir()
    # Answering loads the adapted model the index names.
    build_index(CORPUS, tmp_path / "idx", embedder, progress=False)
    again = adaptation.index_embedder(tmp_path / "idx", base, threads=1)
    assert again.model_id == embedder.model_id
    shutil.rmtree(out)
    with pytest.raises(IndexMismatchError, match="rulesqa index"):
        adaptation.index_embedder(tmp_path / "idx", base, threads=1)


def test_no_adapt_and_too_few_pairs_keep_the_base_model(stubs, tmp_path, capsys):
    base, trained = stubs
    assert adaptation.corpus_embedder(CORPUS, base, threads=1, adapt=False).model_id == "multilingual-e5-small"
    tiny = tmp_path / "corpus"
    tiny.mkdir()
    (tiny / "jeu.md").write_text("---\nid: jeu\ntitle: Jeu\n---\n\n# Règles\n\nOn joue à tour de rôle. (p. 2)\n")
    assert adaptation.corpus_embedder(tiny, base, threads=1).model_id == "multilingual-e5-small"
    assert trained == [] and "modèle de base, non adapté" in capsys.readouterr().err


def test_an_index_of_the_base_model_answers_with_the_base_model(stubs, tmp_path):
    base, _ = stubs
    build_index(CORPUS, tmp_path / "idx", FolderEmbedder("multilingual-e5-small"), progress=False)
    assert adaptation.index_embedder(tmp_path / "idx", base, threads=1).model_id == "multilingual-e5-small"
