"""ONNX export and onnxruntime inference for the built e5 folder (the fast query path).

sentence-transformers' own `backend="onnx"` needs `optimum`, whose current release pins
sentence-transformers 5.7 / transformers 4.57; exporting with torch and running the graph
with onnxruntime directly keeps the project on ST 6.2 / transformers 5.24. The graph
includes mean pooling and L2 normalisation, so it reproduces the folder's ST pipeline
(Transformer -> Pooling(mean) -> Normalize) with the same tokenizer.json.
"""

from __future__ import annotations

import warnings
from pathlib import Path

import numpy as np

BATCH_SIZE = 16


def export_onnx(model_dir: Path, out: Path) -> None:
    """Trace the float32 model (+ pooling + normalize) into a self-contained ONNX file."""
    import torch
    from transformers import AutoModel

    class _Pooled(torch.nn.Module):
        def __init__(self, encoder):
            super().__init__()
            self.encoder = encoder
            self.padding_idx = encoder.config.pad_token_id

        def forward(self, input_ids, attention_mask):
            # Positions from the mask, not from input_ids as XLM-R does: the engine numbers
            # every token, even a literal "<pad>" piece inside the text.
            positions = torch.cumsum(attention_mask, dim=1) * attention_mask + self.padding_idx
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask,
                                  position_ids=positions).last_hidden_state
            mask = attention_mask.unsqueeze(-1).to(hidden.dtype)
            pooled = (hidden * mask).sum(1) / mask.sum(1).clamp(min=1e-9)
            return torch.nn.functional.normalize(pooled, p=2.0, dim=1)

    # Eager attention traces to plain MatMul/Softmax, which onnxruntime fuses well.
    encoder = AutoModel.from_pretrained(str(model_dir), add_pooling_layer=False,
                                        attn_implementation="eager").eval()
    example = (torch.tensor([[0, 1294, 12, 6, 2, 1]]), torch.tensor([[1, 1, 1, 1, 1, 0]]))
    out.parent.mkdir(parents=True, exist_ok=True)
    with torch.no_grad(), warnings.catch_warnings():
        # The legacy TorchScript exporter needs no onnxscript; its deprecation and tracer
        # warnings are expected (the traced mask branch is shape-only, so it generalises).
        warnings.simplefilter("ignore")
        torch.onnx.export(
            _Pooled(encoder), example, str(out), dynamo=False, opset_version=17,
            input_names=["input_ids", "attention_mask"], output_names=["sentence_embedding"],
            dynamic_axes={"input_ids": {0: "batch", 1: "seq"}, "attention_mask": {0: "batch", 1: "seq"},
                          "sentence_embedding": {0: "batch"}},
        )


class OnnxEncoder:
    """tokenizer.json + onnxruntime session; encodes already-prompted texts."""

    def __init__(self, model_dir: Path, onnx_file: str, max_length: int, threads: int):
        import onnxruntime as ort
        from tokenizers import Tokenizer

        self.tokenizer = Tokenizer.from_file(str(Path(model_dir) / "tokenizer.json"))
        self.tokenizer.no_truncation()
        self.tokenizer.no_padding()
        self.max_length = max_length
        self._pad_id = self.tokenizer.token_to_id("<pad>")
        self._eos_id = self.tokenizer.token_to_id("</s>")
        opts = ort.SessionOptions()
        opts.intra_op_num_threads = threads
        opts.inter_op_num_threads = 1
        opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        self.session = ort.InferenceSession(str(Path(model_dir) / onnx_file), sess_options=opts,
                                            providers=["CPUExecutionProvider"])

    def encode(self, texts: list[str], batch_size: int = BATCH_SIZE) -> np.ndarray:
        seqs = [self._truncate(e.ids) for e in self.tokenizer.encode_batch(texts, add_special_tokens=True)]
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
