"""The Embedder protocol and its two runtimes (a model by name is the registry's `load_embedder`).

Importing this module stays cheap: torch, sentence-transformers and onnxruntime are only imported when an
embedder is constructed.

- `OnnxEmbedder`: a built folder's `onnx/model.onnx` run by onnxruntime with the tokenizer its description
  names (the default: every family's served folder holds only such a graph, in 4- or 8-bit blocks);
- `TorchEmbedder`: `SentenceTransformer(folder)` in float32: a family's reference folder (the float32 twin
  for training and for checking the graph), or any sentence-transformers name or path a user gives.
Both read a model's prompts and passage form from its description (indexer/models/description.py), and
truncate a text to the model's sequence length (passages should be cut below it before indexing).
"""

from __future__ import annotations

import hashlib
import json
import os
import weakref
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

import numpy as np

from indexer.errors import ModelError
from indexer.locks import hold_shared
from indexer.models.description import (E5_FORM, MANIFEST, ONNX_FILE, Description, describe, file_sha256,
                                        read_model_manifest)

Backend = Literal["auto", "onnx", "torch"]
BACKENDS = ("auto", "onnx", "torch")
BATCH_SIZE = 16


@runtime_checkable
class Embedder(Protocol):
    model_id: str
    dim: int
    passage_form: str  # a passage's {title} and {text} as the model reads them (description.passage_text)

    def fingerprint(self) -> str:
        """Stable hash of what decides the vectors (weights, tokenizer, prompts, passage form, pooling)."""
        ...

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """(n, dim) float32, L2-normalised, with the model's query prompt."""
        ...

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        """(n, dim) float32, L2-normalised, with the model's document prompt."""
        ...


class _FolderEmbedder:
    """What both runtimes share: identity, prompts, fingerprint, the Embedder methods."""

    backend = ""
    passage_form = E5_FORM
    _prompts: tuple[str, str] = ("", "")  # (query, document)

    def __init__(self, model_id: str, path: Path | None, batch_size: int, fingerprint: str | None = None):
        self.model_id = model_id
        self.path = path
        self.batch_size = batch_size
        self._manifest = read_model_manifest(path) if path is not None else None
        self._fingerprint: str | None = fingerprint

    def _describe(self, description: Description) -> None:
        self._prompts = (description.query_prompt, description.document_prompt)
        self.passage_form = description.passage_form
        self.description = description

    def _freeze_fingerprint(self) -> None:
        if self._fingerprint is None and self.path is not None and not (
                self._manifest and self._manifest.get("fingerprint")):
            # Hash the files now, so the fingerprint describes what was loaded even if the
            # folder changes on disk later.
            self._fingerprint = self._compute_fingerprint()

    def _run(self, texts: list[str], query: bool) -> np.ndarray:
        raise NotImplementedError

    def _encode(self, texts: list[str], query: bool) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.ascontiguousarray(self._run(texts, query), dtype=np.float32)

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts, query=True)

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts, query=False)

    def prompt(self, query: bool) -> str:
        return self._prompts[0] if query else self._prompts[1]

    def fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = self._compute_fingerprint()
        return self._fingerprint

    def _compute_fingerprint(self) -> str:
        if self._manifest and self._manifest.get("fingerprint"):
            # Written by the folder's build (a float32 twin carries its lean folder's one: same vectors).
            return str(self._manifest["fingerprint"])
        h = hashlib.sha256()
        for f in sorted(p for p in self.path.rglob("*") if p.is_file()):
            rel = f.relative_to(self.path).as_posix()
            if rel.startswith(("onnx/", ".")) or rel.endswith(".md"):
                continue
            h.update(rel.encode() + b"\0" + file_sha256(f).encode() + b"\n")
        h.update(json.dumps([self._prompts, self.passage_form]).encode())
        return h.hexdigest()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model_id!r})"


class OnnxEmbedder(_FolderEmbedder):
    """onnxruntime over a built folder of ours: its graph (pooling included) and its tokenizer."""

    backend = "onnx"

    def __init__(self, path: Path, threads: int, model_id: str | None = None, batch_size: int = BATCH_SIZE,
                 providers: list[str] | None = None):
        """`providers`: onnxruntime's execution providers, CPU by default (a cluster's GPU actors pass
        CUDA's first, indexer/ray_encode.py)."""
        from indexer.models.onnx_runtime import OnnxEncoder, load_tokenizer

        path = Path(path)
        description = describe(path)
        if description.runtime != "onnx":
            raise ModelError(f"{path} est un modèle {description.runtime}, pas un graphe ONNX")
        if not (path / ONNX_FILE).is_file():
            raise ModelError(f"pas de graphe ONNX dans {path} (attendu : {ONNX_FILE}) : reconstruisez le modèle")
        super().__init__(model_id or description.model_id, path, batch_size)
        self._describe(description)
        # In use while loaded: the model cache does not remove a folder a process holds (indexer/locks.py).
        in_use = hold_shared(path / MANIFEST)
        if in_use is not None:
            weakref.finalize(self, os.close, in_use)
        self._onnx = OnnxEncoder(path, ONNX_FILE, lambda: load_tokenizer(description.tokenizer, path),
                                 max_length=description.max_seq_length, threads=threads, providers=providers,
                                 cpu_mem_arena=bool(description.session.get("cpu_mem_arena", True)))
        self.dim = description.dimension
        self._freeze_fingerprint()

    def _run(self, texts: list[str], query: bool) -> np.ndarray:
        prompt = self.prompt(query)
        return self._onnx.encode([prompt + t for t in texts], batch_size=self.batch_size)

    def token_count(self, text: str, query: bool = False) -> int:
        """Tokens the model sees for `text` with its prompt, start and end tokens included, before truncation."""
        return len(self._onnx.tokenizer.token_ids(self.prompt(query) + text))

    @property
    def max_tokens(self) -> int:
        return self._onnx.max_length


class TorchEmbedder(_FolderEmbedder):
    """sentence-transformers on torch: a family's float32 reference folder (its description given), a local
    sentence-transformers folder, or a hub name where a network exists."""

    backend = "torch"

    def __init__(self, source: str, threads: int, model_id: str | None = None, path: Path | None = None,
                 description: Description | None = None, fingerprint: str | None = None,
                 batch_size: int = BATCH_SIZE):
        """`description` and `fingerprint`: those of the lean folder whose float32 reference `source` is
        (it computes the same vectors, to the quantisation's fidelity)."""
        import torch
        from sentence_transformers import SentenceTransformer

        super().__init__(model_id or (description.model_id if description else str(source)), path, batch_size,
                         fingerprint)
        torch.set_num_threads(threads)
        try:
            self._st = SentenceTransformer(source, device="cpu")
        except (OSError, ValueError) as exc:
            raise ModelError(f"modèle sentence-transformers introuvable ou illisible : {source} ({exc})") from None
        if description is not None:
            self._describe(description)
            self._st.max_seq_length = description.max_seq_length
        else:
            self._prompts = (self._st.prompts.get("query", ""),
                             self._st.prompts.get("document", self._st.prompts.get("passage", "")))
        self.dim = int(self._st.get_embedding_dimension())
        self._freeze_fingerprint()

    def _run(self, texts: list[str], query: bool) -> np.ndarray:
        # The prompt given explicitly: a described folder's may differ from the sentence-transformers config's.
        return self._st.encode([self.prompt(query) + t for t in texts], batch_size=self.batch_size,
                               convert_to_numpy=True, normalize_embeddings=True, show_progress_bar=False)

    def _compute_fingerprint(self) -> str:
        if self.path is not None:
            return super()._compute_fingerprint()
        # A hub model: hash what was loaded, since there is no folder of ours to read.
        h = hashlib.sha256()
        for name, tensor in sorted(self._st.state_dict().items()):
            h.update(name.encode() + b"\0" + tensor.detach().cpu().contiguous().numpy().tobytes())
        h.update(json.dumps(self._st.tokenizer.get_vocab(), sort_keys=True).encode())
        h.update(json.dumps([self._prompts, self.passage_form]).encode())
        return h.hexdigest()

    def token_count(self, text: str, query: bool = False) -> int:
        return len(self._st.tokenizer(self.prompt(query) + text)["input_ids"])

    @property
    def max_tokens(self) -> int:
        return int(self._st.max_seq_length)


def load_folder_embedder(folder: Path, threads: int, model_id: str | None = None) -> OnnxEmbedder:
    """The ONNX embedder over a built folder of ours (a family's, an adapted e5, an index's model/), under
    `model_id` (by default the id its description gives)."""
    return OnnxEmbedder(Path(folder), threads, model_id=model_id)
