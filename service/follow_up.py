"""Follow-ups: "et à deux joueurs ?" after "combien de trésors par temple ?" asks about the same game and
the same topic. The client sends the previous turn (its question and the game its answer was about); an
elliptic question is then asked in the previous turn's game, retrieved with the previous question's words
added to its own.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from indexer.analysis import analyze
from service.phrases import folded

# A follow-up opens with a connector ("et si…", "mais…") or is too short to stand on its own.
_CONNECTOR = re.compile(r"^(et|mais|sinon|pareil|idem|meme|aussi|alors|ou bien|ou alors|dans ce cas|and|but|what if"
                        r"|what about|how about|same)(?!\w)")
MAX_ELLIPTIC_TERMS = 3


@dataclass(frozen=True)
class Turn:
    """The previous question, as the client asked it, and the game its answer was about (None: none)."""

    question: str
    game: str | None = None


def elliptic(question: str) -> bool:
    """The question leans on the previous one: it opens with a connector or has few terms of its own."""
    return bool(_CONNECTOR.match(folded(question))) or len(analyze(question)) <= MAX_ELLIPTIC_TERMS


def combined(previous: Turn, question: str) -> str:
    """What is retrieved for an elliptic follow-up: the previous question's words, then the new ones."""
    return f"{previous.question}\n{question}"
