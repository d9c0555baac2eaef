"""The Embedder protocol, the factory and the tokenizer pieces they rely on.

Most tests here need neither the model folder nor torch; the ones that load the real
model are marked `model` and reuse the session-built folder.
"""

from __future__ import annotations

import subprocess
import sys

import numpy as np
import pytest

from indexer.errors import ModelError
from tests.fakes import REPO


def test_import_is_cheap():
    # The CLI and the web app import the indexer at start-up; torch costs seconds there.
    code = ("import sys, indexer.models, indexer.models.e5, indexer.models.gemma, indexer.build, service.engine.answerer, service.runtime.settings, rulesqa.cli; "
            "heavy = [m for m in ('torch', 'sentence_transformers', 'transformers', 'onnxruntime') "
            "if m in sys.modules]; print(heavy)")
    out = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


def test_protocol_is_satisfiable_by_a_tiny_class():
    from indexer.models import Embedder

    class Tiny:
        model_id = "tiny"
        dim = 2
        passage_form = "{text}"

        def fingerprint(self) -> str:
            return "t"

        def encode_queries(self, texts: list[str]) -> np.ndarray:
            return np.ones((len(texts), 2), np.float32) / np.sqrt(2)

        def encode_passages(self, texts: list[str]) -> np.ndarray:
            return self.encode_queries(texts)

    assert isinstance(Tiny(), Embedder)
    assert not isinstance(object(), Embedder)


def test_threads_default_to_two_cores_and_honour_env(monkeypatch):
    from service.runtime.settings import ConfigError
    from service.runtime.settings import load_settings

    monkeypatch.delenv("RULESQA_THREADS", raising=False)
    assert 1 <= load_settings().threads <= 2
    monkeypatch.setenv("RULESQA_THREADS", "3")
    assert load_settings().threads == 3
    monkeypatch.setenv("RULESQA_THREADS", "beaucoup")
    with pytest.raises(ConfigError, match="RULESQA_THREADS"):
        load_settings()


def test_unknown_backend_is_a_model_error(tmp_path):
    from indexer.models import load_embedder

    with pytest.raises(ModelError, match="backend"):
        load_embedder(str(tmp_path), models_dir=tmp_path, backend="tensorflow")


def test_onnx_backend_needs_an_export(tmp_path):
    from indexer.models import load_embedder

    with pytest.raises(ModelError, match="ONNX"):
        load_embedder(str(tmp_path), models_dir=tmp_path, backend="onnx")


def test_unloadable_model_is_a_model_error(tmp_path, monkeypatch):
    from indexer.models import load_embedder

    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    with pytest.raises(ModelError, match="introuvable"):
        load_embedder(str(tmp_path / "no-such-model"), models_dir=tmp_path, backend="torch")


def test_truncation_keeps_head_and_closing_token():
    from indexer.models.onnx_runtime import OnnxEncoder

    enc = OnnxEncoder.__new__(OnnxEncoder)  # only the truncation rule, no session
    enc.max_length, enc._eos_id = 5, 2
    assert enc._truncate([0, 10, 11, 2]) == [0, 10, 11, 2]
    assert enc._truncate([0, 10, 11, 12, 13, 14, 2]) == [0, 10, 11, 12, 2]


def test_precompiled_charsmap_round_trips_through_tokenizers():
    from tokenizers.normalizers import Precompiled

    from indexer.models.e5.tokenizer import build_precompiled_charsmap

    mapping = {0xA0: " ", 0xFB01: "fi", 0x01: "", 0x2163: "IV", 0x1F468: "x", 0xFF21: "A"}
    norm = Precompiled(build_precompiled_charsmap(mapping))
    assert norm.normalize_str("a\u00a0b ﬁn \x01x Ⅳ é 👨 Ａ") == "a b fin x IV é x A"
    assert Precompiled(build_precompiled_charsmap({})).normalize_str("a\u00a0b") == "a\u00a0b"


@pytest.mark.model
def test_default_embedder_contract(e5_model_dir, real_embedder):
    from indexer.models import Embedder
    from indexer.models.description import read_model_manifest

    emb = real_embedder
    assert isinstance(emb, Embedder)
    assert emb.model_id == "multilingual-e5-small" and emb.dim == 384 and emb.backend == "onnx"
    q = emb.encode_queries(["Combien de cartes en main ?"])
    p = emb.encode_passages(["Chaque joueur reçoit 8 cartes.", "Le plus jeune commence."])
    assert q.shape == (1, 384) and p.shape == (2, 384) and q.dtype == p.dtype == np.float32
    assert emb.encode_queries([]).shape == (0, 384)
    # The query prompt matters: the same text as a passage gets another vector.
    assert float(q[0] @ emb.encode_passages(["Combien de cartes en main ?"])[0]) < 0.999
    assert p[0] @ q[0] > p[1] @ q[0]
    fp = emb.fingerprint()
    assert fp == read_model_manifest(e5_model_dir)["fingerprint"] and len(fp) == 64


@pytest.mark.model
def test_fingerprint_tracks_files(e5_model_dir, tmp_path):
    import shutil

    from indexer.models import load_embedder
    from indexer.models import get_family
    from indexer.models.description import MANIFEST

    # A folder without our manifest (any ST model on disk) is fingerprinted from its files.
    twin = get_family("e5-small").reference(e5_model_dir.parent)
    copy = tmp_path / "copy"
    shutil.copytree(twin, copy, ignore=shutil.ignore_patterns(MANIFEST))
    first = load_embedder(str(copy), models_dir=e5_model_dir.parent, threads=1)
    assert first.model_id == str(copy) and first.backend == "torch"
    cfg = copy / "config_sentence_transformers.json"
    cfg.write_text(cfg.read_text(encoding="utf-8").replace('"query: "', '"question: "'), encoding="utf-8")
    second = load_embedder(str(copy), models_dir=e5_model_dir.parent, threads=1)
    assert first.fingerprint() != second.fingerprint()
