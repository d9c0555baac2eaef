"""The one trainer of the model room: sentence-transformers' trainer over a family's float32 folder, for every
family and both uses (e5 taught rulebooks, indexer/models/lora.py; e5 adapted to a corpus at index time,
indexer/models/e5/finetune.py).

Examples are (query, passage[, negative]) columns; MultipleNegativesRankingLoss (its cached form when asked:
the same gradients, a bounded memory) with in-batch negatives, no duplicate in a batch, seeded. Either every
parameter but the frozen word embeddings is trained, or low-rank adapters (peft) are injected into the
family's linear layers and only they are. torch and the rest are imported when training starts.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass
from pathlib import Path

from indexer.models.threads import default_threads


@dataclass(frozen=True)
class Fit:
    """How one training runs (what a recipe fixes besides the examples and the seed)."""

    epochs: int
    batch_size: int
    learning_rate: float
    max_seq_length: int
    scale: float = 20.0  # cosines times this before the softmax (temperature 0.05)
    warmup: float = 0.0
    mini_batch_size: int = 0  # > 0: CachedMultipleNegativesRankingLoss, that many texts at a time
    adapters: int = 0  # > 0: the rank of low-rank adapters on `targets`; 0: train every unfrozen weight
    alpha: int = 32
    targets: tuple[str, ...] = ()  # the linear layers' module names (peft matches them by suffix)
    layers: tuple[int, ...] = ()  # the layers whose linear layers get adapters; empty: all of them
    freeze_word_embeddings: bool = True


def fit(float32_dir: Path, columns: dict[str, list[str]], prompts: dict[str, str], *, how: Fit, seed: int,
        scratch: Path, threads: int | None = None, progress: bool = True,
        before=None) -> tuple[dict, object]:
    """Train the sentence-transformers folder `float32_dir` on `columns` ("query", "passage", optionally
    "negative"), each with its prompt; returns (figures, the trained encoder module). `before(model)`, when
    given, may add columns computed with the loaded model (hard negatives) and returns the columns to use."""
    import torch
    from datasets import Dataset
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
    bars = hf_logging.is_progress_bar_enabled()
    if not progress:
        hf_logging.disable_progress_bar()  # "Loading weights" and the like, on a quiet build
    try:
        set_seed(seed)
        model = SentenceTransformer(str(float32_dir), device="cpu")
        model.max_seq_length = how.max_seq_length
        encoder = model[0].auto_model
        _choose_trained(model, encoder, how)
        if before is not None:
            columns = before(model, dict(columns))
        prompts = {name: prompts[name] for name in columns}
        if how.mini_batch_size:
            loss = losses.CachedMultipleNegativesRankingLoss(model, scale=how.scale, show_progress_bar=False,
                                                             mini_batch_size=how.mini_batch_size)
        else:
            loss = losses.MultipleNegativesRankingLoss(model, scale=how.scale)
        args = Args(
            output_dir=str(scratch), num_train_epochs=how.epochs, learning_rate=how.learning_rate,
            per_device_train_batch_size=how.batch_size, warmup_steps=how.warmup, seed=seed, data_seed=seed,
            use_cpu=True, save_strategy="no", report_to="none", logging_strategy="no", disable_tqdm=not progress,
            dataloader_num_workers=0, prompts=prompts,
            # The same query or passage twice in a batch would be its own negative.
            batch_sampler=BatchSamplers.NO_DUPLICATES,
        )
        trainer = SentenceTransformerTrainer(model=model, args=args, train_dataset=Dataset.from_dict(columns),
                                             loss=loss)
        with contextlib.redirect_stdout(sys.stderr):  # the trainer prints its final figures
            result = trainer.train()
        figures = {"steps": int(result.global_step), "train_loss": round(float(result.training_loss), 5)}
        del trainer, loss
        return figures, encoder
    finally:
        torch.set_num_threads(previous_threads)
        hf_logging.set_verbosity(verbosity)
        if bars:
            hf_logging.enable_progress_bar()


def _choose_trained(model, encoder, how: Fit) -> None:
    """Adapters only, or everything but the word embeddings (frozen, the vocabulary keeps its multilingual
    geometry and training needs no optimizer state for it)."""
    if how.adapters:
        from peft import LoraConfig, inject_adapter_in_model

        where = {"layers_to_transform": list(how.layers), "layers_pattern": _layers_pattern(encoder)} \
            if how.layers else {}
        config = LoraConfig(r=how.adapters, lora_alpha=how.alpha, target_modules=list(how.targets), lora_dropout=0.0,
                            bias="none", **where)
        inject_adapter_in_model(config, encoder)
        for name, parameter in model.named_parameters():
            parameter.requires_grad_("lora_" in name)
    elif how.freeze_word_embeddings:
        encoder.get_input_embeddings().weight.requires_grad_(False)


def _layers_pattern(encoder) -> str:
    """The name of the encoder's list of layers ("layer" in BERT-like models, "layers" in Gemma)."""
    import torch

    for name, module in encoder.named_modules():
        if isinstance(module, torch.nn.ModuleList):
            return name.rsplit(".", 1)[-1]
    raise ValueError("no list of layers in the encoder")


def adapter_factors(encoder, rank: int, alpha: int) -> dict[str, tuple]:
    """Each adapted linear layer's (down [rank, in], up [out, rank]) from peft's lora_A and lora_B, the scaling
    alpha / rank folded into up, keyed by the layer's module name in the encoder ("layers.16.mlp.up_proj")."""
    import numpy as np

    suffix = ".lora_A.default.weight"
    state = {k: v.detach().float().numpy() for k, v in encoder.state_dict().items() if "lora_" in k}
    out = {}
    for key in sorted(k for k in state if k.endswith(suffix)):
        module = key[: -len(suffix)]
        down, up = state[key], state[f"{module}.lora_B.default.weight"] * (alpha / rank)
        out[module] = (np.ascontiguousarray(down, np.float32), np.ascontiguousarray(up, np.float32))
    return out
