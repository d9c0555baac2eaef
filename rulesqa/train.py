"""`rulesqa train`: e5-small taught rulebooks, from the training corpus (training/) to the committed deltas.

The training games' questions whose labels the third writer found right (eval/training_set.py) become
(question, answering passage, hard negative) examples, the passage written as the index embeds it; the hard
negative is the passage of the same game the base model ranks highest among the wrong ones. Low-rank
adapters are trained on them (indexer/models/lora.py), seeded, and written as the deltas
(indexer/models/deltas_file.py, composed by indexer/models/e5/taught.py). The four corpus games and eval/questions/ are never read here.
"""

from __future__ import annotations

import hashlib
import json
import resource
import shutil
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from eval.training_set import Example, examples, load, subset
from indexer.models.deltas_file import save_deltas
from indexer.models.e5.taught import DELTAS, E5
from indexer.models.lora import Adapted, LoraRecipe, recipe_dict, train_lora
from indexer.passage_text import embedding_text

SEED = 0


def gold_texts() -> set[str]:
    """The gold questions (dev and test), folded: a training question with the same words is left out, so
    that no evaluation question is ever trained on, even a generic one two writers phrased alike."""
    from eval.gold import SPLITS, load_questions

    return {q.question.casefold().strip() for split in SPLITS for q in load_questions(split)}


def training_examples(games: int | None = None, writers: int | None = None, seed: int = SEED) -> tuple[list, list]:
    """(games chosen, their examples) of the training split, gold question texts left out."""
    chosen = subset(load(split="train"), games, writers, seed)
    gold = gold_texts()
    return chosen, [e for e in examples(chosen) if e.question.casefold().strip() not in gold]


def hard_negatives(embedder, items: list[Example], passages: list[str]) -> list[str]:
    """For each example, the passage of its game that `embedder` ranks highest for its question, its own
    answer aside."""
    unique = sorted(set(passages))
    where = {text: i for i, text in enumerate(unique)}
    vectors = embedder.encode_passages(unique)
    questions = embedder.encode_queries([e.question for e in items])
    game_of = {}
    for e, text in zip(items, passages):
        game_of.setdefault(e.game.id, set()).add(where[text])
    out = []
    for e, text, q in zip(items, passages, questions):
        rows = np.array(sorted(game_of[e.game.id] - {where[text]}))
        out.append(unique[rows[int(np.argmax(vectors[rows] @ q))]] if len(rows) else unique[(where[text] + 1) % len(unique)])
    return out


@dataclass(frozen=True)
class Taught:
    """What teaching a family takes: its base, the deltas written by default, the recipe, how many games, and
    what its adapters go into."""

    base: str
    deltas: Path
    recipe: LoraRecipe
    games: int | None
    adapted: Adapted


def taught(model: str) -> Taught:
    """e5-small (rules-fr: every layer, the 46 games) or EmbeddingGemma (its upper layers, ten games: a run
    that fits in 90 minutes on 2 cores, indexer/models/gemma/taught.py)."""
    from indexer.errors import ModelError
    from indexer.models import get_family

    family = get_family(model)
    if family.name == "e5-small":
        return Taught("e5-small", DELTAS, LoraRecipe(), None, E5)
    if family.name == "embeddinggemma":
        from indexer.models.gemma import taught as gemma

        return Taught("embeddinggemma", gemma.DELTAS, gemma.RECIPE, gemma.GAMES, gemma.ADAPTED)
    raise ModelError(f"« rulesqa train » enseigne e5-small ou embeddinggemma, pas {family.name}")


def train(conf, *, model: str = "e5-small", games: int | None = None, writers: int | None = None,
          out: Path | None = None, seed: int = SEED, recipe: LoraRecipe | None = None, progress: bool = True) -> dict:
    """Train `model` on the training split's games (`games` of them, by `writers` authors, for a learning curve)
    and write the deltas to `out` (its family's committed file by default); returns what their .json records."""
    from indexer.atomic import scratch_dir
    from indexer.models import get_family
    from indexer.models.description import read_model_manifest
    from indexer.models.embedders import load_folder_embedder

    started = time.monotonic()
    how = taught(model)
    recipe, out = recipe or how.recipe, out or how.deltas
    chosen, items = training_examples(games or how.games, writers, seed)
    family = get_family(how.base)
    base_dir = family.build(conf.models_dir)
    embedder = load_folder_embedder(base_dir, conf.threads)
    passages = [embedding_text(e.passage, e.game, embedder.passage_form) for e in items]
    negatives = hard_negatives(embedder, items, passages) if recipe.hard_negatives else None
    del embedder
    float32_dir = family.reference(conf.models_dir)
    scratch = scratch_dir(Path(conf.models_dir), "train")
    try:
        factors, figures = train_lora(float32_dir, [e.question for e in items], passages, negatives, recipe=recipe,
                                      seed=seed, scratch=scratch, threads=conf.threads, progress=progress,
                                      adapted=how.adapted)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    digest = hashlib.sha256(json.dumps([[e.question, p] for e, p in zip(items, passages)],
                                       ensure_ascii=False).encode()).hexdigest()
    info = {
        "model": family.model_id, "recipe": recipe_dict(recipe), "seed": seed, "threads": conf.threads,
        "base_fingerprint": (read_model_manifest(base_dir) or {}).get("fingerprint"),
        "trained_on": {"games": [g.entry.id for g in chosen], "authors": sorted({g.entry.author for g in chosen}),
                       "examples": len(items), "examples_sha256": digest},
        "training": {**figures, "seconds": round(time.monotonic() - started, 1),
                     "peak_rss_mib": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)},
    }
    return {**info, "file": str(save_deltas(factors, info, out))}
