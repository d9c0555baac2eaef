"""Every failure becomes a JSON {"detail": "..."} in French that says what to fix; never a 500 for bad input."""

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from indexer.errors import IndexMismatchError, LogStoreError, QuestionError, UnknownGameError
from service.catalogue import MAX_QUERY_CHARS
from service.log.store import MAX_COMMENT_CHARS, FeedbackExistsError, LogDisabledError, UnknownAskError
from service.limits import MAX_K, MAX_QUESTION_CHARS, MIN_K


GAME_SEARCH = {
    "q": f"« q » doit être un texte d'au plus {MAX_QUERY_CHARS} caractères",
    "limit": "« limit » doit être un entier entre 1 et 200",
    "offset": "« offset » doit être un entier positif ou nul",
}


def _field(loc) -> str:
    parts = [str(p) for p in loc if p != "body"]
    return parts[-1] if parts else "corps"


FIELDS = {"/api/ask": "question, game, k, client", "/api/feedback": "ask_id, helpful, comment"}


def validation_message(error: dict, path: str = "/api/ask") -> tuple[int, str]:
    kind, field = error.get("type", ""), _field(error.get("loc", ()))
    if kind == "json_invalid":
        return 400, f"JSON invalide : {error.get('ctx', {}).get('error', 'syntaxe incorrecte')}"
    if kind in ("model_attributes_type", "dict_type") or field == "corps":
        return 422, "le corps doit être un objet JSON, par exemple {\"question\": \"…\", \"game\": \"karuba\"}"
    if kind == "missing":
        return 422, f"le champ « {field} » est obligatoire"
    if kind == "extra_forbidden":
        return 422, f"champ inconnu « {field} » (champs admis : {FIELDS.get(path, '')})"
    if field == "question":
        return 422, f"« question » doit être un texte de 1 à {MAX_QUESTION_CHARS} caractères"
    if field == "k":
        return 422, f"« k » doit être un entier entre {MIN_K} et {MAX_K}"
    if field == "game":
        return 422, "« game » doit être un id de jeu (minuscules, chiffres et tirets, ex. « karuba ») ou null"
    if field == "client":
        return 422, "« client » doit valoir « page », « widget » ou « api »"
    if field == "ask_id":
        return 422, "« ask_id » doit être l'ask_id d'une réponse (8 à 32 caractères hexadécimaux)"
    if field == "helpful":
        return 422, "« helpful » doit valoir true ou false"
    if field == "comment":
        return 422, f"« comment » doit être un texte de {MAX_COMMENT_CHARS} caractères au plus"
    if field in GAME_SEARCH:  # GET /api/games?q=&limit=&offset=
        return 422, GAME_SEARCH[field]
    return 422, f"valeur invalide pour « {field} » : {error.get('msg', '')}"


def install(app: FastAPI) -> None:
    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError):
        status, detail = validation_message(exc.errors()[0], request.url.path)
        return JSONResponse({"detail": detail}, status_code=status)

    @app.exception_handler(QuestionError)
    async def _question(request: Request, exc: QuestionError):
        return JSONResponse({"detail": str(exc)}, status_code=422)

    @app.exception_handler(UnknownGameError)
    async def _game(request: Request, exc: UnknownGameError):
        # In a body it is a bad field (422); as a path segment it is a missing resource (404).
        status = 404 if request.method == "GET" else 422
        return JSONResponse({"detail": str(exc)}, status_code=status)

    from service.pages import PageNotFound

    @app.exception_handler(PageNotFound)
    async def _page(request: Request, exc: PageNotFound):
        return JSONResponse({"detail": str(exc)}, status_code=404)

    @app.exception_handler(IndexMismatchError)
    async def _index(request: Request, exc: IndexMismatchError):
        return JSONResponse({"detail": str(exc)}, status_code=503)

    @app.exception_handler(LogStoreError)
    async def _log(request: Request, exc: LogStoreError):
        status = 404 if isinstance(exc, (UnknownAskError, LogDisabledError)) else 409 if isinstance(exc, FeedbackExistsError) else 503
        return JSONResponse({"detail": str(exc)}, status_code=status)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        messages = {
            404: f"chemin inconnu : {request.url.path}",
            405: f"méthode {request.method} non permise sur {request.url.path}",
        }
        detail = exc.detail if isinstance(exc.detail, str) and exc.status_code not in messages else None
        return JSONResponse({"detail": detail or messages.get(exc.status_code, "requête refusée")},
                            status_code=exc.status_code, headers=getattr(exc, "headers", None))
