"""How far the learned ranker is trusted against retrieval's own first passage on the served index.

The ranker was trained on the invented training games; on rulebooks written otherwise (the corpus games) it
sometimes moves a passage on the same topic above the right first one. Retrieval's first therefore keeps its
place unless another candidate's ranker score beats it by `min_lead`; the others follow in the ranker's order.
The lead is measured on the dev split with the rest of the calibration (eval/tune.py: calibrate_ranker); 0 trusts
the ranker fully (how it was trained: TRUSTED), and unmeasured it never moves retrieval's first.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class RankerPolicy:
    min_lead: float = math.inf  # in the ranker's score units

    def order(self, scores: np.ndarray) -> np.ndarray:
        """The candidates' order, best first (ties in retrieval's order), retrieval's first given `min_lead`."""
        if not len(scores):
            return np.zeros(0, dtype=np.int64)
        kept = np.asarray(scores, dtype=np.float64).copy()
        kept[0] += self.min_lead
        return np.lexsort((np.arange(len(kept)), -kept))


TRUSTED = RankerPolicy(0.0)
