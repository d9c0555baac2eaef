"""Settings measured on the eval's dev split, per embedding model: fusion, abstention, refusal signals,
answer-set size and the common-mistake threshold.

They live in service/engine/data/calibration.json (package data), written by `rulesqa eval --calibrate` with the dev
figures that justified them, so a change of setting is a reviewed change of a data file. A model with
no entry, or a missing or unreadable file, gets conservative defaults (it refuses more rather than
answer wrongly), one warning in the log, and `/health` says "calibration": "default".
"""

from __future__ import annotations

import json
import logging
import math
import re
from dataclasses import asdict, dataclass
from pathlib import Path

from service.engine.compose.answer_set import AnswerSetPolicy
from service.engine.compose.choices import ConfidencePolicy
from service.engine.compose.mistakes import WarningPolicy
from service.engine.decide.refusal import RefusalPolicy
from service.engine.retrieval.single import Evidence, FusionConfig

CALIBRATION_FILE = Path(__file__).resolve().parent / "data" / "calibration.json"
FEATURES = ("top", "lift", "rerank")
# A model adapted to a corpus is named after its base and a digest of that corpus
# (indexer/e5/finetune.py); its calibration is that of its family, whatever the corpus.
_DIGEST_SUFFIX = re.compile(r"-[0-9a-f]{12}$")
log = logging.getLogger("rulesqa")


@dataclass(frozen=True)
class AbstentionPolicy:
    """found when feature + coverage_weight * coverage >= threshold (see Evidence for the features)."""

    threshold: float = -math.inf
    feature: str = "top"
    coverage_weight: float = 0.0

    def __post_init__(self):
        if self.feature not in FEATURES:
            raise ValueError(f"indice d'abstention inconnu {self.feature!r} ({', '.join(FEATURES)})")

    def confidence(self, evidence: Evidence) -> float:
        value = getattr(evidence, self.feature)
        if value is None:  # "rerank" measured with a reranker, asked without one: nothing is accepted
            return -math.inf
        return value + self.coverage_weight * evidence.coverage

    def accepts(self, evidence: Evidence) -> bool:
        return self.confidence(evidence) >= self.threshold


@dataclass(frozen=True)
class Calibration:
    fusion: FusionConfig = FusionConfig()
    abstention: AbstentionPolicy = AbstentionPolicy()
    refusal: RefusalPolicy = RefusalPolicy()
    answer_set: AnswerSetPolicy = AnswerSetPolicy()
    warning: WarningPolicy = WarningPolicy()
    confidence: ConfidencePolicy = ConfidencePolicy()
    source: str = "calibrated"  # "default" when no measurement was found for the model


# Without a measurement: refuse unless the best passage clearly stands out from the corpus (lift, the
# cosine above the question's mean cosine, is comparable across e5-like models), quote one passage, and
# show no common-mistake warning.
DEFAULT = Calibration(abstention=AbstentionPolicy(threshold=0.05, feature="lift"), source="default")
_PARTS = {"fusion": FusionConfig, "abstention": AbstentionPolicy, "refusal": RefusalPolicy,
          "answer_set": AnswerSetPolicy, "warning": WarningPolicy, "confidence": ConfidencePolicy}


def family(model_id: str, reranker_id: str | None = None) -> str:
    """The calibration entry of a model (and reranker): "multilingual-e5-small", or
    "multilingual-e5-small+bge-reranker-base" when a reranker judges (its scores decide the abstention)."""
    base = _DIGEST_SUFFIX.sub("", model_id)
    return f"{base}+{reranker_id}" if reranker_id else base


def _from_entry(entry: dict) -> Calibration:
    return Calibration(**{name: cls(**entry[name]) for name, cls in _PARTS.items() if name in entry})


def load(model_id: str, path: Path = CALIBRATION_FILE, reranker_id: str | None = None) -> Calibration:
    try:
        entry = json.loads(Path(path).read_text("utf-8"))[family(model_id, reranker_id)]
        return _from_entry(entry)
    except (OSError, ValueError, KeyError, TypeError) as exc:
        # json's errors are ValueErrors; a missing entry a KeyError; a malformed one a TypeError/ValueError.
        log.warning("pas de calibrage utilisable pour le modèle %s dans %s (%s : %s) ; réglages prudents par défaut",
                    family(model_id, reranker_id), path, type(exc).__name__, exc)
        return DEFAULT


def save(model_id: str, calibration: Calibration, measured: dict, path: Path = CALIBRATION_FILE,
         reranker_id: str | None = None) -> None:
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        data = {}
    # An unmeasured threshold is infinite: Python's json writes and reads it as Infinity.
    entry = {name: asdict(getattr(calibration, name)) for name in _PARTS}
    data[family(model_id, reranker_id)] = {**entry, "measured_on": "dev", "measured": measured}
    tmp = path.with_suffix(".json.tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=2) + "\n", "utf-8")
    tmp.replace(path)
