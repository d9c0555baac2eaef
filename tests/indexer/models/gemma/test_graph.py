"""EmbeddingGemma's hand-written ONNX graph (indexer/models/gemma/graph.py) against sentence-transformers itself,
on a tiny random Gemma3 (tests/gemma_tiny.py): no download.

3 layers of both types, 2 query heads sharing 1 key/value head, a sliding window of 4 (transformers turns it
into |i - j| < 3 for bidirectional attention) so that the window bites on sequences of 12, random non-zero norm
weights (a zero weight would hide the 1 + w), the five sentence-transformers modules of the real folder.
"""

from __future__ import annotations

import json
import shutil
from dataclasses import replace

import numpy as np
import pytest

from indexer.errors import ModelError
from indexer.models.gemma import graph
from indexer.models.gemma.graph import build_graph
from indexer.models.gemma.quantise import int4_blocks
from indexer.models.gemma.tokenizer import GemmaTokenizer
from indexer.models.onnx_graph import QK, int8_blocks
from tests.gemma_tiny import HIDDEN, LAYERS, VOCAB, write_tiny_gemma

LENGTHS = [9, 3, 7, 1, 12]


@pytest.fixture(scope="module")
def folder(tmp_path_factory):
    return write_tiny_gemma(tmp_path_factory.mktemp("gemma"))


@pytest.fixture(scope="module")
def st_model(folder):
    from sentence_transformers import SentenceTransformer

    return SentenceTransformer(str(folder), device="cpu")


@pytest.fixture(scope="module")
def batch():
    """Right-padded rows of different lengths, up to 12 tokens (beyond the window of 3)."""
    rng = np.random.default_rng(1)
    ids = np.zeros((len(LENGTHS), max(LENGTHS)), np.int64)
    mask = np.zeros_like(ids)
    for row, n in enumerate(LENGTHS):
        ids[row, :n] = rng.integers(3, VOCAB, n)
        ids[row, 0], ids[row, n - 1] = 2, 1
        mask[row, :n] = 1
    return ids, mask


def expected(st_model, ids, mask) -> np.ndarray:
    import torch

    with torch.no_grad():
        out = st_model({"input_ids": torch.tensor(ids), "attention_mask": torch.tensor(mask)})
    return out["sentence_embedding"].numpy()


def run(path, ids, mask) -> np.ndarray:
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL  # the fusions of serving
    session = ort.InferenceSession(str(path), sess_options=opts, providers=["CPUExecutionProvider"])
    return session.run(None, {"input_ids": ids, "attention_mask": mask})[0]


def cosines(a, b) -> np.ndarray:
    return (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def rows_alone(path, ids, mask) -> np.ndarray:
    return np.concatenate([run(path, ids[r:r + 1, :n], mask[r:r + 1, :n]) for r, n in enumerate(LENGTHS)])


def test_float32_graph_is_the_sentence_transformers_pipeline(folder, st_model, batch, tmp_path):
    info = build_graph(folder, tmp_path / "m.onnx", weight_bits=32, embedding_bits=32)
    out = run(tmp_path / "m.onnx", *batch)
    assert out.shape == (len(LENGTHS), HIDDEN) and out.dtype == np.float32
    assert cosines(out, expected(st_model, *batch)).min() > 0.99999
    np.testing.assert_allclose(out, expected(st_model, *batch), atol=1e-5)
    assert info["dimension"] == HIDDEN and info["max_positions"] == 64 and info["block_size"] == QK
    # The table in its own file beside the graph (onnxruntime maps it), counted in the bytes written.
    on_disk = (tmp_path / "m.onnx").stat().st_size + (tmp_path / "m.onnx.data").stat().st_size
    assert info["sliding_window"] == 3 and info["file_bytes"] == on_disk


@pytest.mark.parametrize("weight_bits", [32, 8])
def test_padding_changes_no_row(folder, batch, tmp_path, weight_bits):
    build_graph(folder, tmp_path / "m.onnx", weight_bits=weight_bits)
    np.testing.assert_allclose(run(tmp_path / "m.onnx", *batch), rows_alone(tmp_path / "m.onnx", *batch), atol=1e-5)


def test_the_sliding_window_bites(folder, st_model, batch, tmp_path, monkeypatch):
    """The same graph without the window (every layer attending everywhere) is measurably wrong on these rows:
    the window mask is exercised, not merely present."""
    spec = graph.read_spec(folder)
    monkeypatch.setattr(graph, "read_spec", lambda source: replace(spec, window=10**6))
    build_graph(folder, tmp_path / "m.onnx", weight_bits=32, embedding_bits=32)
    cos = cosines(run(tmp_path / "m.onnx", *batch), expected(st_model, *batch))
    assert cos[np.array(LENGTHS) > 3].max() < 0.9999 and cos[np.array(LENGTHS) <= 3].min() > 0.99999


def dequantised_matrix(weight: np.ndarray, bits: int) -> np.ndarray:
    """What MatMulNBits computes with: the blocks of int8_blocks / int4_blocks, dequantised in numpy."""
    if bits == 8:
        codes, scales = int8_blocks(weight)
        values = codes.astype(np.float32) - 128
    else:
        packed, scales = int4_blocks(weight)
        values = np.stack([packed & 15, packed >> 4], axis=-1).reshape(*packed.shape[:2], QK).astype(np.float32) - 8
    return (values * scales[:, :, None]).reshape(weight.shape)


def table_from_graph(path) -> tuple[np.ndarray, list]:
    """The embedding table the graph holds, dequantised (sqrt(hidden) included), and every initializer."""
    import onnx
    from onnx import numpy_helper

    inits = {t.name: numpy_helper.to_array(t) for t in onnx.load(str(path)).graph.initializer}
    codes = next(v for k, v in inits.items() if k.startswith("embed_q"))
    scales = next(v for k, v in inits.items() if k.startswith("embed_scales")).astype(np.float32)
    if codes.dtype == np.int8:
        values = codes.astype(np.float32)
    else:
        values = np.stack([codes & 15, codes >> 4], axis=-1).reshape(VOCAB, HIDDEN).astype(np.float32) - 8
    return (values.reshape(VOCAB, -1, QK) * scales[:, :, None]).reshape(VOCAB, HIDDEN), list(inits.items())


@pytest.mark.parametrize("weight_bits,embedding_bits", [(8, 8), (4, 4)])
def test_quantised_graph_computes_its_dequantised_weights(folder, st_model, batch, tmp_path, weight_bits,
                                                          embedding_bits):
    """At accuracy level 0 (float32 activations) the quantised graph is the float32 pipeline run with its own
    dequantised blocks: checks the codes' layouts (nibble order, zero points, scales) and the lookup."""
    import copy

    import torch

    build_graph(folder, tmp_path / "m.onnx", weight_bits=weight_bits, embedding_bits=embedding_bits,
                accuracy_level=0)
    twin = copy.deepcopy(st_model)
    gemma = twin[0].auto_model
    table, _ = table_from_graph(tmp_path / "m.onnx")
    with torch.no_grad():
        gemma.embed_tokens.weight.copy_(torch.from_numpy(table / np.float32(HIDDEN ** 0.5)))
        for module in gemma.modules():
            if isinstance(module, torch.nn.Linear):
                module.weight.copy_(torch.from_numpy(dequantised_matrix(module.weight.numpy(), weight_bits)))
    out = run(tmp_path / "m.onnx", *batch)
    assert cosines(out, expected(twin, *batch)).min() > 0.99999


# Bounds against the float32 model on this tiny random model (its 64-wide random matrices lose more to
# quantisation than the real model's: on EmbeddingGemma the 8-bit graph keeps cosines above 0.9994).
@pytest.mark.parametrize("weight_bits,embedding_bits,accuracy_level,bound", [
    (8, 8, 4, 0.998), (8, 8, 0, 0.998), (4, 8, 4, 0.85), (4, 4, 4, 0.75)])
def test_quantised_graphs_stay_close(folder, st_model, batch, tmp_path, weight_bits, embedding_bits,
                                     accuracy_level, bound):
    build_graph(folder, tmp_path / "m.onnx", weight_bits=weight_bits, embedding_bits=embedding_bits,
                accuracy_level=accuracy_level)
    assert cosines(run(tmp_path / "m.onnx", *batch), expected(st_model, *batch)).min() > bound


@pytest.mark.parametrize("embedding_bits,dtype,width", [(8, np.int8, HIDDEN), (4, np.uint8, HIDDEN // 2)])
def test_the_embedding_table_is_not_stored_in_float32(folder, tmp_path, embedding_bits, dtype, width):
    info = build_graph(folder, tmp_path / "m.onnx", weight_bits=8, embedding_bits=embedding_bits)
    table, inits = table_from_graph(tmp_path / "m.onnx")
    assert not [k for k, v in inits if v.dtype == np.float32 and v.size >= VOCAB * HIDDEN]
    codes = next(v for k, v in inits if k.startswith("embed_q"))
    scales = next(v for k, v in inits if k.startswith("embed_scales"))
    assert codes.dtype == dtype and codes.shape == (VOCAB, width)
    assert scales.dtype == np.float16 and scales.shape == (VOCAB, HIDDEN // QK)
    assert info["embedding_bytes"] == codes.nbytes + scales.nbytes
    # No float32 matrix either: every layer's weights are MatMulNBits blocks; only the fused Dense (one
    # hidden x hidden matrix) stays float32.
    big = [k for k, v in inits if v.dtype == np.float32 and v.size > HIDDEN * HIDDEN]
    assert big == []


def test_the_dense_layers_are_one_matrix(folder, tmp_path):
    import onnx

    build_graph(folder, tmp_path / "m.onnx", weight_bits=8)
    nodes = onnx.load(str(tmp_path / "m.onnx")).graph.node
    assert [n.op_type for n in nodes].count("MatMul") == 1 + LAYERS * 2  # dense + per layer: scores, values
    assert [n.op_type for n in nodes].count("MatMulNBits") == LAYERS * 4  # qkv, o, gate+up, down


def test_int4_blocks_round_to_the_nearest_of_sixteen_codes():
    rng = np.random.default_rng(3)
    weight = rng.standard_normal((4, 2 * QK)).astype(np.float32)
    packed, scales = int4_blocks(weight)
    assert packed.shape == (4, 2, QK // 2) and scales.shape == (4, 2)
    blocks = weight.reshape(4, 2, QK)
    largest = np.take_along_axis(blocks, np.abs(blocks).argmax(2)[:, :, None], 2)[:, :, 0]
    np.testing.assert_allclose(scales * -8, largest, rtol=1e-6)  # the largest magnitude is code 0 exactly
    error = np.abs(dequantised_matrix(weight, 4) - weight).reshape(4, 2, QK)
    step = np.abs(scales)[:, :, None]
    # Nearest code, except beyond +7.5 steps (the other sign's side of -8), clipped to 7.
    inside = blocks / scales[:, :, None] <= 7.5
    assert (error[inside] <= (step * 0.5 + 1e-6).repeat(QK, axis=2)[inside]).all() and (error <= step + 1e-6).all()


def copy_of(folder, tmp_path):
    shutil.copytree(folder, tmp_path / "copy")
    return tmp_path / "copy"


def edit_json(path, **changes):
    data = json.loads(path.read_text())
    data.update(changes)
    path.write_text(json.dumps(data))


@pytest.mark.parametrize("damage,words", [
    (lambda f: edit_json(f / "config.json", model_type="bert"), "pas un modèle Gemma3"),
    (lambda f: (f / "model.safetensors").unlink(), "fichier manquant : model.safetensors"),
    (lambda f: (f / "modules.json").unlink(), "fichier manquant : modules.json"),
    (lambda f: (f / "2_Dense" / "model.safetensors").unlink(), "fichier manquant : 2_Dense/model.safetensors"),
    (lambda f: edit_json(f / "1_Pooling" / "config.json", pooling_mode="cls"), "pooling moyen"),
    (lambda f: edit_json(f / "config.json", use_bidirectional_attention=False), "attention causale"),
])
def test_a_folder_it_cannot_reproduce_is_refused_in_one_french_line(folder, tmp_path, damage, words):
    broken = copy_of(folder, tmp_path)
    damage(broken)
    with pytest.raises(ModelError) as refused:
        build_graph(broken, tmp_path / "m.onnx")
    assert words in str(refused.value) and "\n" not in str(refused.value)
    assert not (tmp_path / "m.onnx").exists()


def test_unknown_settings_are_refused(folder, tmp_path):
    with pytest.raises(ModelError, match="weight_bits 6"):
        build_graph(folder, tmp_path / "m.onnx", weight_bits=6)
    with pytest.raises(ModelError, match="embedding_bits 16"):
        build_graph(folder, tmp_path / "m.onnx", embedding_bits=16)


def test_tokenizer_gives_the_model_tokenizers_ids(folder):
    from transformers import AutoTokenizer

    ours, theirs = GemmaTokenizer.load(folder), AutoTokenizer.from_pretrained(str(folder))
    for text in ["w5 w17 w299", "w4", "", "w8  w9 inconnu"]:
        assert ours.token_ids(text) == theirs(text)["input_ids"]
    assert ours.token_ids("w5")[0] == 2 and ours.token_ids("w5")[-1] == ours.eos == 1 and ours.pad == 0


def test_tokenizer_refuses_a_folder_without_tokenizer_json(folder, tmp_path):
    broken = copy_of(folder, tmp_path)
    (broken / "tokenizer.json").unlink()
    with pytest.raises(ModelError, match="fichier manquant : tokenizer.json"):
        GemmaTokenizer.load(broken)
