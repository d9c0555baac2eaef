"""Request and response bodies of the HTTP API (pydantic), with French examples for /docs."""

from pydantic import BaseModel, ConfigDict, Field

GAME_ID_PATTERN = r"^[a-z0-9]+(?:-[a-z0-9]+)*$"


class AskRequest(BaseModel):
    # extra="forbid": a misspelt field ("questoin") is reported instead of silently ignored.
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"question": "Les pépites d'or rapportent combien à la fin ?", "game": "karuba", "k": 5},
                {"question": "Dans Can't Stop, peut-on relancer autant qu'on veut ?"},
            ]
        },
    )

    question: str = Field(..., description="La question du joueur (1 à 1 000 caractères).", strict=True)
    game: str | None = Field(
        None, description="Id du jeu ; absent ou null : le jeu est détecté.", pattern=GAME_ID_PATTERN, max_length=64
    )
    k: int = Field(5, ge=1, le=20, strict=True, description="Nombre de passages renvoyés.")


class GameRef(BaseModel):
    id: str
    title: str


class AnswerText(BaseModel):
    text: str = Field(..., description="La ou les phrases du livret qui répondent.")
    citation: str = Field(..., examples=["Karuba, livret p. 6"])
    passage_id: str


class PassageOut(BaseModel):
    id: str
    game: str
    section: str | None
    pages: list[int] = Field(..., description="Pages du livret ; vide quand la source n'en donne pas.")
    text: str
    score: float


class AskResponse(BaseModel):
    model_config = ConfigDict(
        json_schema_extra={
            "examples": [
                {
                    "question": "Les pépites d'or rapportent combien à la fin ?",
                    "game": {"id": "karuba", "title": "Karuba"},
                    "game_detected": False,
                    "found": True,
                    "answer": {
                        "text": "Additionne tes trésors de temple, 2 points par pépite d'or et 1 par cristal ramassés.",
                        "citation": "Karuba, livret p. 6",
                        "passage_id": "karuba-3438c0d8c7dd",
                    },
                    "message": "Réponse trouvée : Karuba, livret p. 6.",
                    "passages": [
                        {
                            "id": "karuba-3438c0d8c7dd",
                            "game": "karuba",
                            "section": "Comment on gagne",
                            "pages": [6],
                            "text": "Aux points\nAdditionne tes trésors de temple, 2 points par pépite d'or et 1 par "
                            "cristal ramassés. Le plus haut total gagne.",
                            "score": 0.97,
                        }
                    ],
                }
            ]
        }
    )

    question: str
    game: GameRef | None
    game_detected: bool = Field(..., description="Vrai si le jeu a été détecté plutôt que donné.")
    found: bool = Field(..., description="Faux : la réponse n'est pas dans les règles (passages proches listés).")
    answer: AnswerText | None
    message: str = Field(..., description="Une phrase pour le joueur, en français.")
    passages: list[PassageOut]


class Game(BaseModel):
    id: str
    title: str
    aliases: list[str]
    author: str | None
    publisher: str | None
    year: int | None
    players: str | None
    duration: str | None
    age: str | None
    passages: int = Field(..., description="Nombre de passages indexés.")


class GamesResponse(BaseModel):
    games: list[Game]


class Health(BaseModel):
    status: str = Field(..., examples=["ok"])
    model: str
    model_fingerprint: str
    corpus_hash: str
    built_at: str
    games: int
    passages: int
    passages_per_game: dict[str, int]


class ErrorBody(BaseModel):
    detail: str = Field(..., examples=["la question est vide"])
