"""Fusion and abstention settings measured on the eval's dev split, per embedding model.

They live in service/calibration.json, written by `rulesqa eval --calibrate` with the dev figures
that justified them, so a change of setting is a reviewed change of a data file. A model with no
entry gets the neutral defaults: weighted fusion 0.7 and no abstention (it has not been measured).
"""

import json
import math
from dataclasses import asdict, dataclass
from pathlib import Path

from service.retrieval import Evidence, FusionConfig

CALIBRATION_FILE = Path(__file__).resolve().parent / "calibration.json"
FEATURES = ("top", "lift")


@dataclass(frozen=True)
class AbstentionPolicy:
    """found when feature + coverage_weight * coverage >= threshold (see Evidence for the features)."""

    threshold: float = -math.inf
    feature: str = "top"
    coverage_weight: float = 0.0

    def confidence(self, evidence: Evidence) -> float:
        return getattr(evidence, self.feature) + self.coverage_weight * evidence.coverage

    def accepts(self, evidence: Evidence) -> bool:
        return self.confidence(evidence) >= self.threshold


@dataclass(frozen=True)
class Calibration:
    fusion: FusionConfig = FusionConfig()
    abstention: AbstentionPolicy = AbstentionPolicy()


def load(model_id: str, path: Path = CALIBRATION_FILE) -> Calibration:
    try:
        entry = json.loads(path.read_text("utf-8")).get(model_id)
    except (OSError, ValueError):
        entry = None
    if not entry:
        return Calibration()
    return Calibration(FusionConfig(**entry["fusion"]), AbstentionPolicy(**entry["abstention"]))


def save(model_id: str, calibration: Calibration, measured: dict, path: Path = CALIBRATION_FILE) -> None:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        data = {}
    data[model_id] = {
        "fusion": asdict(calibration.fusion),
        "abstention": asdict(calibration.abstention),
        "measured_on": "dev",
        "measured": measured,
    }
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", "utf-8")
    tmp.replace(path)
