"""Low-rank adapters (LoRA) trained for rulebooks, for every family: the trained part of a taught model is a few MB.

Training runs on the base model's float32 twin (folder.build_float32_folder, the dequantized 4-bit weights):
peft injects rank-`rank` adapters into every linear layer of the encoder, everything else stays frozen (the
word embeddings among them, so the vocabulary keeps its multilingual geometry), and sentence-transformers'
trainer minimises MultipleNegativesRankingLoss over (question, passage[, hard negative]) pairs, seeded.
The adapters come out as `Factors`: for each linear layer, `down` [rank, in] and `up` [out, rank] with
W' = W + up @ down, which e5's graph.LowRank composes with the base's 4-bit blocks (e5/taught.py). The training
itself is the model room's one trainer (indexer/models/trainer.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path

from indexer.models.deltas_file import Factors


@dataclass(frozen=True)
class LoraRecipe:
    """Chosen on the validation games (docs/eval/TRAINING.md); every field enters the deltas' manifest."""

    rank: int = 16
    alpha: int = 32  # the update is scaled by alpha / rank
    learning_rate: float = 5e-4
    epochs: int = 1
    batch_size: int = 32
    max_seq_length: int = 128  # the training games' passages and questions stay under it
    scale: float = 20.0  # MultipleNegativesRankingLoss: cosines times this before the softmax
    hard_negatives: bool = True  # each pair with the base model's nearest wrong passage of its game
    layers: tuple[int, ...] = ()  # the layers that get adapters; empty: every layer


@dataclass(frozen=True)
class Adapted:
    """What a family's adapters go into (e5/taught.py's E5, gemma/taught.py's ADAPTED): its linear layers' module
    names, the prompts of its examples, and the key each layer's factors are stored under (from its module name
    in the encoder)."""

    targets: tuple[str, ...]
    prompts: dict[str, str]
    key: Callable[[str], str]


def train_lora(float32_dir: Path, queries: list[str], passages: list[str], negatives: list[str] | None, *,
               recipe: LoraRecipe, seed: int, scratch: Path, threads: int | None = None,
               progress: bool = True, adapted: Adapted) -> tuple[Factors, dict]:
    """Train adapters on the float32 folder over the examples (query i answered by passage i, not by
    negative i); returns the factors and the training figures."""
    from indexer.models.trainer import Fit, adapter_factors, fit

    columns = {"query": list(queries), "passage": list(passages)}
    if negatives is not None:
        columns["negative"] = list(negatives)
    how = Fit(epochs=recipe.epochs, batch_size=recipe.batch_size, learning_rate=recipe.learning_rate,
              max_seq_length=recipe.max_seq_length, scale=recipe.scale, adapters=recipe.rank, alpha=recipe.alpha,
              targets=adapted.targets, layers=tuple(recipe.layers))
    figures, encoder = fit(float32_dir, columns, adapted.prompts, how=how, seed=seed, scratch=scratch,
                           threads=threads, progress=progress)
    trained = adapter_factors(encoder, recipe.rank, recipe.alpha)
    factors = {adapted.key(module): pair for module, pair in trained.items()}
    return factors, figures


def recipe_dict(recipe: LoraRecipe) -> dict:
    return asdict(recipe)
