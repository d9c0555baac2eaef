"""The learning curve of e5 taught rulebooks: trained on 10, 20 and 40 training games, and on 8 games by 1, 2
and 4 writers, each measured on the four corpus games (dev split) and on the validation games (new games),
dense and hybrid, against the base model; prints a Markdown table and writes it with --out.

    .venv/bin/python -m benchmarks.learning_curve [--runs games:10 games:20 games:40 writers:1 writers:2 writers:4]
        [--recipe rank=16,learning_rate=2e-4,epochs=1] [--out docs/eval/LEARNING_CURVE.md] [--keep DIR]

Each run trains (minutes on 2 cores) then builds two small indexes. The same fixed calibration (the base
model's) ranks every model, so the figures compare models, not calibrations. Reproducible: seeded.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from eval.gold import load_questions
from eval.new_games import materialize
from eval.run import run_eval
from indexer.models.lora import LoraRecipe

REPO = Path(__file__).resolve().parents[1]
METRICS = ("hit@1", "mrr@10")


def measure(embedder, work: Path, dev, new_games_corpus: Path, new_games) -> dict:
    """dense and hybrid hit@1 / MRR@10 of the embedder on dev (corpus/) and on the new games."""
    from indexer.build import build_index
    from service.engine.calibration import load as load_calibration
    from service.runtime.answerers import build_answerer
    from service.runtime.settings import load_settings

    calibration = load_calibration("multilingual-e5-small")  # the same for every model compared
    out = {}
    for name, corpus, questions in (("dev", REPO / "corpus", dev), ("new", new_games_corpus, new_games)):
        index = work / f"index-{name}"
        build_index(corpus, index, embedder, progress=False)
        answerer = build_answerer(load_settings(index_dir=index, cache_dir=None), embedder=embedder, reranker=None,
                                  calibration=calibration)
        result = run_eval(answerer, questions, modes=("dense", "hybrid"), metrics=METRICS)
        for mode in ("dense", "hybrid"):
            for metric in METRICS:
                out[f"{name} {mode} {metric}"] = round(result["results"][mode]["overall"][metric], 3)
        shutil.rmtree(index, ignore_errors=True)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", nargs="*", default=["games:10", "games:20", "games:40", "writers:1", "writers:2",
                                                      "writers:4"])
    parser.add_argument("--recipe", default="", help="recipe fields to change, name=value,...")
    parser.add_argument("--base", action="store_true", help="measure the base model too")
    parser.add_argument("--deltas", nargs="*", default=[], type=Path,
                        help="also measure these deltas files as they are (no training): e.g. the committed ones")
    parser.add_argument("--out", type=Path)
    parser.add_argument("--keep", type=Path, help="keep each run's deltas in this folder")
    args = parser.parse_args()
    from indexer.models.embedders import load_folder_embedder
    from indexer.models.e5.folder import MODEL_NAME, ensure_model
    from indexer.models.e5.taught import RULES_MODEL_NAME, build_rules_model
    from rulesqa.train import train
    from service.runtime.settings import load_settings

    recipe = LoraRecipe()
    for part in filter(None, args.recipe.split(",")):
        name, value = part.split("=")
        recipe = replace(recipe, **{name: type(getattr(recipe, name))(value if value not in ("False", "True")
                                                                         else value == "True")})
    conf = load_settings()
    base_dir = ensure_model(conf.models_dir / MODEL_NAME)
    work = Path(tempfile.mkdtemp(prefix="curve-"))
    dev = load_questions("dev")
    corpus, questions = materialize(work / "new-games")
    new_games = load_questions(questions)
    rows = []
    try:
        if args.base:
            rows.append({"run": "base", **measure(load_folder_embedder(base_dir, conf.threads), work, dev, corpus,
                                                   new_games)})
            print(json.dumps(rows[-1]), flush=True)
        for deltas in args.deltas:
            folder = build_rules_model(base_dir, work / f"model-{deltas.stem}", deltas)
            info = json.loads(deltas.with_suffix(".json").read_text("utf-8"))
            rows.append({"run": f"{deltas.name} ({len(info['trained_on']['games'])} games)",
                         "examples": info["trained_on"]["examples"], "train_s": info["training"]["seconds"],
                         **measure(load_folder_embedder(folder, conf.threads, RULES_MODEL_NAME), work, dev, corpus,
                                   new_games)})
            print(json.dumps(rows[-1]), flush=True)
            shutil.rmtree(folder, ignore_errors=True)
        for run in args.runs:
            kind, value = run.split(":")
            deltas = (args.keep or work) / f"{run.replace(':', '-')}.npz"
            deltas.parent.mkdir(parents=True, exist_ok=True)
            started = time.monotonic()
            info = train(conf, games=int(value) if kind == "games" else 8,
                         writers=int(value) if kind == "writers" else None, out=deltas, recipe=recipe, progress=False)
            folder = build_rules_model(base_dir, work / f"model-{run.replace(':', '-')}", deltas)
            row = {"run": run, "examples": info["trained_on"]["examples"],
                   "train_s": info["training"]["seconds"],
                   **measure(load_folder_embedder(folder, conf.threads, RULES_MODEL_NAME), work, dev, corpus, new_games),
                   "total_s": round(time.monotonic() - started)}
            rows.append(row)
            print(json.dumps(row), flush=True)
            shutil.rmtree(folder, ignore_errors=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    columns = list(rows[0]) if rows else []
    table = "\n".join(["| " + " | ".join(columns) + " |", "|" + "---|" * len(columns)]
                      + ["| " + " | ".join(str(r.get(c, "")) for c in columns) + " |" for r in rows])
    print(f"recipe: {recipe}\n\n{table}")
    if args.out:
        args.out.write_text(f"recipe: `{recipe}`\n\n{table}\n", "utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
