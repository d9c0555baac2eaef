"""What every ONNX graph of ours is written with: a small node builder and the 8-bit weight blocks.

Both encoders' graphs (e5's, indexer/models/e5/graph.py, and EmbeddingGemma's, indexer/models/gemma/graph.py)
are written directly from their weights, node by node, rather than exported from torch: the export would
hold every matrix in float32, while onnxruntime's `MatMulNBits` computes straight from 4- or 8-bit blocks.
No torch is imported here.
"""

from __future__ import annotations

import numpy as np

OPSET = 17
MS_DOMAIN = "com.microsoft"
QK = 32  # weights per quantisation block, along the input dimension
# How a float32 matrix is written: "float32" (MatMul), or "int8" (8-bit blocks of 32, MatMulNBits).
FLOAT_LAYERS = ("float32", "int8")


def int8_blocks(weight: np.ndarray, block: int = QK) -> tuple[np.ndarray, np.ndarray]:
    """float32 [out, in] -> (uint8 codes [out, in/block, block] with zero point 128, float32 scales
    [out, in/block]): symmetric 8-bit blocks, MatMulNBits' layout for bits=8."""
    rows, cols = weight.shape
    blocks = weight.reshape(rows, cols // block, block)
    scales = np.abs(blocks).max(axis=2) / 127.0
    safe = np.where(scales > 0, scales, 1.0)
    codes = np.clip(np.rint(blocks / safe[:, :, None]), -127, 127).astype(np.int16) + 128
    return codes.astype(np.uint8), scales.astype(np.float32)


class OnnxBuilder:
    """Nodes and initializers of one graph, each given a unique name from a hint."""

    def __init__(self, accuracy_level: int):
        self.accuracy_level = accuracy_level
        self.nodes, self.inits, self._n = [], [], 0

    def name(self, hint: str) -> str:
        self._n += 1
        return f"{hint}_{self._n}"

    def const(self, array: np.ndarray, hint: str) -> str:
        from onnx import numpy_helper

        name = self.name(hint)
        self.inits.append(numpy_helper.from_array(np.ascontiguousarray(array), name))
        return name

    def op(self, op_type: str, inputs: list[str], hint: str = "", outputs: int = 1, domain: str = "",
           **attrs) -> str | list[str]:
        from onnx import helper

        outs = [self.name(hint or op_type.lower()) for _ in range(outputs)]
        self.nodes.append(helper.make_node(op_type, inputs, outs, name=self.name(op_type), domain=domain, **attrs))
        return outs[0] if outputs == 1 else outs

    def matmul_nbits(self, x: str, packed: np.ndarray, scales: np.ndarray, rows: int, cols: int, bits: int,
                     hint: str, block: int = QK) -> str:
        """x [.., cols] @ W.T for W [rows, cols] given as MatMulNBits' packed codes and float scales."""
        return self.op("MatMulNBits", [x, self.const(packed, hint + f"_q{bits}"),
                                       self.const(scales.reshape(-1), hint + "_s")],
                       hint, domain=MS_DOMAIN, K=cols, N=rows, bits=bits, block_size=block,
                       accuracy_level=self.accuracy_level)

    def matmul_int8(self, x: str, weight: np.ndarray, hint: str, block: int = QK) -> str:
        """x @ weight.T with the float32 weight [out, in] stored as symmetric 8-bit blocks."""
        codes, scales = int8_blocks(weight, block)
        return self.matmul_nbits(x, codes, scales, weight.shape[0], weight.shape[1], 8, hint, block)

    def matmul_float(self, x: str, weight: np.ndarray, hint: str) -> str:
        """x @ weight.T with the float32 weight [out, in] as it is."""
        return self.op("MatMul", [x, self.const(np.ascontiguousarray(weight.T, dtype=np.float32), hint + "_w")],
                       hint)
