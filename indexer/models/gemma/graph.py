"""EmbeddingGemma-300M as one ONNX graph written directly from its float32 weights, block-quantised.

The source is the sentence-transformers folder (Gemma3TextModel -> mean Pooling -> Dense -> Dense -> Normalize).
Every matrix of the layers is written as onnxruntime's `MatMulNBits` blocks of 32 (8 or 4 bits, symmetric), or
as a plain float32 MatMul for the exactness reference (weight_bits=32). The 262,144-row embedding table is never
stored in float32: its rows are 8- or 4-bit codes with one fp16 scale per block of 32, looked up for the ids and
dequantised after the lookup, the sqrt(hidden) factor of Gemma3's scaled embedding folded into the scales. The
safetensors are read tensor by tensor (the table in slices of rows): the build never holds the float32 model
(0.7 GB of anonymous memory at most for the real one). No torch here.

What is fused, because it is exact (or exact up to float rounding):
- q, k and v are one product, gate and up another: fewer kernel launches, wider work per thread;
- the attention scaling (query_pre_attn_scalar ** -0.5) goes into q_norm's scale: RoPE is linear in q;
- each residual Add goes into the norm that reads the sum (SkipSimplifiedLayerNormalization, which also
  hands the sum on as the next residual): onnxruntime does not fuse these itself;
- the Dense layers have no activation between them: one matrix (and bias) for all of them.

What was measured on the real model (2 threads; benchmarks/gemma_graph_fidelity.py, onnxruntime's profiler):
the 96 products take 80 to 85 % of the time, so the other choices are about memory and node count. Attention is
two plain batched MatMuls (the 3 query heads share the 1 key/value head: the queries of all heads are the rows
of one matrix), as fast as ONNX's Attention-23 or the contrib GroupQueryAttention and 20 to 80 MiB lighter after
a batch of passages; the contrib RotaryEmbedding beats an explicit rotate-half by about 1 ms a question.

The graph: input_ids, attention_mask (int64 [batch, seq], right-padded) -> sentence_embedding (float32
[batch, dimension]), mean pooling over the mask (prompt included), the dense layers and L2 normalisation included.
The source folder is read and checked by spec.py, the blocks are made by quantise.py; this module writes the graph.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

import numpy as np

from indexer.errors import ModelError
from indexer.models.gemma.quantise import embedding_blocks, int4_blocks
from indexer.models.gemma.spec import MODEL_FILE, GemmaSpec, read_spec
from indexer.models.onnx_graph import MS_DOMAIN, OPSET, QK, OnnxBuilder

# 32: plain float32 MatMul, the exactness reference. 4 bits lose too much on EmbeddingGemma (mean cosine to the
# float32 model 0.977, minimum 0.91, whatever the accuracy level or a per-block search of the scale): 8 is the
# default.
WEIGHT_BITS = (4, 8, 32)
EMBEDDING_BITS = (4, 8, 32)  # 32: a float32 table, only for exactness tests on tiny models
# MatMulNBits' accuracy level 4 quantises the activations to int8 per block of 32: on the real model, 8-bit blocks
# take 29 ms for a question at level 4 against 135 ms at level 0 (float32 activations), for a mean cosine to the
# float32 model of 0.99978 against 0.99990.
ACCURACY_LEVEL = 4
# A masked score: far below any real one, yet finite, so that a row with every key masked (a padding query
# further than the window from any real token) softmaxes to uniform weights instead of NaN (pooled out later).
MASKED = -1e30
# The table's initializers (named by _embedding), written beside the graph in `model.onnx.data`.
TABLE_PREFIXES = ("embed_q", "embed_scales", "embed_f32")
DATA_SUFFIX = ".data"
EMBEDDING_CHUNK = 16_384  # table rows quantised at a time: 48 MB of float32 for a 768-wide table


class _GemmaBuilder(OnnxBuilder):
    """Gemma's linear layers (float32, 8- or 4-bit blocks) and RMSNorm, plus a few shape constants."""

    def __init__(self, weight_bits: int, accuracy_level: int):
        import onnx

        super().__init__(accuracy_level)
        self.weight_bits = weight_bits
        self._consts: dict[tuple, str] = {}
        # Initializers go straight into the model being written: make_graph and make_model would copy all
        # of them twice (the 8-bit model is 316 MiB).
        self.model = onnx.ModelProto()

    def const(self, array: np.ndarray, hint: str) -> str:
        from onnx import helper

        name = self.name(hint)
        array = np.ascontiguousarray(array)
        tensor = self.model.graph.initializer.add()
        tensor.name, tensor.data_type = name, helper.np_dtype_to_tensor_dtype(array.dtype)
        tensor.dims.extend(array.shape)
        tensor.raw_data = array.tobytes()
        return name

    def int64(self, *values: int) -> str:
        """A shared 1-D int64 constant (axes, shapes)."""
        key = ("i64", values)
        if key not in self._consts:
            self._consts[key] = self.const(np.array(values, np.int64), "i64")
        return self._consts[key]

    def linear(self, x: str, weight: np.ndarray, hint: str) -> str:
        """x @ weight.T, weight float32 [out, in], stored as weight_bits says."""
        if self.weight_bits == 32:
            return self.matmul_float(x, weight, hint)
        if self.weight_bits == 8:
            return self.matmul_int8(x, weight, hint)
        packed, scales = int4_blocks(weight)
        return self.matmul_nbits(x, packed, scales, weight.shape[0], weight.shape[1], 4, hint)

    def rms_norm(self, x: str, weight: np.ndarray, eps: float, hint: str, factor: float = 1.0) -> str:
        """Gemma's RMSNorm, x * rsqrt(mean(x²) + eps) * (1 + w), over the last axis; `factor` folded into the
        scale. (1 + w) in float32, as transformers computes it."""
        scale = (np.float32(1.0) + weight.astype(np.float32)) * np.float32(factor)
        return self.op("SimplifiedLayerNormalization", [x, self.const(scale.astype(np.float32), hint + "_w")],
                       hint, axis=-1, epsilon=eps, stash_type=1)

    def add_rms_norm(self, x: str, h: str, weight: np.ndarray, eps: float, hint: str,
                     keep_sum: bool = True) -> tuple[str, str]:
        """(rms_norm(x + h), x + h) in one SkipSimplifiedLayerNormalization: Gemma's residual sum is both the
        next norm's input and the next residual, and onnxruntime does not fuse that Add itself here."""
        from onnx import helper

        normed, total = self.name(hint), self.name(hint + "_sum") if keep_sum else ""
        scale = self.const((np.float32(1.0) + weight.astype(np.float32)).astype(np.float32), hint + "_w")
        self.nodes.append(helper.make_node("SkipSimplifiedLayerNormalization", [h, x, scale], [normed, "", "", total],
                                           name=self.name("SkipSimplifiedLayerNormalization"), domain=MS_DOMAIN,
                                           epsilon=eps))
        return normed, total


class _Weights:
    """The transformer's tensors, read one at a time from the open safetensors file; a linear layer with
    low-rank deltas (taught rulebooks: deltas_file.read_deltas's factors, keyed by module name) comes out as
    W + up @ down, quantised like any other."""

    def __init__(self, st, prefix: str, deltas: dict | None = None):
        self.st, self.prefix, self.deltas = st, prefix, deltas or {}

    def __call__(self, name: str) -> np.ndarray:
        tensor = np.ascontiguousarray(self.st.get_tensor(self.prefix + name), dtype=np.float32)
        module = name.removesuffix(".weight")
        if module in self.deltas:
            down, up = self.deltas[module]
            tensor = tensor + up.astype(np.float32) @ down.astype(np.float32)
        return tensor

    def rows(self, name: str, start: int, stop: int) -> np.ndarray:
        tensor = self.st.get_slice(self.prefix + name)
        return np.ascontiguousarray(tensor[start:min(stop, tensor.get_shape()[0])], dtype=np.float32)


def _embedding(g: _GemmaBuilder, w: _Weights, spec: GemmaSpec, bits: int, ids: str) -> tuple[str, int]:
    """The scaled embeddings of the ids, [batch, seq, hidden], and the table's bytes in the file."""
    # Gemma3TextScaledWordEmbedding multiplies by sqrt(hidden) rounded to float32, after the lookup.
    factor = np.float32(spec.hidden ** 0.5)
    if bits == 32:
        table = np.empty((spec.vocab, spec.hidden), np.float32)
        for start in range(0, spec.vocab, EMBEDDING_CHUNK):
            stop = start + EMBEDDING_CHUNK
            table[start:stop] = w.rows("embed_tokens.weight", start, stop) * factor
        return g.op("Gather", [g.const(table, "embed_f32"), ids], "embed", axis=0), table.nbytes
    width = spec.hidden if bits == 8 else spec.hidden // 2
    codes = np.empty((spec.vocab, width), np.int8 if bits == 8 else np.uint8)
    scales = np.empty((spec.vocab, spec.hidden // QK), np.float16)
    for start in range(0, spec.vocab, EMBEDDING_CHUNK):
        rows = w.rows("embed_tokens.weight", start, start + EMBEDDING_CHUNK) * factor
        codes[start:start + len(rows)], scales[start:start + len(rows)] = embedding_blocks(rows, bits)
    size = codes.nbytes + scales.nbytes
    return _dequantised_rows(g, g.const(codes, f"embed_q{bits}"), g.const(scales, "embed_scales"), ids, bits,
                             spec.hidden), size


def _dequantised_rows(g: _GemmaBuilder, codes: str, scales: str, ids: str, bits: int, hidden: int) -> str:
    """code * scale for the gathered rows only, in float32 (each value exactly code * fp16 scale)."""
    from onnx import TensorProto

    rows = g.op("Gather", [codes, ids], "embed_codes", axis=0)
    if bits == 8:
        values = g.op("Cast", [rows], "embed_codes", to=TensorProto.FLOAT)
    else:
        packed = g.op("Cast", [rows], "embed_bytes", to=TensorProto.INT32)
        sixteen = g.const(np.array(16, np.int32), "sixteen")
        low = g.op("Unsqueeze", [g.op("Mod", [packed, sixteen], "low"), g.int64(-1)], "low")
        high = g.op("Unsqueeze", [g.op("Div", [packed, sixteen], "high"), g.int64(-1)], "high")
        values = g.op("Cast", [g.op("Concat", [low, high], "codes", axis=-1)], "embed_codes", to=TensorProto.FLOAT)
        values = g.op("Sub", [values, g.const(np.array(8, np.float32), "eight")], "embed_codes")
    values = g.op("Reshape", [values, g.int64(0, 0, hidden // QK, QK)], "embed_blocks")
    scale = g.op("Cast", [g.op("Gather", [scales, ids], "embed_scale", axis=0)], "embed_scale", to=TensorProto.FLOAT)
    scale = g.op("Unsqueeze", [scale, g.int64(-1)], "embed_scale")
    return g.op("Reshape", [g.op("Mul", [values, scale], "embed"), g.int64(0, 0, hidden)], "embed")


@dataclass(frozen=True)
class _Context:
    """What every layer of a type shares, computed once per run: RoPE's cos/sin and the attention bias."""

    cos: dict[str, str]  # [seq, head_dim/2]
    sin: dict[str, str]
    bias: dict[str, str]  # full: [batch, 1, 1, seq]; sliding: [batch, seq, 1, seq] (query, -, key)
    by_head: str  # the shape [0, -1, heads, seq]: scores [b, s * h, s] seen as [b, s, h, s]
    by_row: str  # the shape [0, -1, seq]: back to [b, s * h, s]
    start: str  # the first position id, [1] int64


def _inverse_frequencies(theta: float, head_dim: int) -> np.ndarray:
    """1 / theta^(2i/d), float32 as transformers' default RoPE computes it."""
    exponent = np.arange(0, head_dim, 2, dtype=np.float32) / np.float32(head_dim)
    return (1.0 / (np.float64(theta) ** exponent.astype(np.float64))).astype(np.float32)


def _context(g: _GemmaBuilder, spec: GemmaSpec, ids: str, mask: str) -> _Context:
    from onnx import TensorProto

    seq = g.op("Slice", [g.op("Shape", [ids], "shape"), g.int64(1), g.int64(2)], "seq")
    positions = g.op("Range", [g.const(np.array(0, np.int64), "zero"), g.op("Squeeze", [seq], "seq"),
                               g.const(np.array(1, np.int64), "one")], "positions")
    pos_f = g.op("Unsqueeze", [g.op("Cast", [positions], "pos_f", to=TensorProto.FLOAT), g.int64(1)], "pos_f")
    cos, sin = {}, {}
    for kind in sorted(set(spec.layer_types)):
        freqs = g.op("Mul", [pos_f, g.const(_inverse_frequencies(spec.rope_theta[kind], spec.head_dim), "inv_freq")],
                     f"freqs_{kind}")
        cos[kind], sin[kind] = g.op("Cos", [freqs], f"cos_{kind}"), g.op("Sin", [freqs], f"sin_{kind}")
    keys = g.op("Unsqueeze", [g.op("Cast", [mask], "key_valid", to=TensorProto.BOOL), g.int64(1, 2)], "key_valid")
    zero, masked = g.const(np.array(0, np.float32), "zero_f"), g.const(np.array(MASKED, np.float32), "masked")
    bias = {"full_attention": g.op("Where", [keys, zero, masked], "bias_full")}
    # |i - j| < window, [1, seq, 1, seq]: only bites above `window` tokens, but always computed (a few S² ops).
    distance = g.op("Abs", [g.op("Sub", [g.op("Unsqueeze", [positions, g.int64(1)], "pos_i"),
                                         g.op("Unsqueeze", [positions, g.int64(0)], "pos_j")], "distance")], "distance")
    near = g.op("Less", [distance, g.const(np.array(spec.window, np.int64), "window")], "near")
    near = g.op("And", [keys, g.op("Unsqueeze", [near, g.int64(0, 2)], "near")], "near")
    bias["sliding_attention"] = g.op("Where", [near, zero, masked], "bias_sliding")
    by_head = g.op("Concat", [g.int64(0, -1, spec.heads), seq], "by_head", axis=0)
    by_row = g.op("Concat", [g.int64(0, -1), seq], "by_row", axis=0)
    return _Context(cos, sin, bias, by_head, by_row, g.int64(0))


def _rope(g: _GemmaBuilder, x: str, ctx: _Context, kind: str, heads: int, hint: str) -> str:
    """Rotate-half RoPE on x [batch, seq, heads * head_dim], positions 0..seq-1."""
    return g.op("RotaryEmbedding", [x, ctx.start, ctx.cos[kind], ctx.sin[kind]], hint, domain=MS_DOMAIN,
                num_heads=heads, interleaved=0)


def _attention(g: _GemmaBuilder, w: _Weights, spec: GemmaSpec, i: int, x: str, ctx: _Context) -> str:
    """Gemma3's bidirectional GQA with its one key/value head, as two plain batched products: the queries of
    all heads are the rows of one [batch, seq * heads, head_dim] matrix against the same keys, so the key/value
    head is never repeated (and onnxruntime folds the keys' transpose into the first product)."""
    p, d, h = f"layers.{i}.self_attn.", spec.head_dim, spec.heads
    qkv = np.concatenate([w(p + "q_proj.weight"), w(p + "k_proj.weight"), w(p + "v_proj.weight")])
    q, k, v = g.op("Split", [g.linear(x, qkv, f"l{i}_qkv"), g.int64(h * d, d, d)], f"l{i}_qkv", outputs=3, axis=-1)
    q = g.rms_norm(g.op("Reshape", [q, g.int64(0, 0, h, d)], f"l{i}_q"), w(p + "q_norm.weight"), spec.eps,
                   f"l{i}_q_norm", factor=spec.scaling)
    q = _rope(g, g.op("Reshape", [q, g.int64(0, 0, h * d)], f"l{i}_q"), ctx, spec.layer_types[i], h, f"l{i}_q_rope")
    k = _rope(g, g.rms_norm(k, w(p + "k_norm.weight"), spec.eps, f"l{i}_k_norm"), ctx, spec.layer_types[i], 1,
              f"l{i}_k_rope")
    scores = g.op("MatMul", [g.op("Reshape", [q, g.int64(0, -1, d)], f"l{i}_q"),
                             g.op("Transpose", [k], f"l{i}_kt", perm=[0, 2, 1])], f"l{i}_scores")  # [b, s*h, s]
    scores = g.op("Add", [g.op("Reshape", [scores, ctx.by_head], f"l{i}_scores"), ctx.bias[spec.layer_types[i]]],
                  f"l{i}_scores")  # [b, s, h, s] + [b, s|1, 1, s]
    probs = g.op("Softmax", [scores], f"l{i}_probs", axis=-1)
    att = g.op("MatMul", [g.op("Reshape", [probs, ctx.by_row], f"l{i}_probs"), v], f"l{i}_att")  # [b, s*h, d]
    att = g.op("Reshape", [att, g.int64(0, -1, h * d)], f"l{i}_att")
    return g.linear(att, w(p + "o_proj.weight"), f"l{i}_o")


def _mlp(g: _GemmaBuilder, w: _Weights, spec: GemmaSpec, i: int, x: str) -> str:
    """down(gelu_tanh(gate(x)) * up(x)), gate and up as one product."""
    p = f"layers.{i}.mlp."
    gate_up = np.concatenate([w(p + "gate_proj.weight"), w(p + "up_proj.weight")])
    gate, up = g.op("Split", [g.linear(x, gate_up, f"l{i}_gate_up"), g.int64(spec.intermediate, spec.intermediate)],
                    f"l{i}_gate_up", outputs=2, axis=-1)
    # FastGelu is gelu's tanh approximation, transformers' gelu_pytorch_tanh.
    act = g.op("Mul", [g.op("FastGelu", [gate], f"l{i}_gelu", domain=MS_DOMAIN), up], f"l{i}_act")
    return g.linear(act, w(p + "down_proj.weight"), f"l{i}_down")


def _layer(g: _GemmaBuilder, w: _Weights, spec: GemmaSpec, i: int, x: str, pending: str | None,
           ctx: _Context) -> tuple[str, str]:
    """One decoder layer on the residual x plus the previous layer's output not yet added to it (`pending`):
    returns the same pair, so that each residual Add is fused into the norm that reads its sum."""
    p, eps = f"layers.{i}.", spec.eps
    if pending is None:
        h = g.rms_norm(x, w(p + "input_layernorm.weight"), eps, f"l{i}_in_norm")
    else:
        h, x = g.add_rms_norm(x, pending, w(p + "input_layernorm.weight"), eps, f"l{i}_in_norm")
    h = g.rms_norm(_attention(g, w, spec, i, h, ctx), w(p + "post_attention_layernorm.weight"), eps,
                   f"l{i}_post_att_norm")
    h, x = g.add_rms_norm(x, h, w(p + "pre_feedforward_layernorm.weight"), eps, f"l{i}_pre_ff_norm")
    h = g.rms_norm(_mlp(g, w, spec, i, h), w(p + "post_feedforward_layernorm.weight"), eps, f"l{i}_post_ff_norm")
    return x, h


def _fused_dense(spec: GemmaSpec) -> tuple[np.ndarray, np.ndarray | None]:
    """The Dense layers (identity activations) as one affine map, composed in float64: x -> W x + b."""
    from safetensors import safe_open

    weight, bias = None, None
    for folder in spec.dense:
        with safe_open(folder / MODEL_FILE, "numpy") as st:
            wk = st.get_tensor("linear.weight").astype(np.float64)
            bk = st.get_tensor("linear.bias").astype(np.float64) if "linear.bias" in st.keys() else None
        if weight is not None:
            bias = None if bias is None else wk @ bias
            wk = wk @ weight
        weight = wk
        bias = bk if bias is None else (bias if bk is None else bias + bk)
    return weight.astype(np.float32), None if bias is None else bias.astype(np.float32)


def _head(g: _GemmaBuilder, dense: tuple[np.ndarray, np.ndarray | None] | None, x: str, mask: str) -> str:
    """Mean over the real tokens, the fused dense layers (float32: one small matrix), L2 normalisation."""
    from onnx import TensorProto, helper

    mask_f = g.op("Cast", [mask], "mask_f", to=TensorProto.FLOAT)
    # Where rather than a product by the mask: a padded row far from any real token (sliding layers) softmaxes
    # over masked keys only; it stays finite, but nothing of it should be able to reach the sum.
    real = g.op("Unsqueeze", [g.op("Cast", [mask], "real", to=TensorProto.BOOL), g.int64(-1)], "real")
    kept = g.op("Where", [real, x, g.const(np.array(0, np.float32), "zero_f")], "masked")
    summed = g.op("ReduceSum", [kept, g.int64(1)], "summed", keepdims=0)
    count = g.op("ReduceSum", [mask_f, g.int64(1)], "count", keepdims=1)
    mean = g.op("Div", [summed, g.op("Max", [count, g.const(np.array(1e-9, np.float32), "tiny")], "count")], "mean")
    y = mean
    if dense is not None:
        weight, bias = dense
        y = g.matmul_float(mean, weight, "dense")
        if bias is not None:
            y = g.op("Add", [y, g.const(bias, "dense_b")], "dense")
    norm = g.op("Sqrt", [g.op("ReduceSumSquare", [y], "sq", axes=[1], keepdims=1)], "norm")
    norm = g.op("Max", [norm, g.const(np.array(1e-12, np.float32), "eps_norm")], "norm")
    g.nodes.append(helper.make_node("Div", [y, norm], ["sentence_embedding"], name="normalize"))
    return "sentence_embedding"


def _table_apart(model, location: str) -> None:
    """The embedding table's initializers to be written in a file of their own beside the graph (ONNX external
    data): onnxruntime maps that file instead of copying it, so a process only holds the rows its questions
    touch (about 230 MiB less) and the session opens in a quarter of a second rather than 1.2 s."""
    from onnx.external_data_helper import set_external_data

    for tensor in model.graph.initializer:
        if tensor.name.startswith(TABLE_PREFIXES):
            set_external_data(tensor, location=location)


def _check_settings(weight_bits: int, embedding_bits: int, accuracy_level: int) -> None:
    if weight_bits not in WEIGHT_BITS:
        raise ModelError(f"weight_bits {weight_bits} non pris en charge (valeurs : {', '.join(map(str, WEIGHT_BITS))})")
    if embedding_bits not in EMBEDDING_BITS:
        raise ModelError(f"embedding_bits {embedding_bits} non pris en charge "
                         f"(valeurs : {', '.join(map(str, EMBEDDING_BITS))})")
    if accuracy_level not in (0, 1, 2, 3, 4):
        raise ModelError(f"accuracy_level {accuracy_level} non pris en charge (0 à 4)")


def build_graph(source: Path, out: Path, *, weight_bits: int = 8, embedding_bits: int = 8,
                accuracy_level: int = ACCURACY_LEVEL, deltas: dict | None = None) -> dict:
    """Write the ONNX file of the folder `source` to `out`, its embedding table beside it in `out` + ".data"
    (`_table_apart`), and return what was written; `deltas`: low-rank updates added to the linear layers they
    name before quantising. ModelError (one French line) for a folder that is not a supported EmbeddingGemma."""
    import onnx
    from onnx import TensorProto, helper
    from safetensors import safe_open

    _check_settings(weight_bits, embedding_bits, accuracy_level)
    source, out = Path(source), Path(out)
    spec = read_spec(source)
    g = _GemmaBuilder(weight_bits, accuracy_level)
    ids, mask = "input_ids", "attention_mask"
    with safe_open(source / MODEL_FILE, "numpy") as st:
        w = _Weights(st, spec.prefix, deltas)
        x, embedding_bytes = _embedding(g, w, spec, embedding_bits, ids)
        ctx = _context(g, spec, ids, mask)
        pending = None
        for i in range(len(spec.layer_types)):
            x, pending = _layer(g, w, spec, i, x, pending, ctx)
        x, _ = g.add_rms_norm(x, pending, w("norm.weight"), spec.eps, "final_norm", keep_sum=False)
    dense = _fused_dense(spec) if spec.dense else None
    output = _head(g, dense, x, mask)
    dimension = int(dense[0].shape[0]) if dense is not None else spec.hidden
    model = g.model
    model.graph.name = "embeddinggemma"
    model.graph.node.extend(g.nodes)
    model.graph.input.extend([helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "seq"])
                              for name in (ids, mask)])
    model.graph.output.append(helper.make_tensor_value_info(output, TensorProto.FLOAT, ["batch", dimension]))
    model.opset_import.extend([helper.make_opsetid("", OPSET), helper.make_opsetid(MS_DOMAIN, 1)])
    model.ir_version, model.producer_name = 8, "rulesqa"
    out.parent.mkdir(parents=True, exist_ok=True)
    _table_apart(model, out.name + DATA_SUFFIX)
    partial = out.with_name(out.name + ".partial")  # a build that dies leaves no file that looks finished
    onnx.save_model(model, str(partial))
    partial.replace(out)
    return {"weight_bits": weight_bits, "embedding_bits": embedding_bits, "block_size": QK,
            "accuracy_level": accuracy_level if weight_bits != 32 else None, "dimension": dimension,
            "max_positions": spec.max_positions, "layers": len(spec.layer_types), "sliding_window": spec.window,
            "file_bytes": out.stat().st_size + out.with_name(out.name + DATA_SUFFIX).stat().st_size,
            "embedding_bytes": embedding_bytes}
