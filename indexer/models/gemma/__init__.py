"""EmbeddingGemma-300M, offline: its float32 sentence-transformers folder -> one ONNX graph with block-quantised
weights (graph.py) and its tokenizer (tokenizer.py). Nothing heavy is imported here."""
