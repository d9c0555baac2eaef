"""`rulesqa eval`'s workflows, one per kind of request (EvalRequest.workflow): each a function of the request and
its questions that returns what the command prints. Domain errors (EvalError and the rest) go up to the CLI."""

from __future__ import annotations

from collections.abc import Callable

from eval.calibrate import calibrate_index
from eval.compare_indexes import compare_indexes
from eval.gold import GoldQuestion
from eval.measure import measure
from eval.request import EvalRequest


def compare_adapt(request: EvalRequest, gold: list[GoldQuestion] | None) -> dict:
    """`--compare-adapt`: the base and the adapted e5, each indexing the corpus in a scratch folder."""
    from eval.compare_adapt import compare_adaptation
    from eval.scratch import scratch_beside_models
    from service.runtime.settings import load_settings

    conf = load_settings()
    with scratch_beside_models(conf.models_dir, "compare") as work:
        return compare_adaptation(conf.corpus_dir, conf.models_dir, gold, work, conf.threads, progress=True)


WORKFLOWS: dict[str, Callable] = {
    "compare-adapt": compare_adapt,
    "compare-index": compare_indexes,
    "calibrate": calibrate_index,
    "measure": measure,
}


def run_workflow(request: EvalRequest):
    """The request checked, its questions loaded, then its one workflow run."""
    request.check()
    gold = request.gold()
    if request.calibrate:
        from eval.replay import check_dev_only

        check_dev_only(gold)  # before loading anything heavy
    return WORKFLOWS[request.workflow](request, gold)
