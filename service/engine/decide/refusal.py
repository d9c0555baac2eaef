"""Why not to answer: the reason given, decided from the question's signals (decide/signals.py) and the
calibrated thresholds.

Reasons, checked in this order:
- off_topic: not a board-game rules question. It uses a rules word in its everyday sense ("dé à coudre",
  decide/everyday.py), or it is closer to generic non-game questions than to generic rules questions
  (service/engine/data/reference_questions.json), or shares almost no word with the corpus.
- other_game: it names a well-known game or uses a word only other games use (decide/other_games.py,
  lowercase included: "au poker"), or a proper name the corpus does not know (a capitalised word, not at
  the start of a sentence, found nowhere in the corpus text, titles or aliases).
- not_in_rules: about a known game, but it asks what rulebooks do not say: the box as a product, advice,
  opinions, or a rules topic the game's text does not cover (decide/beyond_rules.py: "combien coûte la
  boîte ?", "qui commence ?" where no first player is named); or it is closer to generic "beyond the
  rules" questions than to rules questions, or its focus words appear in none of the passages found.
- weak_evidence: the best passage is not close enough (decide/abstention.py).
- ambiguous_game: no game named, and several games' rules answer about as well ("précisez le jeu").

Every threshold is measured on the eval's dev split (eval/tune.py) and kept in the calibration
(service/engine/calibration.py); nothing here knows a particular game.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from enum import StrEnum

from service.engine.decide.signals import Signals


class Reason(StrEnum):
    """Why an answer is refused; the value is what the API and the eval records carry."""

    OFF_TOPIC = "off_topic"
    OTHER_GAME = "other_game"
    NOT_IN_RULES = "not_in_rules"
    WEAK_EVIDENCE = "weak_evidence"
    AMBIGUOUS_GAME = "ambiguous_game"


# Refusals that know there is no answer in these rules: no passage is offered to pick from.
DEFINITIVE = frozenset({Reason.OFF_TOPIC, Reason.OTHER_GAME, Reason.NOT_IN_RULES, Reason.AMBIGUOUS_GAME})
# Refusals about something else than the corpus's games: a game guessed for the question is noise.
ELSEWHERE = frozenset({Reason.OFF_TOPIC, Reason.OTHER_GAME})


@dataclass(frozen=True)
class RefusalPolicy:
    """Thresholds of the refusal signals; the defaults refuse nothing on these signals."""

    off_topic_margin: float = math.inf  # off_topic when Signals.off_topic >= this
    min_coverage: float = 0.0  # off_topic when coverage < this
    names: bool = False  # other_game when the question has an unknown proper name
    beyond_rules_margin: float = math.inf  # not_in_rules when Signals.beyond_rules >= this
    min_focus: float = 0.0  # not_in_rules when focus < this
    # Data, not thresholds (service/engine/data/): on for every model, switchable to measure what they bring.
    other_games: bool = True  # other_game when the question names a well-known game the corpus lacks
    everyday_senses: bool = True  # off_topic when a rules word is used in its everyday sense
    beyond_cues: bool = True  # not_in_rules when the question asks what the game's rules cannot answer

    def reason(self, signals: Signals, game_known: bool) -> Reason | None:
        if self.everyday_senses and signals.everyday:
            return Reason.OFF_TOPIC
        if self.other_games and signals.other_games:
            return Reason.OTHER_GAME
        # Near to off-topic questions, but in the asked rulebook's own words: about the game.
        if (signals.off_topic >= self.off_topic_margin and not signals.in_game_words) \
                or signals.coverage < self.min_coverage:
            return Reason.OFF_TOPIC
        if self.names and signals.unknown_names:
            # A name the corpus does not know, in a question that reads like a non-game one, is a place
            # or a person ("à Lyon") rather than a game.
            return Reason.OFF_TOPIC if signals.off_topic > 0 else Reason.OTHER_GAME
        if game_known and self.beyond_cues and signals.beyond:
            return Reason.NOT_IN_RULES
        if game_known and (signals.beyond_rules >= self.beyond_rules_margin or signals.focus < self.min_focus):
            return Reason.NOT_IN_RULES
        return None
