"""The hand-written ONNX graph (indexer/models/e5/graph.py) against a plain numpy encoder, on a tiny random model.

No real weights needed: a 2-layer, 64-wide XLM-R-like encoder with random 4-bit blocks is enough to check
the layouts (nibble order, scales, zero point 8), the attention mask, positions, pooling and normalisation.
"""

from __future__ import annotations

from math import erf

import numpy as np
import pytest

from indexer.models.e5.graph import (EncoderWeights, Layer, LowRank, build_graph, dense, low_rank_updates,
                                     with_trained_layers)
from indexer.models.onnx_graph import int8_blocks
from indexer.models.e5.weights import QK, Q4_BLOCK_BYTES, Q4Blocks

HIDDEN, HEADS, FFN, VOCAB, MAX_POS, LAYERS = 64, 4, 128, 50, 16, 2


def q4(rows: int, cols: int, rng) -> Q4Blocks:
    raw = rng.integers(0, 256, size=(rows, cols // QK, Q4_BLOCK_BYTES), dtype=np.uint8)
    raw[:, :, :2] = np.frombuffer(rng.uniform(0.01, 0.05, size=(rows, cols // QK)).astype(np.float16).tobytes(),
                                  dtype=np.uint8).reshape(rows, cols // QK, 2)
    return Q4Blocks(raw, rows, cols)


@pytest.fixture(scope="module")
def weights() -> EncoderWeights:
    rng = np.random.default_rng(7)

    def vec(n, scale=0.1, center=0.0):
        return (center + scale * rng.standard_normal(n)).astype(np.float32)

    layers = [Layer(q=q4(HIDDEN, HIDDEN, rng), k=q4(HIDDEN, HIDDEN, rng), v=q4(HIDDEN, HIDDEN, rng),
                    attention_out=q4(HIDDEN, HIDDEN, rng), ffn_in=q4(FFN, HIDDEN, rng), ffn_out=q4(HIDDEN, FFN, rng),
                    biases={"q": vec(HIDDEN), "k": vec(HIDDEN), "v": vec(HIDDEN), "attention_out": vec(HIDDEN),
                            "ffn_in": vec(FFN), "ffn_out": vec(HIDDEN)},
                    norms={"attention": (vec(HIDDEN, center=1.0), vec(HIDDEN)),
                           "output": (vec(HIDDEN, center=1.0), vec(HIDDEN))})
              for _ in range(LAYERS)]
    return EncoderWeights(word=q4(VOCAB, HIDDEN, rng), positions=vec(MAX_POS * HIDDEN).reshape(MAX_POS, HIDDEN),
                          token_type=vec(HIDDEN), embedding_norm=(vec(HIDDEN, center=1.0), vec(HIDDEN)),
                          layers=layers, heads=HEADS, eps=1e-5)


def layer_norm(x, gamma_beta, eps):
    mean = x.mean(-1, keepdims=True)
    var = ((x - mean) ** 2).mean(-1, keepdims=True)
    return (x - mean) / np.sqrt(var + eps) * gamma_beta[0] + gamma_beta[1]


def reference(w: EncoderWeights, ids: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """BERT/XLM-R in float64 numpy with the dequantized weights: what the graph must compute."""
    def lin(x, m, b):
        if isinstance(m, LowRank):
            return x @ m.base.dequantize().T.astype(np.float64) + (x @ m.down.T.astype(np.float64)) @ m.up.T + b
        m = m.dequantize() if isinstance(m, Q4Blocks) else m
        return x @ m.T.astype(np.float64) + b

    positions = np.cumsum(mask, axis=1) * mask  # 1.. for real tokens; padding reads row 0 (zeros)
    table = np.vstack([np.zeros((1, HIDDEN)), w.positions])
    x = w.word.dequantize()[ids] + table[positions] + w.token_type
    x = layer_norm(x, w.embedding_norm, w.eps)
    b, s = ids.shape
    d = HIDDEN // HEADS
    gelu = np.vectorize(lambda v: 0.5 * v * (1 + erf(v / np.sqrt(2))))
    for layer in w.layers:
        q, k, v = (lin(x, getattr(layer, n), layer.biases[n]).reshape(b, s, HEADS, d).transpose(0, 2, 1, 3)
                   for n in ("q", "k", "v"))
        scores = q @ k.transpose(0, 1, 3, 2) / np.sqrt(d) + np.where(mask[:, None, None, :] > 0, 0.0, -1e9)
        p = np.exp(scores - scores.max(-1, keepdims=True))
        p /= p.sum(-1, keepdims=True)
        att = (p @ v).transpose(0, 2, 1, 3).reshape(b, s, HIDDEN)
        x = layer_norm(lin(att, layer.attention_out, layer.biases["attention_out"]) + x, layer.norms["attention"], w.eps)
        h = lin(gelu(lin(x, layer.ffn_in, layer.biases["ffn_in"])), layer.ffn_out, layer.biases["ffn_out"])
        x = layer_norm(h + x, layer.norms["output"], w.eps)
    pooled = (x * mask[..., None]).sum(1) / mask.sum(1, keepdims=True)
    return pooled / np.linalg.norm(pooled, axis=1, keepdims=True)


def run(path, ids, mask):
    import onnxruntime as ort

    session = ort.InferenceSession(str(path), providers=["CPUExecutionProvider"])
    (out,) = session.run(None, {"input_ids": ids, "attention_mask": mask})
    return out


@pytest.fixture(scope="module")
def batch():
    rng = np.random.default_rng(1)
    ids = rng.integers(3, VOCAB, size=(3, 9)).astype(np.int64)
    mask = np.ones_like(ids)
    mask[1, 6:] = 0  # padded rows: their tokens must not count, wherever they point
    mask[2, 3:] = 0
    ids[mask == 0] = 1
    return ids, mask


def test_q4_graph_computes_the_dequantized_encoder(weights, batch, tmp_path):
    build_graph(weights, tmp_path / "m.onnx", accuracy_level=0)  # float32 activations: exact arithmetic
    out = run(tmp_path / "m.onnx", *batch)
    assert out.shape == (3, HIDDEN) and out.dtype == np.float32
    np.testing.assert_allclose(out, reference(weights, *batch), atol=2e-5)


def test_padding_does_not_change_a_text_vector(weights, batch, tmp_path):
    build_graph(weights, tmp_path / "m.onnx")
    ids, mask = batch
    alone = run(tmp_path / "m.onnx", ids[2:, :3], mask[2:, :3])
    np.testing.assert_allclose(run(tmp_path / "m.onnx", ids, mask)[2], alone[0], atol=1e-5)


def test_int8_activations_stay_close_to_the_exact_encoder(weights, batch, tmp_path):
    build_graph(weights, tmp_path / "m.onnx")  # the served default: accuracy level 4
    cos = (run(tmp_path / "m.onnx", *batch) * reference(weights, *batch)).sum(1)
    assert cos.min() > 0.999


def float_state(w: EncoderWeights) -> dict[str, np.ndarray]:
    """A transformers state dict of the same weights, as a fine-tune hands them back."""
    names = {"q": "attention.self.query", "k": "attention.self.key", "v": "attention.self.value",
             "attention_out": "attention.output.dense", "ffn_in": "intermediate.dense", "ffn_out": "output.dense"}
    sd = {"embeddings.word_embeddings.weight": w.word.dequantize(),
          "embeddings.position_embeddings.weight": np.vstack([np.zeros((2, HIDDEN), np.float32), w.positions]),
          "embeddings.token_type_embeddings.weight": w.token_type[None, :],
          "embeddings.LayerNorm.weight": w.embedding_norm[0], "embeddings.LayerNorm.bias": w.embedding_norm[1]}
    for i, layer in enumerate(w.layers):
        pre = f"encoder.layer.{i}."
        for short, long in names.items():
            sd[pre + long + ".weight"] = getattr(layer, short).dequantize()
            sd[pre + long + ".bias"] = layer.biases[short]
        for short, long in {"attention": "attention.output.LayerNorm", "output": "output.LayerNorm"}.items():
            sd[pre + long + ".weight"], sd[pre + long + ".bias"] = layer.norms[short]
    return sd


@pytest.mark.parametrize("float_layers,atol", [("float32", 2e-5), ("int8", 2e-2)])
def test_trained_layers_in_float32_or_int8(weights, batch, tmp_path, float_layers, atol):
    trained = with_trained_layers(weights, float_state(weights))
    assert trained.word is weights.word  # the frozen word embeddings stay in their 4-bit blocks
    build_graph(trained, tmp_path / "m.onnx", float_layers=float_layers, accuracy_level=0)
    out = run(tmp_path / "m.onnx", *batch)
    np.testing.assert_allclose(out, reference(weights, *batch), atol=atol)
    if float_layers == "int8":
        assert (out * reference(weights, *batch)).sum(1).min() > 0.9995


def fine_tuned(w: EncoderWeights, rank: int, seed: int = 5) -> EncoderWeights:
    """`w` after a pretend fine-tune: each matrix (float32 now) moved by a random update of rank `rank`."""
    rng = np.random.default_rng(seed)
    state = float_state(w)
    for name, value in state.items():
        if name.startswith("encoder.layer.") and name.endswith(".weight") and "LayerNorm" not in name:
            rows, cols = value.shape
            value += 0.1 * rng.standard_normal((rows, rank)) @ rng.standard_normal((rank, cols)) / np.sqrt(cols)
    return with_trained_layers(w, state)


def test_low_rank_updates_keep_the_4bit_base_and_add_the_change(weights, batch, tmp_path):
    trained = fine_tuned(weights, rank=3)
    compact = low_rank_updates(weights, trained, rank=3)
    layer = compact.layers[1]
    assert all(isinstance(getattr(layer, n), LowRank) for n in ("q", "k", "v", "attention_out", "ffn_in", "ffn_out"))
    assert layer.ffn_in.base is weights.layers[1].ffn_in and layer.ffn_in.down.shape == (3, HIDDEN)
    # A change of rank 3 is kept whole at rank 3: the same matrices, the same graph output.
    np.testing.assert_allclose(dense(layer.ffn_in), trained.layers[1].ffn_in, atol=1e-5)
    build_graph(compact, tmp_path / "m.onnx", accuracy_level=0)
    expected = reference(trained, *batch)
    np.testing.assert_allclose(run(tmp_path / "m.onnx", *batch), expected, atol=2e-5)
    assert np.abs(expected - reference(weights, *batch)).max() > 1e-2  # the update does change the vectors
    # 4-bit blocks on disk, not float32 matrices.
    build_graph(trained, tmp_path / "f32.onnx", accuracy_level=0)
    assert (tmp_path / "m.onnx").stat().st_size < 0.5 * (tmp_path / "f32.onnx").stat().st_size


def test_low_rank_updates_keep_the_largest_directions_of_the_change(weights):
    trained = fine_tuned(weights, rank=8)
    change = trained.layers[0].q - weights.layers[0].q.dequantize()
    errors = [np.linalg.norm(dense(low_rank_updates(weights, trained, rank=r).layers[0].q) - trained.layers[0].q)
              for r in (1, 4, 8)]
    singular = np.linalg.svd(change, compute_uv=False)
    assert errors[0] > errors[1] > errors[2] and errors[2] < 1e-4  # rank 8 holds a rank-8 change
    np.testing.assert_allclose(errors[1], np.sqrt((singular[4:] ** 2).sum()), rtol=1e-4)  # Eckart-Young


def test_q4_blocks_layouts_on_a_hand_made_block():
    raw = np.zeros((1, 1, Q4_BLOCK_BYTES), np.uint8)
    raw[0, 0, :2] = np.frombuffer(np.float16(0.5).tobytes(), np.uint8)
    raw[0, 0, 2:] = [(15 << 4) | j for j in range(16)]  # weight j = j, weight j+16 = 15 (before the -8)
    block = Q4Blocks(raw, 1, QK)
    expected = np.array(list(range(16)) + [15] * 16, np.float32)
    np.testing.assert_array_equal(block.dequantize()[0], (expected - 8) * 0.5)
    packed = block.packed_pairs()[0, 0]  # MatMulNBits: weight 2j low nibble, 2j+1 high nibble
    assert [int(b) & 0xF for b in packed[:8]] == [0, 2, 4, 6, 8, 10, 12, 14]
    assert [int(b) >> 4 for b in packed[:8]] == [1, 3, 5, 7, 9, 11, 13, 15]
    assert all(int(b) == 0xFF for b in packed[8:])


def test_int8_blocks_round_trip_within_half_a_step():
    w = np.random.default_rng(3).standard_normal((4, 2 * QK)).astype(np.float32)
    w[0, :QK] = 0.0  # an all-zero block must not divide by zero
    codes, scales = int8_blocks(w)
    assert codes.shape == (4, 2, QK) and scales.shape == (4, 2)
    back = (codes.astype(np.float32) - 128) * scales[:, :, None]
    assert np.abs(back.reshape(4, -1) - w).max() <= scales.max() / 2 + 1e-7
    assert np.all(back.reshape(4, -1)[0, :QK] == 0)
