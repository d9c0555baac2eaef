"""Each default of the answering path turned off in turn (and each candidate that is not one turned on), so
that the eval shows what it brings and a paired test says whether it helps (`rulesqa eval --ablation`,
docs/EVAL.md)."""

from __future__ import annotations

from service.engine.answerer import Answerer

# label -> (what is turned off, how)
TOGGLES = {
    "avec lexique au classement": {"players_words": True},
    "sans fiche du jeu": {"card_questions": False},
    "sans suivi": {"follow_up": False},
    "sans routage lexical": {"lexical_routing": False},
}
# The learned judge (service/engine/judge/learned.py), when the model family has one: off by default (its rules
# and the regression gate, docs/EVAL.md), each part turned on.
JUDGE = {
    "avec classeur appris": {"ranker": True},
    "avec juge de réponse": {"answerability": True},
    "avec juge appris": {"ranker": True, "answerability": True},
}
REFUSALS = {
    "sans autres jeux": {"other_games": False},
    "sans sens courants": {"everyday_senses": False},
    "sans hors-règles": {"beyond_cues": False},
}


def variants(answerer: Answerer) -> dict[str, Answerer]:
    """The answerer with one default changed, by label."""
    from dataclasses import replace

    out = {label: answerer.with_toggles(**off) for label, off in TOGGLES.items()}
    if answerer.learned is not None:
        out.update({label: answerer.with_toggles(**off) for label, off in JUDGE.items()})
    out.update({label: answerer.reconfigured(refusal=replace(answerer.calibration.refusal, **off))
                for label, off in REFUSALS.items()})
    return out
