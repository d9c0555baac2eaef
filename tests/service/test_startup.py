"""load_answerer: the index read while the model loads; built when missing or made by another model."""

import pytest

from indexer.errors import IndexMismatchError
from service.settings import Settings
from service.startup import load_answerer
from tests.fakes import CORPUS, FakeEmbedder


def test_missing_index_is_built_then_reused(tmp_path):
    settings = Settings(index_dir=tmp_path / "index", corpus_dir=CORPUS)
    first = FakeEmbedder()
    answerer = load_answerer(settings, first)
    assert answerer.retriever.manifest.corpus.passages == 81 and sum(first.passage_calls) == 81
    again = FakeEmbedder()
    answerer = load_answerer(settings, again)
    assert again.passage_calls == [] and answerer.ask("Les pépites d'or rapportent combien ?", "karuba").found


def test_an_index_of_another_model_is_rebuilt_or_refused(tmp_path):
    settings = Settings(index_dir=tmp_path / "index", corpus_dir=CORPUS)
    load_answerer(settings, FakeEmbedder())
    other = FakeEmbedder(salt="autre")
    assert load_answerer(settings, other).retriever.manifest.embedding.fingerprint == other.fingerprint()
    frozen = Settings(index_dir=tmp_path / "index", corpus_dir=CORPUS, build_index_if_missing=False)
    with pytest.raises(IndexMismatchError, match="modèle"):
        load_answerer(frozen, FakeEmbedder())
