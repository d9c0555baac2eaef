"""EmbeddingGemma taught rulebooks ("embeddinggemma-rules-fr"): low-rank deltas on its upper layers, trained on the
training corpus like e5's rules-fr (`rulesqa train --model embeddinggemma`), added to the float32 weights before
they are quantised into the same 8-bit graph as the base one (graph.build_graph's `deltas`).

The deltas are data (indexer/models/deltas/embeddinggemma-rules-fr.npz and its .json, deltas_file.py's
format), committed only where a paired test kept them. Measured on 2026-12-03 (docs/eval/MODELS.md), they ranked
better but refused more answerable test questions, so they are not committed: `rulesqa train --model
embeddinggemma` makes them here (15 min and 9 GB on 2 cores for the ten games), and the family says so in one line
without them.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from indexer.models.deltas_file import DELTAS_DIR, read_deltas
from indexer.models.description import Description, read_model_manifest
from indexer.models.gemma import folder as base
from indexer.models.lora import Adapted, LoraRecipe

FAMILY = "embeddinggemma-rules-fr"
MODEL_ID = f"{base.MODEL_ID}-rules-fr"
DELTAS = DELTAS_DIR / f"{FAMILY}.npz"
# Gemma3's linear layers (transformers' names); the deltas are keyed "layers.{i}.{self_attn|mlp}.{name}".
TARGETS = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
# The upper third of the 24 layers: a step of 32 examples takes about 25 s on 2 cores this way (backward stops at
# layer 16), so ten training games (57 steps) fit in half an hour; every layer would take twice as long.
RECIPE = LoraRecipe(rank=16, alpha=32, learning_rate=5e-4, epochs=1, batch_size=32, max_seq_length=128,
                    layers=tuple(range(16, 24)))
GAMES = 10
# Not committed (docs/eval/MODELS.md: the paired test did not keep them): whoever wants them trains them here.
REMAKE = "rulesqa train --model embeddinggemma"
# The examples as the model reads them: its query prompt, passages already in its "title: … | text: …" form.
ADAPTED = Adapted(TARGETS, {"query": base.PROMPTS["query"], "passage": "", "negative": ""}, lambda module: module)


def build(models_dir: Path, progress: bool = True, deltas: Path = DELTAS) -> Path:
    """The taught folder at models_dir/embeddinggemma-300m-rules-fr: the source fetched (once), the deltas added
    to its weights, the same 8-bit graph written; a no-op when built from the same deltas."""
    factors, info = read_deltas(deltas, remake=REMAKE)
    name = f"indexer/models/deltas/{Path(deltas).name}"

    def amend(described: Description) -> Description:
        return replace(described, family=FAMILY, model_id=MODEL_ID,
                       sources={**described.sources, name: info["sha256"]},
                       details={**described.details, "deltas_sha256": info["sha256"],
                                "deltas": {k: info[k] for k in ("recipe", "seed", "trained_on") if k in info}})

    def current(folder: Path) -> bool:
        return ((read_model_manifest(folder) or {}).get("details") or {}).get("deltas_sha256") == info["sha256"]

    return base.build_served(models_dir, MODEL_ID, progress=progress, deltas=factors, amend=amend, current=current,
                             note=f"\nTaught rulebooks: the low-rank deltas of {name} added to its weights.\n")
