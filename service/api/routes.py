"""HTTP routes: thin wrappers over Answerer; the answering runs in worker threads, off the event loop."""

from functools import partial

import anyio
from fastapi import APIRouter, Depends, Query, Request

from service import limits
from service.answer import Answerer, validate
from service.catalogue import MAX_QUERY_CHARS
from service.api.deps import get_answerer, require_json
from service.api.schemas import AskRequest, ClientConfig, ErrorBody, Game, GamesResponse, Health
from service.results import Answer

router = APIRouter()

ERRORS = {
    400: {"model": ErrorBody, "description": "JSON invalide"},
    413: {"model": ErrorBody, "description": "Corps trop volumineux"},
    415: {"model": ErrorBody, "description": "Content-Type autre que application/json"},
    422: {"model": ErrorBody, "description": "Question, jeu ou k invalide"},
}


@router.post("/api/ask", response_model=Answer, responses=ERRORS, tags=["questions"],
             dependencies=[Depends(require_json)], summary="Poser une question de règles")
async def ask(body: AskRequest, request: Request, answerer: Answerer = Depends(get_answerer)) -> Answer:
    """Renvoie la réponse extraite du livret avec sa citation, ou `found: false` et les passages proches."""
    query = validate(body.question, body.game, body.k)
    return await anyio.to_thread.run_sync(partial(answerer.answer, query), limiter=request.app.state.limiter)


@router.get("/api/config", response_model=ClientConfig, tags=["service"], summary="Limites d'une question")
def config() -> dict:
    """Les limites qu'applique le serveur, pour que la page et le widget les vérifient avant d'envoyer."""
    return limits.as_dict()


def _game(answerer: Answerer, game) -> dict:
    counts = answerer.retriever.manifest.corpus.passages_per_game
    return {
        "id": game.id, "title": game.title, "aliases": list(game.aliases), "author": game.author,
        "publisher": game.publisher, "year": game.year, "players": game.players, "duration": game.duration,
        "age": game.age, "passages": counts.get(game.id, 0),
    }


@router.get("/api/games", response_model=GamesResponse, tags=["jeux"], summary="Les jeux connus, ou cherchés")
def games(answerer: Answerer = Depends(get_answerer),
          q: str | None = Query(None, max_length=MAX_QUERY_CHARS, description="Titre, alias ou id cherché "
                                "(fautes de frappe tolérées) ; absent : tous les jeux, par titre."),
          limit: int = Query(50, ge=1, le=200, description="Jeux par page."),
          offset: int = Query(0, ge=0, description="Jeux sautés (pagination).")) -> dict:
    page = answerer.catalogue.search(q, limit, offset)
    return {"games": [_game(answerer, g) for g in page.games], "total": page.total, "offset": offset,
            "limit": limit}


@router.get("/api/games/{game_id}", response_model=Game, tags=["jeux"], summary="Un jeu",
            responses={404: {"model": ErrorBody, "description": "Jeu inconnu"}})
def game(game_id: str, answerer: Answerer = Depends(get_answerer)) -> dict:
    return _game(answerer, answerer.retriever.game(game_id))


@router.get("/health", response_model=Health, tags=["service"], summary="État du service",
            responses={503: {"model": ErrorBody, "description": "Chargement en cours"}})
def health(answerer: Answerer = Depends(get_answerer)) -> dict:
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
    }
