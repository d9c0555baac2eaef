"""The dev questions read and retrieved once (`Replayable`), then replayed through any reconfigured answerer: the
later stages (routing, judge, decision, composition) run from the retrieved value through the code that serves
players. The calibration (eval/tune.py) scores its candidate settings so."""

from dataclasses import dataclass

from eval import metrics as m
from eval.errors import EvalError
from eval.gold import GoldQuestion
from eval.record import QuestionRecord
from eval.run import make_record
from service.engine.answerer import Answerer
from service.engine.decide.decision import Decision
from service.engine.findings import Retrieved
from service.engine.question import Query
from service.engine.question.reading import Reading

K = 10
MODE = "hybrid"
QUALITY = ("hit@1", "mrr@10")


@dataclass(frozen=True)
class Replayable:
    """A dev question with its query, what the engine read of it and what it retrieved for it, once: the later
    stages replay from there."""

    gold: GoldQuestion
    query: Query
    reading: Reading
    retrieved: Retrieved


class Remembered:
    """An embedder that encodes each question once: the fusions tried retrieve the same questions again."""

    def __init__(self, embedder):
        self._embedder = embedder
        self._vectors: dict[str, object] = {}

    def __getattr__(self, name):
        return getattr(self._embedder, name)

    def encode_queries(self, texts):
        import numpy as np

        missing = [t for t in dict.fromkeys(texts) if t not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self._embedder.encode_queries(missing)))
        return np.stack([self._vectors[t] for t in texts])


def check_dev_only(questions: list[GoldQuestion]) -> None:
    """Tuning on anything but dev would make the test figures meaningless."""
    others = sorted({q.split or "?" for q in questions} - {"dev"})
    if others:
        raise EvalError("le calibrage ne se fait que sur le split dev (le split test sert seulement à mesurer ; "
                        f"reçu : {', '.join(others)})")


def collect(answerer: Answerer, questions: list[GoldQuestion]) -> list[Replayable]:
    """Each question read and retrieved with the answerer's fusion."""
    out = []
    for q in questions:
        query = Query(q.question, q.game, K, MODE)
        reading = answerer.read(query)
        out.append(Replayable(q, query, reading, answerer.retrieve(reading)))
    return out


def decided(answerer: Answerer, a: Replayable) -> Decision:
    """The decision on a question retrieved before (with the answerer's fusion), under the answerer's settings."""
    return answerer.decide(a.reading, answerer.find(a.reading, a.retrieved))


def records(answerer: Answerer, replayable: list[Replayable]) -> list[QuestionRecord]:
    return [make_record(a.gold, MODE, answerer.answer(a.query, a.retrieved), 0.0) for a in replayable]


def ranking_quality(answerer: Answerer, replayable: list[Replayable]) -> dict:
    """hit@1 and MRR@10 over the answerable questions, routing included."""
    return m.evaluate(records(answerer, replayable), QUALITY)
