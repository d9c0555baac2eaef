"""What the learned judge's probabilities decide (judge/learned.py): a refusal when none of the first passages
is likely to answer, "sure" when the first one very likely does. Both thresholds are measured on the dev split
(eval/tune.py); unmeasured, they decide nothing and the other rules (abstention.py, confidence.py) stand."""

from __future__ import annotations

import math
from dataclasses import dataclass


@dataclass(frozen=True)
class AnswerabilityPolicy:
    refuse_below: float = -math.inf  # not_in_rules when P(one of the first three answers) is below this
    sure_above: float = math.inf  # sure when P(the first answers) reaches this

    def refuses(self, judgement) -> bool:
        return judgement is not None and judgement.any_top < self.refuse_below

    def sure(self, judgement) -> bool | None:
        """True or False when measured and judged; None: the confidence policy decides."""
        if judgement is None or not math.isfinite(self.sure_above):
            return None
        return judgement.first >= self.sure_above
