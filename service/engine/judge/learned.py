"""The learned judge's two models, read from one file trained by `make train` (eval/train_judge.py):

- the **ranker**, a small network's score of each candidate's features (judge/features.py: one hidden layer,
  trained listwise on the training games) that re-orders the routed game's first passages;
- the **answerability judge**, two logistic models over the first passages' features after that order: the
  probability that the first passage answers the question, and that one of the first three does. The decision
  reads them (decide/decision.py) against thresholds calibrated on dev.

The file says what it was trained for: its format, the feature names in order and the embedding model family
whose cosines it read; a file that does not match is refused in one line (JudgeFileError), never read wrong.
Serving needs numpy only: two small matrix products per question.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from indexer.errors import ModelError
from service.engine.findings import Judgement
from service.engine.judge.features import FEATURES
from service.engine.judge.ranker_policy import TRUSTED, RankerPolicy

FORMAT = 1
DATA = Path(__file__).resolve().parents[1] / "data"
TOP = 3  # "one of the first three answers"
# The question-level inputs of the answerability judge, beside the first passage's features.
ANSWER_INPUTS = ("ranker_first", "ranker_gap", "ranker_third", *(f"first_{name}" for name in FEATURES))


class JudgeFileError(ModelError):
    """A judge file that is absent, unreadable, or trained for other features or another model."""


def judge_file(model_family: str, folder: Path = DATA) -> Path:
    return Path(folder) / f"judge-{model_family}.json"


@dataclass(frozen=True)
class Linear:
    """w · (x - mean) / scale + bias."""

    mean: np.ndarray
    scale: np.ndarray
    weights: np.ndarray
    bias: float

    @classmethod
    def of(cls, data: dict, width: int) -> Linear:
        parts = [np.asarray(data[k], dtype=np.float64) for k in ("mean", "scale", "weights")]
        if any(p.shape != (width,) for p in parts):
            raise ValueError(f"{width} valeurs attendues par vecteur")
        return cls(*parts, float(data["bias"]))

    def __call__(self, x: np.ndarray) -> np.ndarray:
        return ((x - self.mean) / self.scale) @ self.weights + self.bias

    def as_dict(self) -> dict:
        return {"mean": self.mean.tolist(), "scale": self.scale.tolist(), "weights": self.weights.tolist(),
                "bias": self.bias}


@dataclass(frozen=True)
class Network:
    """w2 · relu(W1 (x - mean) / scale + b1) + b2: the ranker's score of each candidate."""

    mean: np.ndarray
    scale: np.ndarray
    hidden_weights: np.ndarray  # (hidden, features)
    hidden_bias: np.ndarray
    out_weights: np.ndarray
    out_bias: float

    @classmethod
    def of(cls, data: dict, width: int) -> Network:
        mean, scale, w1, b1, w2 = (np.asarray(data[k], dtype=np.float64) for k in
                                   ("mean", "scale", "hidden_weights", "hidden_bias", "out_weights"))
        if mean.shape != (width,) or scale.shape != (width,) or w1.ndim != 2 or w1.shape[1] != width \
                or b1.shape != (w1.shape[0],) or w2.shape != (w1.shape[0],):
            raise ValueError(f"réseau de {width} entrées attendu")
        return cls(mean, scale, w1, b1, w2, float(data["out_bias"]))

    def __call__(self, x: np.ndarray) -> np.ndarray:
        hidden = np.maximum(((x - self.mean) / self.scale) @ self.hidden_weights.T + self.hidden_bias, 0.0)
        return hidden @ self.out_weights + self.out_bias

    def as_dict(self) -> dict:
        return {"mean": self.mean.tolist(), "scale": self.scale.tolist(),
                "hidden_weights": self.hidden_weights.tolist(), "hidden_bias": self.hidden_bias.tolist(),
                "out_weights": self.out_weights.tolist(), "out_bias": self.out_bias}


def _sigmoid(x: float) -> float:
    return 1.0 / (1.0 + math.exp(-x)) if x > -500 else 0.0


class LearnedJudge:
    def __init__(self, ranker: Network | Linear, first: Linear, any_top: Linear, model_family: str, top_n: int = 20,
                 source: str = ""):
        self.ranker, self.first, self.any_top = ranker, first, any_top
        self.model_family = model_family
        self.top_n = top_n
        self.source = source

    @classmethod
    def load(cls, path: Path, model_family: str) -> LearnedJudge:
        path = Path(path)
        try:
            data = json.loads(path.read_text("utf-8"))
        except (OSError, ValueError) as exc:
            raise JudgeFileError(f"juge illisible : {path} ({exc}) ; relancez `make train`") from None
        if data.get("format") != FORMAT:
            raise JudgeFileError(f"juge {path} : format {data.get('format')!r}, attendu {FORMAT} ; relancez `make train`")
        if data.get("model_family") != model_family:
            raise JudgeFileError(f"juge {path} entraîné pour {data.get('model_family')!r}, pas pour {model_family!r}")
        if tuple(data.get("features", ())) != FEATURES or tuple(data.get("answer_inputs", ())) != ANSWER_INPUTS:
            raise JudgeFileError(f"juge {path} entraîné sur d'autres indices que ceux de ce code ; relancez `make train`")
        try:
            return cls(Network.of(data["ranker"], len(FEATURES)), Linear.of(data["first"], len(ANSWER_INPUTS)),
                       Linear.of(data["any_top"], len(ANSWER_INPUTS)), model_family, int(data.get("top_n", 20)),
                       str(path))
        except (KeyError, TypeError, ValueError) as exc:
            raise JudgeFileError(f"juge {path} incomplet ou malformé ({exc}) ; relancez `make train`") from None

    def order(self, rows: np.ndarray, policy: RankerPolicy = TRUSTED) -> tuple[np.ndarray, np.ndarray]:
        """(the candidates' order by the ranker's score, best first, ties in retrieval's order, retrieval's first
        kept unless beaten by the policy's lead; the scores)."""
        scores = self.ranker(rows) if len(rows) else np.zeros(0)
        return policy.order(scores), scores

    def answer_inputs(self, rows: np.ndarray, scores: np.ndarray) -> np.ndarray:
        """The answerability judge's inputs, from the candidates' rows and ranker scores in the ranker's order."""
        first = scores[0] if len(scores) else 0.0
        second = scores[1] if len(scores) > 1 else first
        third = scores[min(TOP, len(scores)) - 1] if len(scores) else 0.0
        head = rows[0] if len(rows) else np.zeros(len(FEATURES))
        return np.concatenate([[first, first - second, third], head])

    def judge(self, inputs: np.ndarray) -> Judgement:
        return Judgement(_sigmoid(float(self.first(inputs))), _sigmoid(float(self.any_top(inputs))))
