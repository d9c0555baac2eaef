"""`rulesqa eval --calibrate`: the served index's calibration chosen on dev (eval/tune.py does the choosing), then
kept or replaced: a calibration already saved for the model gives way only on a paired test's evidence
(tune.adoption); the one adopted is written into the index folder (service/engine/calibration.py)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from eval.gold import GoldQuestion
from eval.request import EvalRequest
from eval.systems import served


@dataclass(frozen=True)
class Calibrated:
    chosen: object  # service.engine.calibration.Calibration
    measured: dict  # the chosen calibration's figures on dev
    pairs: list[dict] | None  # the paired tests against the saved calibration; None when none was saved
    saved: Path | None  # the calibration file written; None when the saved calibration is kept


def calibrate_index(request: EvalRequest, gold: list[GoldQuestion]) -> Calibrated:
    """Tune on `gold` (dev only) the served answerer (with its reranker when there is one), adopt, save."""
    from eval.tune import adoption, calibrate
    from service.engine import calibration

    system = served(request, gold)
    answerer = system.judged or system.answerer
    chosen, info = calibrate(answerer, system.questions)
    pairs = None
    if answerer.calibration.source != "default":
        decision = adoption(answerer, chosen, system.questions)
        pairs = decision["pairs"]
        if not decision["adopt"]:
            return Calibrated(chosen, info["measured"], pairs, None)
    reranker_id = answerer.reranker.model_id if answerer.reranker else None
    saved = calibration.save(system.embedder.model_id, chosen, info["measured"], system.conf.index_dir,
                             reranker_id=reranker_id)
    return Calibrated(chosen, info["measured"], pairs, saved)
