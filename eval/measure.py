"""`rulesqa eval` without a comparison or a calibration: the served system measured on the gold questions in each
mode asked (eval/run.py), with its judge and the ablation's variants beside it when asked, the leave-one-game-out
adaptation study, and each answer (eval/outcomes.py) or a Markdown report (eval/report.py) written when asked."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from eval.gold import GoldQuestion
from eval.request import EvalRequest
from eval.scratch import scratch_beside_models
from eval.systems import served

JUDGED = "hybrid+réordonnanceur"


@dataclass(frozen=True)
class Measured:
    result: dict  # eval.run's, with "leave_one_game_out" when asked
    outcomes: Path | None  # the file of each answer, when asked
    report: Path | None  # the Markdown report, when asked


def measure(request: EvalRequest, gold: list[GoldQuestion] | None) -> Measured:
    from eval.run import run_eval

    system = served(request, gold)
    variants = {}
    if system.judged is not None:
        variants[JUDGED] = system.judged
    if request.ablation:
        from eval.ablation import variants as ablated

        variants.update(ablated(system.answerer))
    result = run_eval(system.answerer, system.questions, modes=request.modes, variants=variants)
    if request.leave_one_game_out:
        result["leave_one_game_out"] = _leave_one_game_out(system)
    return Measured(result, _write_outcomes(result, request.outcomes), _write_report(result, request.report))


def _leave_one_game_out(system) -> dict:
    from eval.leave_one_game_out import leave_one_game_out
    from indexer.models.e5 import MODEL_NAME, ensure_model

    conf = system.conf
    with scratch_beside_models(conf.models_dir, "logo") as work:
        return leave_one_game_out(ensure_model(conf.models_dir / MODEL_NAME), conf.corpus_dir, system.questions,
                                  work, system.answerer.calibration.fusion, conf.threads, progress=True)


def _write_outcomes(result: dict, path: Path | None) -> Path | None:
    if path is None:
        return None
    from eval.outcomes import write

    return write(result["records"], path)


def _write_report(result: dict, folder: Path | None) -> Path | None:
    if folder is None:
        return None
    from eval.report import write_report  # matplotlib: only when a report is asked

    return write_report(result, folder, result["split"] or "custom")
