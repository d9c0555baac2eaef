"""The answer object, declared once: `Answerer.ask` returns it, the HTTP API serialises it (FastAPI reads
these dataclasses as its response model) and `rulesqa ask --json` prints `to_dict()` of the same value."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

from pydantic import ConfigDict


EXAMPLE = {
    "question": "Les pépites d'or rapportent combien à la fin ?",
    "game": {"id": "karuba", "title": "Karuba"},
    "game_detected": False,
    "found": True,
    "answer": {
        "text": "Additionne tes trésors de temple, 2 points par pépite d'or et 1 par cristal ramassés.",
        "citation": "Karuba, livret p. 6",
        "passage_id": "karuba-3438c0d8c7dd",
        "passage_ids": ["karuba-3438c0d8c7dd"],
    },
    "message": "Réponse trouvée : Karuba, livret p. 6.",
    "passages": [
        {
            "id": "karuba-3438c0d8c7dd",
            "game": "karuba",
            "section": "Comment on gagne",
            "pages": [6],
            "text": "Aux points\nAdditionne tes trésors de temple, 2 points par pépite d'or et 1 par cristal ramassés. "
            "Le plus haut total gagne.",
            "score": 0.97,
            "citation": "Karuba, livret p. 6",
            "short_citation": "p. 6",
        }
    ],
    "refusal": None,
    "warning": None,
    "sure": True,
    "choices": [],
    "ask_id": "3f9c2a71d04b8e65a1c2d3e4",
}


@dataclass(frozen=True)
class GameRef:
    id: str
    title: str


@dataclass(frozen=True)
class Quote:
    """The sentence(s) of the booklet that answer, with where to read them."""

    text: str
    citation: str  # "Karuba, livret p. 6" or "Cubirds, section Fin de partie"
    passage_id: str
    # The answer set: the passages that together hold the answer, the quoted one first ("Voir aussi").
    passage_ids: list[str]


@dataclass(frozen=True)
class Choice:
    """A candidate passage offered as "Tu parles de… ?" when the best one is not sure: one tap on it shows
    its answer (`text`, `citation`), and POST /api/choice records which one the player meant."""

    passage_id: str
    label: str  # the button: the passage's title (its question or bullet title) or its first words
    text: str  # the answer this passage gives, extracted as the best one's is
    citation: str
    short_citation: str
    best: bool  # the best guess (the answer shown), offered first


# ambiguous_game: no game named, and several games' rules answer about as well ("précisez le jeu").
REFUSAL_REASONS = ("off_topic", "other_game", "not_in_rules", "weak_evidence", "ambiguous_game")


@dataclass(frozen=True)
class Refusal:
    """Why there is no answer: one of REFUSAL_REASONS, and a French sentence for the player."""

    reason: str
    message: str
    # ambiguous_game: the likeliest games, best first, for the player to pick one.
    games: list[GameRef] = field(default_factory=list)


@dataclass(frozen=True)
class CommonMistake:
    """A "common mistakes" passage of the game that bears on the question, shown beside the answer."""

    text: str
    citation: str
    passage_id: str


@dataclass(frozen=True)
class CitedPassage:
    id: str
    game: str
    section: str | None
    pages: list[int]  # booklet pages; empty when the source has none
    text: str
    score: float
    citation: str  # the full citation, as in Quote.citation
    short_citation: str  # what a chip shows: "p. 6", or the section, or ""


@dataclass(frozen=True)
class Answer:
    question: str
    game: GameRef | None
    game_detected: bool  # the game was detected rather than given
    found: bool  # false: not in the rules (the nearest passages are still listed)
    answer: Quote | None
    message: str  # one sentence for the player, in French
    passages: list[CitedPassage]
    refusal: Refusal | None  # set exactly when found is false
    # The API field of the common mistake keeps its first name ("warning"): the page, the widget and clients read it.
    warning: CommonMistake | None
    # The first passage is right with the confidence the calibration measured (service/engine/compose/choices.py); when
    # false, `choices` holds the best few passages to pick from ("Tu parles de… ?").
    sure: bool = False
    choices: list[Choice] = field(default_factory=list)
    # The id of this answer in the questions log, for POST /api/feedback; null when nothing is logged.
    ask_id: str | None = None

    # Read by pydantic when FastAPI derives the response schema from this dataclass (the /docs example).
    __pydantic_config__ = ConfigDict(json_schema_extra={"examples": [EXAMPLE]})

    def to_dict(self) -> dict:
        return asdict(self)
