"""Every failure becomes one JSON shape, ErrorBody {"detail": French sentence, "code": stable cause}, declared
in the OpenAPI document for each status a route can answer (`error_responses`); never a 500 for bad input."""

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse
from starlette.exceptions import HTTPException as StarletteHTTPException

from indexer.errors import IndexMismatchError, UnknownGameError
from service.questions_log.errors import LogStoreError

from service.engine.errors import QuestionError
from service.web.schemas import ErrorBody
from service.engine.catalogue import MAX_QUERY_CHARS
from service.questions_log.store import MAX_COMMENT_CHARS, FeedbackExistsError, LogDisabledError, NotOfferedError, UnknownAskError
from service.web.page_images import PageNotFound
from service.engine.limits import MAX_K, MAX_QUESTION_CHARS, MIN_K, MODES


class ApiError(StarletteHTTPException):
    """An HTTP error raised by the API's own code (dependencies, admin routes), with its ErrorBody code."""

    def __init__(self, status: int, detail: str, code: str, headers: dict | None = None):
        super().__init__(status, detail, headers)
        self.code = code


def error_response(status: int, detail: str, code: str, headers: dict | None = None) -> JSONResponse:
    body = ErrorBody(detail=detail, code=code)  # validated: the shape the document declares
    return JSONResponse(body.model_dump(), status_code=status, headers=headers)


# What the OpenAPI document says of each status when a route gives no description of its own.
DESCRIPTIONS = {
    400: "Corps illisible : pas du JSON en UTF-8 (`invalid_json`)",
    404: "Introuvable",
    409: "Conflit",
    413: "Corps de requête trop volumineux (`body_too_large`)",
    415: "Content-Type autre que application/json (`unsupported_media_type`)",
    422: "Paramètre ou champ invalide (`invalid_request`)",
    503: "Service indisponible : démarrage en cours (`starting`) ou index illisible (`index_unavailable`)",
}
# What any route taking a JSON body can answer before its own code runs (the body limit, the parser).
BODY_ERRORS = (400, 413, 415, 422)


def error_responses(*statuses: int | tuple[int, str]) -> dict:
    """The `responses` of a route: ErrorBody for each status, `(status, description)` to word one."""
    described = dict(s if isinstance(s, tuple) else (s, DESCRIPTIONS[s]) for s in statuses)
    return {status: {"model": ErrorBody, "description": text} for status, text in described.items()}


GAME_SEARCH = {
    "q": f"« q » doit être un texte d'au plus {MAX_QUERY_CHARS} caractères",
    "limit": "« limit » doit être un entier entre 1 et 200",
    "offset": "« offset » doit être un entier positif ou nul",
}


# What a field must be, said when a request's value for it is refused.
FIELD_MESSAGES = {
    "k": f"« k » doit être un entier entre {MIN_K} et {MAX_K}",
    "game": "« game » doit être un id de jeu (minuscules, chiffres et tirets, ex. « karuba ») ou null",
    "mode": f"« mode » doit valoir {', '.join(f'« {m} »' for m in MODES)}",
    "client": "« client » doit valoir « page », « widget » ou « api »",
    "passage_id": "« passage_id » doit être l'id d'un passage proposé (minuscules, chiffres et tirets)",
    "previous": "« previous » doit être un objet {\"question\": \"…\", \"game\": \"karuba\"} ou null",
    "ask_id": "« ask_id » doit être l'ask_id d'une réponse (8 à 32 caractères hexadécimaux)",
    "helpful": "« helpful » doit valoir true ou false",
    "comment": f"« comment » doit être un texte de {MAX_COMMENT_CHARS} caractères au plus",
    **GAME_SEARCH,  # GET /api/games?q=&limit=&offset=
}


def _field(loc) -> str:
    parts = [str(p) for p in loc if p != "body"]
    return parts[-1] if parts else "corps"


FIELDS = {"/api/ask": "question, game, k, mode, client, previous", "/api/feedback": "ask_id, helpful, comment",
          "/api/choice": "ask_id, passage_id"}


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
        if kind == "string_too_long":
            return 422, (f"la question est trop longue ({len(error.get('input', ''))} caractères, "
                         f"maximum {MAX_QUESTION_CHARS})")
        if kind == "string_pattern_mismatch":
            return 422, "la question est vide"
        return 422, f"« question » doit être un texte de 1 à {MAX_QUESTION_CHARS} caractères"
    if field in FIELD_MESSAGES:
        return 422, FIELD_MESSAGES[field]
    return 422, f"valeur invalide pour « {field} » : {error.get('msg', '')}"


# The code of an HTTPException raised by FastAPI or Starlette themselves (ApiError carries its own).
HTTP_CODES = {400: "invalid_json", 401: "unauthorized", 403: "forbidden", 404: "not_found",
              405: "method_not_allowed", 413: "body_too_large", 415: "unsupported_media_type",
              422: "invalid_request", 503: "starting"}


# The domain errors an API call can raise, each with the status and the ErrorBody code it answers; a subclass
# not listed answers as its nearest listed base class (the log's own errors before LogStoreError).
STATUS_OF = {
    QuestionError: (422, "invalid_request"),
    UnknownGameError: (404, "unknown_game"),  # a missing resource wherever the id comes from (path or body)
    PageNotFound: (404, "unknown_page"),
    IndexMismatchError: (503, "index_unavailable"),
    UnknownAskError: (404, "unknown_answer"),
    LogDisabledError: (404, "log_disabled"),
    FeedbackExistsError: (409, "feedback_exists"),
    NotOfferedError: (409, "not_offered"),  # a valid request at odds with the answer it names
    LogStoreError: (503, "log_unavailable"),
}


def status_of(exc: Exception) -> tuple[int, str]:
    return next(STATUS_OF[cls] for cls in type(exc).__mro__ if cls in STATUS_OF)


def _one_error_model(spec: dict) -> dict:
    """FastAPI declares its validation errors as HTTPValidationError (`detail`: a list of objects) on every
    route with a parameter that does not declare 422 itself; the API sends ErrorBody. Any such 422, on a
    route written now or later, is rewritten to the shape actually sent."""
    ref = {"$ref": "#/components/schemas/ErrorBody"}
    for operations in spec.get("paths", {}).values():
        for operation in operations.values():
            answer = operation.get("responses", {}).get("422")
            if answer and "HTTPValidationError" in str(answer):
                operation["responses"]["422"] = {"description": DESCRIPTIONS[422],
                                                 "content": {"application/json": {"schema": ref}}}
    for name in ("HTTPValidationError", "ValidationError"):
        spec.get("components", {}).get("schemas", {}).pop(name, None)
    return spec


def install(app: FastAPI) -> None:
    generate = app.openapi

    def openapi() -> dict:
        return _one_error_model(generate())  # generate() caches the document; the rewrite is idempotent

    app.openapi = openapi

    @app.exception_handler(RequestValidationError)
    async def _validation(request: Request, exc: RequestValidationError):
        status, detail = validation_message(exc.errors()[0], request.url.path)
        return error_response(status, detail, "invalid_json" if status == 400 else "invalid_request")

    async def _domain(request: Request, exc: Exception):
        status, code = status_of(exc)
        return error_response(status, str(exc), code)

    for cls in STATUS_OF:
        app.add_exception_handler(cls, _domain)

    @app.exception_handler(StarletteHTTPException)
    async def _http(request: Request, exc: StarletteHTTPException):
        status = exc.status_code
        messages = {
            # FastAPI's own 400 ("There was an error parsing the body"): a body that is not UTF-8 JSON.
            400: "corps de requête illisible : du JSON en UTF-8 est attendu",
            404: f"chemin inconnu : {request.url.path}",
            405: f"méthode {request.method} non permise sur {request.url.path}",
        }
        own = isinstance(exc, ApiError)
        detail = exc.detail if own or status not in messages else messages[status]
        code = exc.code if own else HTTP_CODES.get(status, "internal_error" if status >= 500 else "invalid_request")
        return error_response(status, detail if isinstance(detail, str) else "requête refusée", code,
                              headers=getattr(exc, "headers", None))

    @app.exception_handler(Exception)
    async def _bug(request: Request, exc: Exception):
        # Starlette still logs the traceback; the client gets the declared shape, not a text page.
        return error_response(500, "erreur interne du service : elle est enregistrée, réessayez plus tard",
                              "internal_error")
