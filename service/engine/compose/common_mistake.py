"""Common mistakes beside an answer: the passage of the game's "common mistakes" section nearest to the
question (GameRetrieved.mistakes), not already quoted, is shown under the answer ("Erreur fréquente") when its cosine reaches
the calibrated minimum, measured on the dev split (eval/tune.py)."""

from __future__ import annotations

import math
from dataclasses import dataclass

from service.engine.answer import CommonMistake
from service.engine.compose.quote import body, citation


@dataclass(frozen=True)
class CommonMistakePolicy:
    min_cosine: float = math.inf  # inf: never warn (not measured)


def nearest(mistakes, shown: set[str]):
    """(passage, cosine) of the nearest of the game's mistakes (nearest first) that is not among `shown`."""
    return next(((p, cosine) for p, cosine in mistakes if p.id not in shown), None)


def common_mistake(nearest, policy: CommonMistakePolicy, game_title: str) -> CommonMistake | None:
    """The mistake to show, from `nearest`'s (passage, cosine), or None."""
    if nearest is None or nearest[1] < policy.min_cosine:
        return None
    passage = nearest[0]
    text = f"{passage.title} : {body(passage)}" if passage.title else passage.text
    return CommonMistake(text, citation(passage, game_title), passage.id)
