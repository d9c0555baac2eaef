"""Which model a command answers and indexes with, from RULESQA_MODEL: the index's own model when unset, a
family asked for by name only if the index holds that family (else the index must be rebuilt, said before any
model is loaded), a sentence-transformers model named as it is; RULESQA_ADAPT only for e5-small."""

import pytest

import indexer.model_for_index as adaptation
from indexer.build import build_index
from indexer.errors import IndexMismatchError
from service.runtime.settings import ConfigError, load_settings
from tests.fakes import CORPUS, FakeFolderEmbedder, write_fake_model


@pytest.fixture
def index_holds(monkeypatch, tmp_path):
    """An index whose model/ is a fake folder of the given family; the models loaded from it are counted."""
    loaded = []

    def load(folder, threads, model_id=None):
        loaded.append(folder)
        return FakeFolderEmbedder(folder, model_id)

    monkeypatch.setattr(adaptation, "load_folder_embedder", load)

    def holding(family: str, model_id: str):
        folder = write_fake_model(tmp_path / "models" / model_id, model_id, f"fp-{model_id}", family=family)
        build_index(CORPUS, tmp_path / "index", FakeFolderEmbedder(folder), progress=False)
        return tmp_path / "index", loaded
    return holding


def test_unset_answers_with_the_index_own_model_whatever_it_is(index_holds, monkeypatch):
    monkeypatch.delenv("RULESQA_MODEL", raising=False)  # the suite asks for e5-small (tests/conftest.py)
    index, _ = index_holds("embeddinggemma", "embeddinggemma-300m")
    assert load_settings(index_dir=index).index_embedder().model_id == "embeddinggemma-300m"


def test_a_family_asked_for_must_be_the_one_the_index_holds(index_holds):
    index, loaded = index_holds("e5-small", "multilingual-e5-small")
    assert load_settings(index_dir=index, model="e5-small").index_embedder().model_id == "multilingual-e5-small"
    # An alias or the model id name the same family.
    assert load_settings(index_dir=index, model="multilingual-e5-small").index_embedder()
    before = len(loaded)
    with pytest.raises(IndexMismatchError, match="embeddinggemma-300m") as err:
        load_settings(index_dir=index, model="embeddinggemma").index_embedder()
    assert "rulesqa index" in str(err.value) and "\n" not in str(err.value)
    assert len(loaded) == before  # refused from the manifest, no model loaded for nothing


def test_an_adapted_e5_index_is_e5_small(index_holds):
    index, _ = index_holds("e5-small", "multilingual-e5-small-adapted-0123456789ab")
    assert load_settings(index_dir=index, model="e5-small").index_embedder().model_id.endswith("0123456789ab")


def test_adaptation_is_refused_for_another_family_in_one_line(tmp_path):
    with pytest.raises(ConfigError, match="e5-small"):
        load_settings(index_dir=tmp_path, model="embeddinggemma", adapt=True).corpus_embedder()
