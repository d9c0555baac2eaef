"""Common mistakes beside an answer: a passage of the game's "common mistakes" section that bears on
the question is shown under the answer ("Erreur fréquente").

A corpus file marks such a section with a heading like "Les erreurs fréquentes" (corpus/README.md).
The minimum cosine between the question and the mistake is measured on the dev split (eval/tune.py).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np

SECTION = re.compile(r"\berreurs?\s+fr[ée]quentes?\b|\bcommon\s+mistakes?\b", re.IGNORECASE)


@dataclass(frozen=True)
class WarningPolicy:
    min_cosine: float = math.inf  # inf: never warn (not measured)


def is_mistakes_section(section: str | None) -> bool:
    return bool(section and SECTION.search(section))


class Mistakes:
    """The rows of every game's common-mistake passages, found once per loaded index from the rows'
    sections (store.Rows), without reading the passages."""

    def __init__(self, passages, rows, game_ids: list[str]):
        self._passages = passages
        self._rows: dict[str, list[int]] = {}
        marked = [i for i, section in enumerate(rows.sections) if is_mistakes_section(section)]
        for i in np.flatnonzero(np.isin(rows.section, marked)).tolist():
            self._rows.setdefault(game_ids[rows.game[i]], []).append(i)

    def best(self, vectors: np.ndarray, question: np.ndarray, game: str, exclude: set[str]):
        """(passage, cosine) of the game's mistake passage closest to the question, leaving out the
        passages whose id is in `exclude` (those already shown as the answer); None if there is none."""
        rows = [r for r in self._rows.get(game, ()) if self._passages[r].id not in exclude]
        if not rows:
            return None
        cosines = vectors[rows] @ question
        i = int(np.argmax(cosines))
        return self._passages[rows[i]], float(cosines[i])
