"""Test doubles shared by the suite. FakeEmbedder is a deterministic bag-of-stems hashing embedder, so most
tests need no model: texts sharing stems get close vectors, which is enough to exercise retrieval code."""

import hashlib
from pathlib import Path

import numpy as np

from indexer.analysis import analyze

REPO = Path(__file__).resolve().parents[1]
CORPUS = REPO / "corpus"


class FakeEmbedder:
    model_id = "fake-hashing"
    dim = 64
    passage_form = "{title}\n{text}"  # e5's (indexer/models/description.py)

    def __init__(self, salt: str = ""):
        self.salt = salt
        self.passage_calls: list[int] = []  # batch sizes given to encode_passages

    def fingerprint(self) -> str:
        return f"fake-{self.dim}-{self.salt}"

    def _vector(self, text: str) -> np.ndarray:
        v = np.zeros(self.dim, dtype=np.float32)
        for term in analyze(text) or ["<vide>"]:
            seed = int.from_bytes(hashlib.sha256((self.salt + term).encode()).digest()[:8], "little")
            v += np.random.default_rng(seed).standard_normal(self.dim).astype(np.float32)
        return v / (np.linalg.norm(v) or 1.0)

    def _encode(self, texts: list[str]) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return np.stack([self._vector(t) for t in texts])

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        return self._encode(texts)

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        self.passage_calls.append(len(texts))
        return self._encode(texts)


def tiny_cross_encoder(folder: Path, seed: int = 0) -> Path:
    """A randomly initialised BERT cross-encoder of a few thousand weights, saved as sentence-transformers and
    transformers save one, with a character vocabulary: what RULESQA_RERANKER may point to, built offline."""
    import torch
    from transformers import BertConfig, BertForSequenceClassification, BertTokenizerFast

    folder = Path(folder)
    folder.mkdir(parents=True, exist_ok=True)
    letters = "abcdefghijklmnopqrstuvwxyzàâçéèêëîïôûùüÿœ0123456789"
    vocab = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]", *letters, "?", "'", ",", ".", ":",
             *(f"##{c}" for c in letters)]
    (folder / "vocab.txt").write_text("\n".join(vocab), "utf-8")
    tokenizer = BertTokenizerFast(vocab_file=str(folder / "vocab.txt"), do_lower_case=True)
    config = BertConfig(vocab_size=len(vocab), hidden_size=16, num_hidden_layers=1, num_attention_heads=2,
                        intermediate_size=32, max_position_embeddings=512, num_labels=1)
    torch.manual_seed(seed)
    BertForSequenceClassification(config).save_pretrained(folder)
    tokenizer.save_pretrained(folder)
    return folder


def write_fake_model(folder: Path, model_id: str, fingerprint: str, family: str = "e5-small") -> Path:
    """A model folder of ours as far as the index is concerned: a manifest naming its family and a dummy 2 MB
    graph (large enough to be hard-linked into an index, indexer/store.py)."""
    import json
    import os

    (folder / "onnx").mkdir(parents=True, exist_ok=True)
    (folder / "onnx" / "model.onnx").write_bytes(os.urandom(2 << 20))
    (folder / "rulesqa_build.json").write_text(json.dumps({"model_id": model_id, "fingerprint": fingerprint,
                                                           "family": family, "runtime": "onnx"}))
    return folder


class FakeFolderEmbedder(FakeEmbedder):
    """FakeEmbedder over a fake model folder (`write_fake_model`): an index takes the folder in, as it does
    the e5 folder's (backend "onnx", a path), and the folder is in use while it lives, as with OnnxEmbedder."""

    backend = "onnx"

    def __init__(self, folder: Path, model_id: str | None = None):
        import json

        from indexer.locks import hold_shared

        manifest = json.loads((Path(folder) / "rulesqa_build.json").read_text())
        super().__init__(salt=manifest["fingerprint"])
        self.path = Path(folder)
        self.model_id = model_id or manifest["model_id"]
        self._fp = manifest["fingerprint"]
        self._in_use = hold_shared(self.path / "rulesqa_build.json")

    def fingerprint(self) -> str:
        return self._fp

    def close(self) -> None:
        import os

        if self._in_use is not None:
            os.close(self._in_use)
            self._in_use = None


def fake_answerer(index: Path, calibration=None, embedder=None, reranker=None, data=None, **settings):
    """The answerer over a test index, built by the one factory (service/runtime/answerers.py) as every caller
    builds it: the fake embedder by default, no reranker, nothing cached."""
    from service.runtime.answerers import build_answerer
    from service.runtime.settings import Settings

    conf = Settings(index_dir=index, cache_dir=None, reranker=None, **settings)
    return build_answerer(conf, data=data, embedder=embedder or FakeEmbedder(), calibration=calibration, reranker=reranker)
