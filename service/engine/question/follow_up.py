"""Follow-ups: "et à deux joueurs ?" after "combien de trésors par temple ?" asks about the same game and
the same topic. The client sends the previous turn (its question and the game its answer was about); an
elliptic question is then asked in the previous turn's game, retrieved with the previous question's words
added to its own.
"""

from __future__ import annotations

import re
from functools import lru_cache

from indexer.analysis import analyze
from service.engine.question import Question, Turn

# A follow-up opens with a connector ("et si…", "mais…") or is too short to stand on its own.
_CONNECTOR = re.compile(r"^(et|mais|sinon|pareil|idem|meme|aussi|alors|ou bien|ou alors|dans ce cas|and|but|what if"
                        r"|what about|how about|same)(?!\w)")
MAX_ELLIPTIC_TERMS = 3


def elliptic(question: Question, known: frozenset[str] | None = None) -> bool:
    """The question leans on the previous one: it opens with a connector, or it has few terms of its own and
    (when `known`, the folded stems of the game's rules, is given) all of them are words of the rules. A short
    question with a word the rules never use opens a new topic ("Peut-on jouer avec des licornes volantes ?"):
    asked with the previous question's words it would get the previous answer; asked on its own it can be
    refused. A connector ("et…", "mais…") is the player's own word that it follows on: always kept."""
    if _CONNECTOR.match(question.folded):
        return True
    return len(question.terms) <= MAX_ELLIPTIC_TERMS and (known is None or question.folded_terms <= known)


@lru_cache(maxsize=64)
def known_terms(rules_text: str) -> frozenset[str]:
    """The folded stems of a game's folded rules text (Retriever.game_text), what elliptic() checks against."""
    return frozenset(analyze(rules_text))


def combined(previous: Turn, question: str) -> str:
    """What is retrieved for an elliptic follow-up: the previous question's words, then the new ones."""
    return f"{previous.question}\n{question}"
