"""The common-mistake passages of each game, found once per loaded index: what a retriever searches when the
answer shows an "Erreur fréquente" beside it (service/engine/compose/mistakes.py).

A corpus file marks such a section with a heading like "Les erreurs fréquentes" (corpus/README.md).
"""

from __future__ import annotations

import re

import numpy as np

SECTION = re.compile(r"\berreurs?\s+fr[ée]quentes?\b|\bcommon\s+mistakes?\b", re.IGNORECASE)


def is_mistakes_section(section: str | None) -> bool:
    return bool(section and SECTION.search(section))


class Mistakes:
    """The rows of every game's common-mistake passages, from the rows' sections (store.Rows), without reading
    the passages."""

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
