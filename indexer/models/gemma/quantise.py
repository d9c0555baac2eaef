"""EmbeddingGemma's weights as blocks of 32: the layers' matrices as MatMulNBits' symmetric 4-bit blocks, the
embedding table's rows as 8- or 4-bit codes with one fp16 scale a block (graph.py writes them)."""

from __future__ import annotations

import numpy as np

from indexer.models.onnx_graph import QK


def int4_blocks(weight: np.ndarray, block: int = QK) -> tuple[np.ndarray, np.ndarray]:
    """float32 [out, in] -> (uint8 [out, in/block, block/2] codes, float32 scales [out, in/block]): symmetric
    4-bit blocks with zero point 8, MatMulNBits' layout for bits=4 (weight 2i in the low nibble of byte i, 2i+1
    in its high one). As ggml's Q4_0, the scale maps the block's largest magnitude to -8, so that the 16 codes
    span the block (a scale of max/7 would leave one code unused and widen the step)."""
    rows, cols = weight.shape
    blocks = weight.reshape(rows, cols // block, block)
    scales = _q4_scales(blocks).astype(np.float32)
    return _nibbles(_codes(blocks, scales, 8, 15)), scales


def _q4_scales(blocks: np.ndarray) -> np.ndarray:
    """Per block [.., n], the scale that makes its largest magnitude code 0 (-8 once the zero point is off)."""
    largest = np.take_along_axis(blocks, np.abs(blocks).argmax(axis=-1)[..., None], axis=-1)[..., 0]
    return largest / -8.0


def _nibbles(codes: np.ndarray) -> np.ndarray:
    """4-bit codes [.., 2k] -> bytes [.., k]: code 2i in the low nibble, 2i+1 in the high one."""
    return (codes[..., 0::2] | (codes[..., 1::2] << 4)).astype(np.uint8)


def _codes(blocks: np.ndarray, scales: np.ndarray, zero: int, top: int) -> np.ndarray:
    """round(x / scale) + zero, clipped to [0, top], from the scale as stored (so its rounding is accounted)."""
    safe = np.where(scales != 0, scales, 1.0).astype(np.float32)
    return np.clip(np.rint(blocks / safe[:, :, None]) + zero, 0, top).astype(np.uint8)


def embedding_blocks(rows: np.ndarray, bits: int) -> tuple[np.ndarray, np.ndarray]:
    """Table rows (already scaled by sqrt(hidden)) -> (codes, fp16 scales [n, hidden/32]). 8 bits: int8 codes
    [n, hidden]; 4 bits: packed nibbles [n, hidden/2] with zero point 8, weight 2i low. The scale is rounded to
    fp16 (half the bytes of float32 scales) before the codes are chosen, so the codes are the best ones for
    the scale as stored."""
    n, hidden = rows.shape
    blocks = rows.reshape(n, hidden // QK, QK)
    if bits == 8:
        scales = (np.abs(blocks).max(axis=2) / 127.0).astype(np.float16)
        codes = _codes(blocks, scales.astype(np.float32), 128, 255).astype(np.int16) - 128
        return codes.astype(np.int8).reshape(n, hidden), scales
    scales = _q4_scales(blocks).astype(np.float16)
    return _nibbles(_codes(blocks, scales.astype(np.float32), 8, 15)).reshape(n, hidden // 2), scales
