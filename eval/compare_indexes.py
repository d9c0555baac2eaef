"""`rulesqa eval --compare-index DIR`: the served index against DIR, each answered by its own model and
calibration (for the new games: each model's own index of them), paired (eval/compare_models.py); over the
test and new-games questions together with `--split pooled`."""

from __future__ import annotations

from pathlib import Path

from eval.gold import GoldQuestion
from eval.new_games import SPLIT as NEW_GAMES
from eval.request import POOLED, EvalRequest
from eval.systems import index_system, served_models


def compare_indexes(request: EvalRequest, gold: list[GoldQuestion] | None) -> dict:
    """The comparison's figures and paired tests, without the per-question records."""
    from eval.compare_models import POOLED as POOLED_SPLITS, compare, pooled

    # The served index's model and judge load first, as for every eval: a broken one is one line, before any work.
    conf, _, _ = served_models(request.index_dir, request.model, request.reranker)
    results = []
    for split in POOLED_SPLITS if request.split == POOLED else (request.split,):
        systems, asked = {}, gold if request.split != POOLED else _questions_of(split)
        for folder in (conf.index_dir, request.compare_index):
            label, answerer, own = index_system(conf, Path(folder), split)
            systems[label], asked = answerer, own or asked
        results.append(compare(systems, asked))
    result = pooled(results) if request.split == POOLED else results[0]
    result.pop("records", None)
    return result


def _questions_of(split: str) -> list[GoldQuestion] | None:
    """The gold questions of a split (the new games' are loaded with their own index, by `index_system`)."""
    from eval.gold import load_questions

    return None if split == NEW_GAMES else load_questions(split)
