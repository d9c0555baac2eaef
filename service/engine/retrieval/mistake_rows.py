"""The common-mistake passages of each game, found once per loaded index: what a retriever searches when the
answer shows an "Erreur fréquente" beside it (service/engine/compose/common_mistake.py).

A corpus file marks such a section with a heading like "Les erreurs fréquentes" (corpus/README.md).
"""

from __future__ import annotations

import re

import numpy as np

SECTION = re.compile(r"\berreurs?\s+fr[ée]quentes?\b|\bcommon\s+mistakes?\b", re.IGNORECASE)


def is_mistakes_section(section: str | None) -> bool:
    return bool(section and SECTION.search(section))


class MistakeRows:
    """The rows of every game's common-mistake passages, from the rows' sections (store.Rows), without reading
    the passages."""

    def __init__(self, passages, rows, game_ids: list[str]):
        self._passages = passages
        self._rows: dict[str, list[int]] = {}
        marked = [i for i, section in enumerate(rows.sections) if is_mistakes_section(section)]
        for i in np.flatnonzero(np.isin(rows.section, marked)).tolist():
            self._rows.setdefault(game_ids[rows.game[i]], []).append(i)

    def ranked(self, vectors: np.ndarray, question: np.ndarray, game: str) -> tuple[tuple[object, float], ...]:
        """(passage, cosine) of the game's mistake passages, nearest to the question first (ties by row)."""
        rows = self._rows.get(game, ())
        if not rows:
            return ()
        cosines = vectors[rows] @ question
        return tuple((self._passages[rows[i]], float(cosines[i])) for i in np.argsort(-cosines, kind="stable"))
