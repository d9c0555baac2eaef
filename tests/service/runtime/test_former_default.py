"""With EmbeddingGemma the default family, an index built with e5-small (the fallback) is rebuilt with the default
on the next start (it answers meanwhile), unless a model was asked for, or adaptation (e5's) is on, or the default
waits for its terms: then it answers as it is and one line says why. With e5-small the default, nothing moves."""

import logging
from types import SimpleNamespace

import pytest

from indexer.models import registry
from indexer.models.gemma import terms
from service.runtime.settings import load_settings
from service.runtime.startup import former_default


def manifest(family: str, model_id: str):
    return SimpleNamespace(model=SimpleNamespace(family=family), embedding=SimpleNamespace(model_id=model_id))


E5 = manifest("e5-small", "multilingual-e5-small")


@pytest.fixture
def e5_default(monkeypatch, tmp_path):
    """No model asked for (the suite's RULESQA_MODEL cleared), an empty models cache, the registry as it is."""
    monkeypatch.delenv("RULESQA_MODEL", raising=False)
    monkeypatch.delenv("RULESQA_ACCEPT_GEMMA_TERMS", raising=False)
    return tmp_path / "models"


@pytest.fixture
def unset(e5_default, monkeypatch):
    """The same, with EmbeddingGemma the default family."""
    monkeypatch.setattr(registry, "DEFAULT_FAMILY", "embeddinggemma")
    return e5_default


def test_with_e5_small_the_default_an_e5_index_is_never_stale(e5_default):
    assert registry.DEFAULT_FAMILY == "e5-small"
    terms.record_acceptance(e5_default, "terminal")
    assert former_default(load_settings(models_dir=e5_default), E5) is None


def test_an_e5_index_is_stale_once_the_default_can_be_had(unset):
    terms.record_acceptance(unset, "terminal")
    reason = former_default(load_settings(models_dir=unset), E5)
    assert "multilingual-e5-small" in reason and "embeddinggemma-300m" in reason
    assert "RULESQA_MODEL=e5-small" in reason
    # An adapted e5 index is e5-small's family too.
    assert former_default(load_settings(models_dir=unset), manifest("e5-small", "multilingual-e5-small-adapted-0a"))


def test_the_setting_is_enough_and_false_keeps_e5(unset):
    assert former_default(load_settings(models_dir=unset, accept_gemma_terms=True), E5)
    assert former_default(load_settings(models_dir=unset, accept_gemma_terms=False), E5) is None


def test_terms_not_accepted_keep_the_e5_index_and_say_so(unset, caplog):
    with caplog.at_level(logging.WARNING, logger="rulesqa"):
        assert former_default(load_settings(models_dir=unset), E5) is None
    line = caplog.records[-1].getMessage()
    assert "RULESQA_ACCEPT_GEMMA_TERMS=true" in line and "--accept-terms" in line and "\n" not in line


@pytest.mark.parametrize("asked", [{"model": "e5-small"}, {"adapt": True}])
def test_a_model_asked_for_or_adaptation_keeps_the_e5_index(unset, asked):
    terms.record_acceptance(unset, "terminal")
    assert former_default(load_settings(models_dir=unset, **asked), E5) is None


@pytest.mark.parametrize("held", [manifest("embeddinggemma", "embeddinggemma-300m"),
                                  manifest("embeddinggemma-rules-fr", "embeddinggemma-300m-rules-fr"),
                                  manifest("rules-fr", "multilingual-e5-small-rules-fr"),
                                  SimpleNamespace(model=None, embedding=SimpleNamespace(model_id="some/st-model"))])
def test_any_other_index_is_not_the_former_default(unset, held):
    terms.record_acceptance(unset, "terminal")
    assert former_default(load_settings(models_dir=unset), held) is None
