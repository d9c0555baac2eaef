"""Request and response bodies of the HTTP API (pydantic), with French examples for /docs.

The answer itself is service.engine.answer.Answer (a dataclass FastAPI serialises); only what is particular to
HTTP is declared here. Every bound comes from service.engine.limits.
"""

from typing import Annotated, Literal

from pydantic import BaseModel, BeforeValidator, ConfigDict, Field

from service.engine import limits
from service.questions_log.store import MAX_COMMENT_CHARS


def _whole_number(value):
    """JSON Schema's "integer" includes 5.0; strict validation then still refuses "5", true and 5.5."""
    return int(value) if isinstance(value, float) and value.is_integer() else value


class PreviousTurn(BaseModel):
    """The previous turn of the conversation, as the client asked it: a follow-up ("et à deux ?") keeps its
    game and its topic."""

    model_config = ConfigDict(extra="forbid")

    question: str = Field(..., description="La question précédente, telle que posée.", strict=True,
                          max_length=limits.MAX_QUESTION_CHARS, pattern=r"\S")
    game: str | None = Field(None, description="Le jeu de la réponse précédente (`game.id`), ou null.",
                             pattern=limits.GAME_ID_PATTERN, max_length=limits.GAME_ID_MAX_CHARS)


class AskRequest(BaseModel):
    # extra="forbid": a misspelt field ("questoin") is reported instead of silently ignored.
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={
            "examples": [
                {"question": "Les pépites d'or rapportent combien à la fin ?", "game": "karuba", "k": 5},
                {"question": "Dans Can't Stop, peut-on relancer autant qu'on veut ?"},
                {"question": "et à deux joueurs ?", "previous": {
                    "question": "Combien de trésors de temple utilise-t-on ?", "game": "karuba"}},
            ]
        },
    )

    # A question is answered once trimmed: "\S" (somewhere a character that is not a space) is what a blank
    # one lacks, and the bound counts characters as the answerer does (service/engine/answerer.py validate).
    question: str = Field(..., description=f"La question du joueur (1 à {limits.MAX_QUESTION_CHARS} caractères, "
                          "pas seulement des espaces).", strict=True, max_length=limits.MAX_QUESTION_CHARS,
                          pattern=r"\S")
    game: str | None = Field(None, description="Id du jeu ; absent ou null : le jeu est détecté.",
                             pattern=limits.GAME_ID_PATTERN, max_length=limits.GAME_ID_MAX_CHARS)
    k: Annotated[int, BeforeValidator(_whole_number)] = Field(
        limits.DEFAULT_K, ge=limits.MIN_K, le=limits.MAX_K, strict=True, description="Nombre de passages renvoyés.")
    mode: Literal[limits.MODES] = Field(  # the engine's own modes (one definition), declared for OpenAPI
        limits.DEFAULT_MODE, description="Classement : hybride (défaut), dense (e5) ou lexical (BM25) seul ; "
                                         "les modes de GET /api/config.")
    client: Literal["page", "widget", "api"] = Field(
        "api", description="Qui pose la question (journal des questions) : la page de table, le widget, ou un "
                           "programme (défaut).")
    previous: PreviousTurn | None = Field(
        None, description="Le tour précédent de la conversation, pour une relance (« et à deux joueurs ? ») : "
                          "une question elliptique garde son jeu et son sujet.")


class FeedbackRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"ask_id": "3f9c2a71d04b8e65a1c2d3e4", "helpful": False,
                                         "comment": "La page citée ne parle pas des pépites."}]},
    )

    ask_id: str = Field(..., description="L'`ask_id` de la réponse jugée.", strict=True, pattern=r"^[0-9a-f]{8,32}$")
    helpful: bool = Field(..., description="La réponse a-t-elle aidé ?", strict=True)
    comment: str | None = Field(None, max_length=MAX_COMMENT_CHARS, strict=True,
                                description=f"Facultatif, {MAX_COMMENT_CHARS} caractères au plus.")


class ChoiceRequest(BaseModel):
    model_config = ConfigDict(
        extra="forbid",
        json_schema_extra={"examples": [{"ask_id": "3f9c2a71d04b8e65a1c2d3e4", "passage_id": "karuba-92587ffbc65d"}]},
    )

    ask_id: str = Field(..., description="L'`ask_id` de la réponse.", strict=True, pattern=r"^[0-9a-f]{8,32}$")
    passage_id: str = Field(..., description="Le passage choisi parmi les `choices` de la réponse.", strict=True,
                            pattern=r"^[a-z0-9][a-z0-9-]{0,99}$")


KARUBA = {"id": "karuba", "title": "Karuba", "aliases": ["Karuba l'île au trésor"], "author": "Rüdiger Dorn",
            "publisher": "HABA", "year": 2015, "players": "2 à 4", "duration": "30 à 40 min", "age": "8 ans et +",
            "passages": 19, "pdf": False}


class Game(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [KARUBA]})

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
    pdf: bool = Field(False, description="Livret PDF disponible : GET /api/games/{id}/pages/{page} en donne les pages.")


class GamesResponse(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{"games": [KARUBA], "total": 1, "offset": 0,
                                                                "limit": 20}]})

    games: list[Game]
    total: int = Field(..., description="Jeux correspondant à la recherche, toutes pages confondues.")
    offset: int
    limit: int


class Health(BaseModel):
    model_config = ConfigDict(json_schema_extra={"examples": [{
        "status": "ok", "model": "multilingual-e5-small", "model_fingerprint": "9d1c…", "corpus_hash": "4be2…",
        "built_at": "2026-12-02T08:00:00+00:00", "games": 4, "passages": 81,
        "passages_per_game": {"cubirds": 23, "cubitos": 21, "karuba": 19, "sans-arret": 18},
        "calibration": "calibrated", "log": "ok"}]})

    status: str = Field(..., examples=["ok"])
    model: str
    model_fingerprint: str
    corpus_hash: str
    built_at: str
    games: int
    passages: int
    passages_per_game: dict[str, int]
    calibration: str = Field(..., description="« calibrated » : réglages mesurés pour ce modèle ; « default » : "
                                              "réglages prudents par défaut (aucune mesure trouvée).",
                             examples=["calibrated"])
    log: Literal["ok", "degraded", "off"] = Field(
        "off", description="Journal des questions : « ok », « degraded » (base indisponible : les réponses "
                           "continuent, les questions ne sont plus enregistrées), « off » (désactivé).")


class KLimits(BaseModel):
    min: int
    max: int
    default: int


class NoticeLink(BaseModel):
    label: str = Field(..., description="Le texte du lien, en français.", examples=["Usages interdits"])
    url: str = Field(..., description="Où il mène.", examples=["https://ai.google.dev/gemma/prohibited_use_policy"])


class ModelNotice(BaseModel):
    """The notice the served model's terms ask a service to show (indexer/models/notice.py)."""

    text: str = Field(..., description="La mention, en texte brut (français, puis la phrase que les conditions "
                                       "du modèle demandent telle quelle).")
    links: list[NoticeLink] = Field(..., description="Les liens à montrer après la mention : les conditions "
                                                     "du modèle, ses usages interdits.")


GEMMA_NOTICE_EXAMPLE = {
    "text": "Réponses trouvées avec EmbeddingGemma (Google). Gemma is provided under and subject to the Gemma "
            "Terms of Use found at ai.google.dev/gemma/terms.",
    "links": [{"label": "Conditions d'utilisation de Gemma", "url": "https://ai.google.dev/gemma/terms"},
              {"label": "Usages interdits", "url": "https://ai.google.dev/gemma/prohibited_use_policy"}]}


class ClientConfig(BaseModel):
    """What the table page and the widget need to check a question before sending it, and the notice they
    show under the answers."""

    model_config = ConfigDict(json_schema_extra={"examples": [{
        "max_question_chars": 1000, "k": {"min": 1, "max": 20, "default": 5},
        "game_id_pattern": "^[a-z0-9]+(?:-[a-z0-9]+)*$", "modes": ["dense", "lexical", "hybrid"],
        "default_mode": "hybrid", "model_notice": GEMMA_NOTICE_EXAMPLE, "ready": True}]})

    max_question_chars: int
    k: KLimits
    game_id_pattern: str
    modes: list[str]
    default_mode: str
    model_notice: ModelNotice | None = Field(
        None, description="La mention que les conditions du modèle servi demandent d'afficher (EmbeddingGemma : "
                          "les Gemma Terms of Use), à montrer sous les réponses avec ses liens ; null quand le "
                          "modèle n'en demande pas (e5-small, MIT) ou tant que le service démarre (`ready` faux).")
    ready: bool = Field(
        True, description="Faux tant que le service démarre (modèle et index en chargement) : `model_notice` n'est "
                          "pas encore connue, redemander GET /api/config une fois une réponse obtenue.")


# The machine-readable half of every error: stable, English, one per cause (service/web/errors.py).
ErrorCode = Literal[
    "invalid_json",  # 400: the body is not JSON (or not UTF-8)
    "unauthorized", "forbidden",  # 401, 403: admin routes, outside the public document
    "unknown_game", "unknown_page", "unknown_answer", "log_disabled", "not_found",  # 404
    "method_not_allowed",  # 405
    "feedback_exists",  # 409
    "not_offered",  # 409: a choice that the answer did not offer
    "body_too_large",  # 413
    "unsupported_media_type",  # 415
    "invalid_request",  # 422: a field out of its bounds, or a question that cannot be asked
    "internal_error",  # 500: a bug, never bad input
    "starting", "index_unavailable", "log_unavailable",  # 503
]


class ErrorBody(BaseModel):
    """The body of every 4xx and 5xx answer: a French sentence for a person, a stable code for a program."""

    model_config = ConfigDict(extra="forbid", json_schema_extra={"examples": [
        {"detail": "la question est vide", "code": "invalid_request"},
        {"detail": "jeu inconnu : 'monopoly' ; jeux connus : cubirds, cubitos, karuba, sans-arret",
         "code": "unknown_game"},
    ]})

    detail: str = Field(..., description="Ce qui ne va pas et comment le corriger, en français, pour une personne.")
    code: ErrorCode = Field(..., description="La cause, pour un programme : stable d'une version à l'autre.")
