"""The model room: families of embedding models behind one registry (registry.py), each built folder describing
itself (description.py), the runtimes that load them (embedders.py). Nothing heavy is imported here."""

from indexer.models.embedders import Embedder, OnnxEmbedder, TorchEmbedder, default_threads, load_embedder
from indexer.models.registry import DEFAULT_FAMILY, FAMILIES, Family, find_family, get_family

__all__ = ["DEFAULT_FAMILY", "FAMILIES", "Embedder", "Family", "OnnxEmbedder", "TorchEmbedder", "default_threads",
           "find_family", "get_family", "load_embedder"]
