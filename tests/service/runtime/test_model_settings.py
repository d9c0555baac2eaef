"""Which model a command answers and indexes with, from RULESQA_MODEL: the index's own model when unset, a
family asked for by name only if the index holds that family (else the index must be rebuilt), a
sentence-transformers model named as it is; RULESQA_ADAPT only for e5-small."""

from types import SimpleNamespace

import pytest

import indexer.model_for_index as adaptation
from indexer.errors import IndexMismatchError
from service.runtime.settings import ConfigError, load_settings


def held(family: str, model_id: str):
    return SimpleNamespace(model_id=model_id, description=SimpleNamespace(family=family))


@pytest.fixture
def index_holds(monkeypatch):
    def holding(family: str, model_id: str):
        monkeypatch.setattr(adaptation, "index_embedder", lambda index_dir, threads: held(family, model_id))
    return holding


def test_unset_answers_with_the_index_own_model_whatever_it_is(index_holds, tmp_path):
    index_holds("embeddinggemma", "embeddinggemma-300m")
    assert load_settings(index_dir=tmp_path).index_embedder().model_id == "embeddinggemma-300m"


def test_a_family_asked_for_must_be_the_one_the_index_holds(index_holds, tmp_path):
    index_holds("e5-small", "multilingual-e5-small")
    assert load_settings(index_dir=tmp_path, model="e5-small").index_embedder().model_id == "multilingual-e5-small"
    # An alias or the model id name the same family.
    assert load_settings(index_dir=tmp_path, model="multilingual-e5-small").index_embedder()
    with pytest.raises(IndexMismatchError, match="embeddinggemma-300m") as err:
        load_settings(index_dir=tmp_path, model="embeddinggemma").index_embedder()
    assert "rulesqa index" in str(err.value) and "\n" not in str(err.value)


def test_an_adapted_e5_index_is_e5_small(index_holds, tmp_path):
    index_holds("e5-small", "multilingual-e5-small-adapted-0123456789ab")
    assert load_settings(index_dir=tmp_path, model="e5-small").index_embedder().model_id.endswith("0123456789ab")


def test_adaptation_is_refused_for_another_family_in_one_line(tmp_path):
    with pytest.raises(ConfigError, match="e5-small"):
        load_settings(index_dir=tmp_path, model="embeddinggemma", adapt=True).corpus_embedder()
