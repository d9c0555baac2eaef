"""The game card: the header's facts about the box (players, duration, age, author, ...) as one citable
passage, "Karuba, fiche du jeu". A player asks "c'est à partir de quel âge ?" as often as a rule; the
answer is the header's own value, quoted, and a game whose header lacks the field has no answer."""

from __future__ import annotations

from indexer.corpus import Game

# The header keys that make the card, in the order it lists them, with the label a player reads.
FIELDS: dict[str, str] = {
    "players": "Joueurs",
    "duration": "Durée",
    "age": "Âge",
    "author": "Auteur",
    "publisher": "Éditeur",
    "year": "Année",
    "expansions": "Extensions",
}
SECTION = "Fiche du jeu"
KIND = "card"
SEPARATOR = " : "


def card_lines(game: Game) -> list[tuple[str, str]]:
    """(field, line) for each card field the header gives, e.g. ("age", "Âge : 8 ans et +")."""
    return [(key, f"{label}{SEPARATOR}{getattr(game, key)}") for key, label in FIELDS.items()
            if getattr(game, key) is not None]


def card_text(game: Game) -> str | None:
    """The card passage's text, one field a line; None when the header gives none of them."""
    lines = card_lines(game)
    return "\n".join(line for _, line in lines) or None


def field_line(text: str, field: str) -> str | None:
    """The line of a card passage's text that gives `field`, or None when the card lacks it."""
    prefix = FIELDS[field] + SEPARATOR
    return next((line for line in text.split("\n") if line.startswith(prefix)), None)
