"""Settings measured on the eval's dev split, per embedding model: fusion, routing, abstention, refusal signals,
answer-set size, the common-mistake threshold, the confidence of a first passage, and the learned judge's lead and
thresholds.

A calibration lives beside what it measured: `rulesqa eval --calibrate` writes it into the index folder
(`calibration.json`, written atomically, carried over by every rebuild: indexer/store.py), with the dev figures
that justified it. The package holds only defaults (service/engine/data/calibration.json: what was measured for
each model family when it shipped), read when the index has no calibration of its own. A model with neither,
or a missing or unreadable file, gets conservative defaults (it refuses more rather than answer wrongly), one
warning in the log, and `/health` says "calibration": "default".
"""

from __future__ import annotations

import json
import logging
import re
from dataclasses import asdict, dataclass
from functools import partial
from pathlib import Path

from indexer import calibration_file
from service.engine.compose.answer_set import AnswerSetPolicy
from service.engine.compose.common_mistake import CommonMistakePolicy
from service.engine.decide.abstention import AbstentionPolicy
from service.engine.decide.answerability import AnswerabilityPolicy
from service.engine.decide.confidence import ConfidencePolicy
from service.engine.decide.refusal import RefusalPolicy
from service.engine.judge.ranker_policy import RankerPolicy
from service.engine.retrieval.protocol import FusionConfig
from service.engine.routing.router import RoutingPolicy

DEFAULTS_FILE = Path(__file__).resolve().parent / "data" / "calibration.json"
# A model adapted to a corpus is named after its base and a digest of that corpus
# (indexer/models/e5/finetune.py); its calibration is that of its family, whatever the corpus.
_DIGEST_SUFFIX = re.compile(r"-[0-9a-f]{12}$")
log = logging.getLogger("rulesqa")


@dataclass(frozen=True)
class Calibration:
    fusion: FusionConfig = FusionConfig()
    abstention: AbstentionPolicy = AbstentionPolicy()
    refusal: RefusalPolicy = RefusalPolicy()
    answer_set: AnswerSetPolicy = AnswerSetPolicy()
    common_mistake: CommonMistakePolicy = CommonMistakePolicy()
    confidence: ConfidencePolicy = ConfidencePolicy()
    routing: RoutingPolicy = RoutingPolicy()
    answerability: AnswerabilityPolicy = AnswerabilityPolicy()
    ranker: RankerPolicy = RankerPolicy()
    source: str = "calibrated"  # "default" when no measurement was found for the model


# Without a measurement: refuse unless the best passage clearly stands out from the corpus (lift, the
# cosine above the question's mean cosine, is comparable across e5-like models), quote one passage, and
# show no common-mistake warning.
DEFAULT = Calibration(abstention=AbstentionPolicy(threshold=0.05, feature="lift"), source="default")
PARTS = {"fusion": FusionConfig, "abstention": AbstentionPolicy, "refusal": RefusalPolicy,
          "answer_set": AnswerSetPolicy, "common_mistake": CommonMistakePolicy, "confidence": ConfidencePolicy,
          "routing": RoutingPolicy, "answerability": AnswerabilityPolicy, "ranker": RankerPolicy}


def family(model_id: str, reranker_id: str | None = None) -> str:
    """The calibration entry of a model (and judge): "multilingual-e5-small", or
    "multilingual-e5-small+bge-reranker-base" when a judge re-orders (its scores decide the abstention)."""
    base = _DIGEST_SUFFIX.sub("", model_id)
    return f"{base}+{reranker_id}" if reranker_id else base


# Parts saved under an earlier name: a calibration written before the rename still reads.
_EARLIER_NAMES = {"warning": "common_mistake"}


def _from_entry(entry: dict) -> Calibration:
    entry = {_EARLIER_NAMES.get(name, name): value for name, value in entry.items()}
    return Calibration(**{name: cls(**entry[name]) for name, cls in PARTS.items() if name in entry})


def _read_defaults(path: Path) -> dict:
    """The package's defaults file (not an index folder, whose calibration.json indexer/calibration_file.py alone reads); empty when absent."""
    if not path.is_file():
        return {}
    return json.loads(path.read_text("utf-8"))


def load(model_id: str, index_dir: Path | None = None, reranker_id: str | None = None,
         defaults: Path = DEFAULTS_FILE) -> Calibration:
    """The index's own calibration for the model (and judge), else the package's default for its family, else
    DEFAULT."""
    name = family(model_id, reranker_id)
    # Each place as the log line names it, and how it is read: the index's own file first, then the defaults.
    places = [(Path(defaults), partial(_read_defaults, Path(defaults)))]
    if index_dir is not None:
        places.insert(0, (Path(index_dir) / calibration_file.CALIBRATION, partial(calibration_file.read_calibrations, index_dir)))
    seen = []
    for path, read in places:
        try:
            entry = read().get(name)
            if entry is not None:
                return _from_entry(entry)
            seen.append(f"{path} : absent")
        except (OSError, ValueError, TypeError) as exc:
            # json's errors are ValueErrors; a malformed entry a TypeError or ValueError.
            seen.append(f"{path} : {type(exc).__name__} : {exc}")
    log.warning("pas de calibrage utilisable pour le modèle %s (%s) ; réglages prudents par défaut", name,
                " ; ".join(seen))
    return DEFAULT


def save(model_id: str, calibration: Calibration, measured: dict, index_dir: Path,
         reranker_id: str | None = None) -> Path:
    """Write the calibration into the index folder (its other models' entries kept), atomically."""
    entry = {name: asdict(getattr(calibration, name)) for name in PARTS}
    return calibration_file.save_calibration_entry(index_dir, family(model_id, reranker_id),
                                                   {**entry, "measured_on": "dev", "measured": measured})
