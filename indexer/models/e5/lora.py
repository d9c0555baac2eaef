"""Low-rank adapters (LoRA) trained on e5-small for rulebooks: the trained part of a taught model is a few MB.

Training runs on the base model's float32 twin (folder.build_float32_folder, the dequantized 4-bit weights):
peft injects rank-`rank` adapters into every linear layer of the encoder, everything else stays frozen (the
word embeddings among them, so the vocabulary keeps its multilingual geometry), and sentence-transformers'
trainer minimises MultipleNegativesRankingLoss over (question, passage[, hard negative]) pairs, seeded.
The adapters come out as `Factors`: for each linear layer, `down` [rank, in] and `up` [out, rank] with
W' = W + up @ down, which graph.LowRank composes with the base's 4-bit blocks (rules_model.py).
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from indexer.models.e5.embedders import default_threads
from indexer.models.e5.graph import LINEARS

# transformers' module names of the trained linear layers (peft matches them by name suffix).
TARGETS = ("query", "key", "value", "dense")


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


# Factors of one linear layer: (down [rank, in], up [out, rank]), keyed "l{layer}.{LINEARS key}".
Factors = dict[str, tuple[np.ndarray, np.ndarray]]


def _log(msg: str) -> None:
    print(f"[rulesqa train] {msg}", file=sys.stderr, flush=True)


def train_lora(float32_dir: Path, queries: list[str], passages: list[str], negatives: list[str] | None, *,
               recipe: LoraRecipe, seed: int, scratch: Path, threads: int | None = None,
               progress: bool = True) -> tuple[Factors, dict]:
    """Train adapters on the float32 folder over the examples (query i answered by passage i, not by
    negative i); returns the factors and the training figures."""
    import torch
    from datasets import Dataset
    from peft import LoraConfig, inject_adapter_in_model
    from sentence_transformers import SentenceTransformer, SentenceTransformerTrainer
    from sentence_transformers import SentenceTransformerTrainingArguments as Args
    from sentence_transformers.base.sampler import BatchSamplers
    from sentence_transformers.sentence_transformer import losses
    from transformers import set_seed
    from transformers.utils import logging as hf_logging

    previous_threads = torch.get_num_threads()
    torch.set_num_threads(threads or default_threads())
    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()
    try:
        set_seed(seed)
        model = SentenceTransformer(str(float32_dir), device="cpu")
        model.max_seq_length = recipe.max_seq_length
        encoder = model[0].model
        config = LoraConfig(r=recipe.rank, lora_alpha=recipe.alpha, target_modules=list(TARGETS), lora_dropout=0.0,
                            bias="none")
        inject_adapter_in_model(config, encoder)
        for name, parameter in model.named_parameters():
            parameter.requires_grad_("lora_" in name)
        prompts = {"query": "query: ", "passage": "passage: "}
        columns = {"query": list(queries), "passage": list(passages)}
        if negatives is not None:
            columns["negative"] = list(negatives)
            prompts["negative"] = "passage: "
        args = Args(
            output_dir=str(scratch), num_train_epochs=recipe.epochs, learning_rate=recipe.learning_rate,
            per_device_train_batch_size=recipe.batch_size, seed=seed, data_seed=seed, use_cpu=True,
            save_strategy="no", report_to="none", logging_strategy="no", disable_tqdm=not progress,
            dataloader_num_workers=0, prompts=prompts,
            # The same question or passage twice in a batch would be its own negative.
            batch_sampler=BatchSamplers.NO_DUPLICATES,
        )
        loss = losses.MultipleNegativesRankingLoss(model, scale=recipe.scale)
        trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=Dataset.from_dict(columns),
                                             loss=loss)
        with contextlib.redirect_stdout(sys.stderr):  # the trainer prints its final figures
            result = trainer.train()
        factors = _factors(encoder, recipe)
        return factors, {"steps": int(result.global_step), "train_loss": round(float(result.training_loss), 5)}
    finally:
        torch.set_num_threads(previous_threads)
        hf_logging.set_verbosity(verbosity)


def _factors(encoder, recipe: LoraRecipe) -> Factors:
    """(down, up) per linear layer from peft's lora_A [rank, in] and lora_B [out, rank], the scaling folded
    into up."""
    scaling = recipe.alpha / recipe.rank
    state = {k: v.detach().float().numpy() for k, v in encoder.state_dict().items() if "lora_" in k}
    out: Factors = {}
    for i in range(encoder.config.num_hidden_layers):
        for name, (_, module) in LINEARS.items():
            prefix = f"encoder.layer.{i}.{module}"
            down = state[f"{prefix}.lora_A.default.weight"]
            up = state[f"{prefix}.lora_B.default.weight"] * scaling
            out[f"l{i}.{name}"] = (np.ascontiguousarray(down, np.float32), np.ascontiguousarray(up, np.float32))
    return out


def recipe_dict(recipe: LoraRecipe) -> dict:
    return asdict(recipe)
