"""A card question's outcome, decided by the card: its line for the field asked (question/card_question.py),
the card shown first among the passages, or a refusal when the card does not give that field."""

from __future__ import annotations

from indexer.game_card import field_line
from indexer.passages import Passage
from service.engine.findings import Hit


def card_answer(card: Passage | None, field: str, hits: list) -> tuple[str | None, list]:
    """(the card's line for the field, hits with the card first) for a card question; (None, hits) when the
    card does not give the field (or the game has no card)."""
    line = field_line(card.text, field) if card is not None else None
    if line is None:
        return None, hits
    rest = [h for h in hits if h.passage.id != card.id]
    shown = next((h for h in hits if h.passage.id == card.id), None)
    if shown is None:
        top = hits[0] if hits else None
        shown = Hit(card, top.score if top else 1.0, top.dense if top else 0.0, 0.0)
    return line, [shown, *rest][: len(hits) or 1]
