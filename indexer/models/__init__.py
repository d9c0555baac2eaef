"""The model room: families of embedding models behind one registry (registry.py), each built folder describing
itself (description.py), the runtimes that load them (embedders.py). Nothing heavy is imported here."""

from indexer.models.embedders import Embedder, OnnxEmbedder, TorchEmbedder
from indexer.models.registry import DEFAULT_FAMILY, FAMILIES, Family, find_family, get_family, load_embedder
from indexer.models.threads import default_threads

__all__ = ["DEFAULT_FAMILY", "FAMILIES", "Embedder", "Family", "OnnxEmbedder", "TorchEmbedder", "default_threads",
           "find_family", "get_family", "load_embedder"]
