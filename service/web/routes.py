"""HTTP routes: thin wrappers over Answerer; the answering runs in worker threads, off the event loop."""

import json
import time
from functools import partial

import anyio
from fastapi import APIRouter, Depends, Path, Query, Request, Response

from indexer.models.description import Description
from indexer.models.notice import ModelNotice, model_notice
from service.engine import limits
from service.engine.answerer import Answerer
from service.engine.question import validate
from service.engine.question import Turn
from service.engine.catalogue import MAX_QUERY_CHARS
from service.web.deps import answerer_if_ready, get_answerer, require_json
from service.web.errors import BODY_ERRORS, error_responses
from service.web.log_routes import log_status
from service.web.schemas import AskRequest, ClientConfig, Game, GamesResponse, Health
from service.questions_log.recorder import record
from service.engine.answer import Answer

router = APIRouter()

UNKNOWN_GAME = (404, "Jeu inconnu (`unknown_game`) : le message cite les jeux connus")
STARTING = 503


def links(**targets: tuple[str, dict]) -> dict:
    """OpenAPI links of a 200 answer: which of its values feed which operation (a client's next step)."""
    return {200: {"links": {name: {"operationId": op, **rest} for name, (op, rest) in targets.items()}}}


# The answer's ask_id is what POST /api/feedback judges; its game and first passage lead to their pages.
ASK_LINKS = links(
    feedback=("giveFeedback", {"requestBody": {"ask_id": "$response.body#/ask_id"},
                               "description": "Dire si cette réponse a aidé."}),
    choice=("chooseAnswer", {"requestBody": {"ask_id": "$response.body#/ask_id",
                                             "passage_id": "$response.body#/choices/0/passage_id"},
                             "description": "Dire quel passage proposé répond (« Tu parles de… ? »)."}),
    game=("getGame", {"parameters": {"path.game_id": "$response.body#/game/id"},
                      "description": "La fiche du jeu de la réponse."}),
    page=("getPage", {"parameters": {"path.game_id": "$response.body#/passages/0/game",
                                     "path.label": "$response.body#/passages/0/pages/0",
                                     "query.passage": "$response.body#/passages/0/id"},
                      "description": "La page du livret où se lit le premier passage."}),
)
GAMES_LINKS = links(
    game=("getGame", {"parameters": {"path.game_id": "$response.body#/games/0/id"},
                      "description": "La fiche du premier jeu de la liste."}),
    ask=("ask", {"requestBody": {"game": "$response.body#/games/0/id"},
                 "description": "Une question sur le premier jeu de la liste."}),
)
GAME_LINKS = links(
    page=("getPage", {"parameters": {"path.game_id": "$response.body#/id"},
                      "description": "Une page du livret de ce jeu (quand `pdf` est vrai)."}),
    ask=("ask", {"requestBody": {"game": "$response.body#/id"}, "description": "Une question sur ce jeu."}),
)


@router.post("/api/ask", response_model=Answer, operation_id="ask", tags=["questions"],
             responses={**error_responses(*BODY_ERRORS, UNKNOWN_GAME, STARTING), **ASK_LINKS},
             dependencies=[Depends(require_json)], summary="Poser une question de règles")
async def ask(body: AskRequest, request: Request, answerer: Answerer = Depends(get_answerer)) -> Response:
    """Renvoie la réponse extraite du livret avec sa citation, ou `found: false` et les passages proches."""
    previous = Turn(body.previous.question, body.previous.game) if body.previous else None
    query = validate(body.question, body.game, body.k, body.mode, previous)
    writer = request.app.state.log_writer
    body_bytes = await anyio.to_thread.run_sync(partial(_answer_json, answerer, query, writer, body.game, body.client),
                                                limiter=request.app.state.limiter)
    return Response(body_bytes, media_type="application/json")


def _answer_json(answerer: Answerer, query, writer, game: str | None, client: str) -> bytes:
    """The answer, logged, as the JSON body, in the worker thread. Serialised here once: returned as an Answer,
    FastAPI would first validate it against the schema it declares (kept for /docs) and then serialise it, on
    the event loop; the bytes are the same (`Answer.to_dict()`, as starlette's JSONResponse writes it)."""
    started = time.perf_counter()
    answer = answerer.answer(query)
    latency_ms = (time.perf_counter() - started) * 1000
    answer = record(writer, answer, game, latency_ms, client)
    return json.dumps(answer.to_dict(), ensure_ascii=False, allow_nan=False, separators=(",", ":")).encode("utf-8")


@router.get("/api/config", response_model=ClientConfig, operation_id="getConfig", tags=["service"],
            summary="Limites d'une question, mention du modèle")
def config(answerer: Answerer | None = Depends(answerer_if_ready)) -> dict:
    """Les limites qu'applique le serveur, pour que la page et le widget les vérifient avant d'envoyer, et la
    mention que les conditions du modèle servi demandent d'afficher (aucune pour e5-small). Répond aussi
    pendant le démarrage : `ready` est alors faux et la mention pas encore connue."""
    notice = served_notice(answerer) if answerer is not None else None
    return {**limits.as_dict(), "model_notice": notice.to_dict() if notice else None, "ready": answerer is not None}


def served_notice(answerer: Answerer) -> ModelNotice | None:
    """The notice of the model the answerer's index was built with: the embedder's description (its licence
    and family) and the index's manifest (the model's family and id) say which; indexer/models/notice.py
    decides."""
    manifest = answerer.retriever.manifest
    described = getattr(answerer.retriever.embedder, "description", None)
    if not isinstance(described, Description):  # a fake or a hub model has none
        described = None
    return model_notice(described.licence if described else None, (
        described.family if described else None, manifest.model.family if manifest.model else None,
        manifest.embedding.model_id))


def _game(answerer: Answerer, game) -> dict:
    counts = answerer.retriever.manifest.corpus.passages_per_game
    return {
        "id": game.id, "title": game.title, "aliases": list(game.aliases), "author": game.author,
        "publisher": game.publisher, "year": game.year, "players": game.players, "duration": game.duration,
        "age": game.age, "passages": counts.get(game.id, 0), "pdf": bool(getattr(game, "source", None)),
    }


@router.get("/api/games", response_model=GamesResponse, operation_id="listGames", tags=["jeux"],
            responses={**error_responses((422, "q, limit ou offset invalide (`invalid_request`)"), STARTING),
                       **GAMES_LINKS},
            summary="Les jeux connus, ou cherchés")
def games(answerer: Answerer = Depends(get_answerer),
          q: str | None = Query(None, max_length=MAX_QUERY_CHARS, description="Titre, alias ou id cherché "
                                "(fautes de frappe tolérées) ; absent : tous les jeux, par titre.",
                                examples=["karouba"]),
          limit: int = Query(50, ge=1, le=200, description="Jeux par page.", examples=[20]),
          offset: int = Query(0, ge=0, description="Jeux sautés (pagination).", examples=[0])) -> dict:
    page = answerer.catalogue.search(q, limit, offset)
    return {"games": [_game(answerer, g) for g in page.games], "total": page.total, "offset": offset,
            "limit": limit}


@router.get("/api/games/{game_id}", response_model=Game, operation_id="getGame", tags=["jeux"], summary="Un jeu",
            responses={**error_responses(UNKNOWN_GAME, STARTING), **GAME_LINKS})
def game(game_id: str = Path(..., description="Id du jeu.", examples=["karuba"]),
         answerer: Answerer = Depends(get_answerer)) -> dict:
    return _game(answerer, answerer.retriever.game(game_id))


@router.get("/health", response_model=Health, operation_id="health", tags=["service"], summary="État du service",
            responses=error_responses(STARTING))
def health(request: Request, answerer: Answerer = Depends(get_answerer)) -> dict:
    manifest = answerer.retriever.manifest
    return {
        "status": "ok",
        "model": manifest.embedding.model_id,
        "model_fingerprint": manifest.embedding.fingerprint,
        "corpus_hash": manifest.corpus.hash,
        "built_at": manifest.built_at,
        "games": manifest.corpus.games,
        "passages": manifest.corpus.passages,
        "passages_per_game": manifest.corpus.passages_per_game,
        "calibration": answerer.calibration.source,
        "log": log_status(request.app),
    }


def get_pages(request: Request):
    """The page renderer of this app, made on first use (the corpus folder comes from the settings)."""
    from service.web.page_images import PageImages

    if getattr(request.app.state, "pages", None) is None:
        request.app.state.pages = PageImages(request.app.state.settings.corpus_dir)
    return request.app.state.pages


@router.get("/api/games/{game_id}/pages/{label}", operation_id="getPage", tags=["jeux"],
            summary="Une page du livret (image)", response_class=Response,
            responses={200: {"content": {"image/webp": {}}, "description": "La page, en WebP"},
                       **error_responses((404, "Jeu inconnu (`unknown_game`), ou page ou livret PDF introuvable "
                                               "(`unknown_page`)"), STARTING)})
async def page_image(request: Request,
                     game_id: str = Path(..., description="Id du jeu.", examples=["karuba"]),
                     label: str = Path(..., description="La page imprimée.", examples=["6"]),
                     passage: str | None = Query(None, description="Un passage de la page, à surligner.",
                                                 examples=["karuba-3438c0d8c7dd"]),
                     answerer: Answerer = Depends(get_answerer), pages=Depends(get_pages)) -> Response:
    """La page imprimée `label` du livret PDF du jeu ; avec `?passage=ID`, les lignes du passage surlignées."""
    game = answerer.retriever.game(game_id)
    found = answerer.retriever.passage(game_id, passage) if passage else None
    lines = found.text.split("\n") if found else ()
    data = await anyio.to_thread.run_sync(partial(pages.image, game, label, lines),
                                          limiter=request.app.state.limiter)
    return Response(data, media_type="image/webp", headers={"Cache-Control": "public, max-age=3600"})
