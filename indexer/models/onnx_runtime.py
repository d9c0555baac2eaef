"""onnxruntime inference for a built model folder: its tokenizer + its graph (pooling and normalisation
included), so that this reproduces the sentence-transformers pipeline of the model with the same tokens.

The tokenizer is the one the folder's description names (indexer/models/description.py): e5's own unigram
(indexer/models/e5/unigram.py) or a `tokenizers` tokenizer.json (indexer/models/gemma/tokenizer.py).
"""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Protocol

import numpy as np

BATCH_SIZE = 16
# Above this many tokens a batch is split: attention's memory grows with the square of the length.
BATCH_TOKENS = 16 * 512


class Tokenizer(Protocol):
    pad: int
    eos: int

    def token_ids(self, text: str) -> list[int]:
        """The ids of `text`, its special tokens (start, end) included."""
        ...


def load_tokenizer(kind: str, folder: Path) -> Tokenizer:
    """The tokenizer of a folder by its description's kind."""
    from indexer.errors import ModelError

    if kind == "e5-unigram":
        from indexer.models.e5.unigram import UnigramTokenizer

        return UnigramTokenizer.load(folder)
    if kind == "tokenizers":
        from indexer.models.gemma.tokenizer import GemmaTokenizer

        return GemmaTokenizer.load(folder)
    raise ModelError(f"tokeniseur inconnu « {kind} » dans {folder}")


class OnnxEncoder:
    """Tokenizer + onnxruntime session; encodes already-prompted texts."""

    def __init__(self, model_dir: Path, onnx_file: str, tokenizer: Callable[[], Tokenizer], max_length: int,
                 threads: int, providers: list[str] | None = None, cpu_mem_arena: bool = True):
        """`tokenizer` loads the tokenizer: in a thread while the session opens (EmbeddingGemma's tokenizer.json
        takes 1.2 s to parse, its session 1.9 s: together, the longer of the two). `cpu_mem_arena`: onnxruntime's
        arena keeps the largest activations of a batch for the next one (the default); off, they are handed
        back (EmbeddingGemma: 45 MiB less after a batch, no slower)."""
        with ThreadPoolExecutor(1) as pool:
            pending = pool.submit(tokenizer)
            self.session = self._session(Path(model_dir) / onnx_file, threads, providers, cpu_mem_arena)
            self.tokenizer = pending.result()
        self.max_length = max_length
        self._pad_id = self.tokenizer.pad
        self._eos_id = self.tokenizer.eos

    @staticmethod
    def _session(path: Path, threads: int, providers: list[str] | None, cpu_mem_arena: bool):
        import onnxruntime as ort

        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        opts.enable_cpu_mem_arena = cpu_mem_arena
        return ort.InferenceSession(str(path), sess_options=opts, providers=providers or ["CPUExecutionProvider"])

    def encode(self, texts: list[str], batch_size: int = BATCH_SIZE) -> np.ndarray:
        seqs = [self._truncate(self.tokenizer.token_ids(t)) for t in texts]
        # Sorting by length keeps padding (wasted compute) low inside each batch.
        order = sorted(range(len(texts)), key=lambda i: len(seqs[i]))
        batches = _batches(order, [len(s) for s in seqs], batch_size)
        out: list[np.ndarray] = []
        for idx in batches:
            width = max(len(seqs[i]) for i in idx)
            ids = np.full((len(idx), width), self._pad_id, dtype=np.int64)
            mask = np.zeros((len(idx), width), dtype=np.int64)
            for row, i in enumerate(idx):
                n = len(seqs[i])
                ids[row, :n] = seqs[i]
                mask[row, :n] = 1
            (emb,) = self.session.run(None, {"input_ids": ids, "attention_mask": mask})
            out.append(emb)
        result = np.empty((len(texts), out[0].shape[1] if out else 0), dtype=np.float32)
        if out:
            result[[i for idx in batches for i in idx]] = np.concatenate(out)
        return result

    def _truncate(self, ids: list[int]) -> list[int]:
        """Keep the head and the closing end token, as transformers' truncation does for one text."""
        if len(ids) <= self.max_length:
            return ids
        return ids[: self.max_length - 1] + [self._eos_id]


def _batches(order: list[int], lengths: list[int], batch_size: int) -> list[list[int]]:
    """`order` cut into batches of at most `batch_size` texts and BATCH_TOKENS padded tokens (the longest
    text of a batch times its size); texts sorted by length, so the cut only shortens the long ones' batches."""
    batches, current = [], []
    for i in order:
        if current and (len(current) == batch_size or (len(current) + 1) * lengths[i] > BATCH_TOKENS):
            batches.append(current)
            current = []
        current.append(i)
    if current:
        batches.append(current)
    return batches
