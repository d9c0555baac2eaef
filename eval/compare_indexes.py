"""`rulesqa eval --compare-index DIR`: the served index against DIR, each answered by its own model and
calibration (for the new games: each model's own index of them), paired (eval/compare_models.py); over the
test and new-games questions together with `--split pooled`."""

from __future__ import annotations

from pathlib import Path

from eval.errors import EvalError
from eval.gold import GoldQuestion
from eval.new_games import SPLIT as NEW_GAMES
from eval.request import POOLED, EvalRequest
from eval.systems import index_system, served_models


def compare_indexes(request: EvalRequest, gold: list[GoldQuestion] | None) -> dict:
    """The comparison's figures and paired tests, without the per-question records."""
    from eval.compare_models import POOLED as POOLED_SPLITS, compare, pooled

    # The served index's model and judge load first, as for every eval: a broken one is one line, before any work.
    conf, _, _ = served_models(request.index_dir, request.model, request.reranker)
    folders = [Path(conf.index_dir), Path(request.compare_index)]
    if folders[0].resolve() == folders[1].resolve():
        raise EvalError(f"--compare-index {request.compare_index} est l'index servi lui-même : rien à comparer")
    results = []
    for split in POOLED_SPLITS if request.split == POOLED else (request.split,):
        built, asked = [], gold if request.split != POOLED else _questions_of(split)
        for folder in folders:
            label, answerer, own = index_system(conf, folder, split)
            built.append((label, answerer))
            asked = own or asked
        labels = system_labels([label for label, _ in built], folders)
        results.append(compare({label: answerer for label, (_, answerer) in zip(labels, built)}, asked))
    result = pooled(results) if request.split == POOLED else results[0]
    result.pop("records", None)
    return result


def system_labels(models: list[str], folders: list[Path]) -> list[str]:
    """Each system's label: its model, and its index folder where both have the same model (two calibrations
    of one model compared): the folder's name, or its whole path where the names are alike too."""
    if len(set(models)) == len(models):
        return models
    names = [f.name for f in folders]
    places = names if len(set(names)) == len(names) else [str(f) for f in folders]
    return [f"{model} ({place})" for model, place in zip(models, places)]


def _questions_of(split: str) -> list[GoldQuestion] | None:
    """The gold questions of a split (the new games' are loaded with their own index, by `index_system`)."""
    from eval.gold import load_questions

    return None if split == NEW_GAMES else load_questions(split)
