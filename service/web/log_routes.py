"""Routes of the questions log: POST /api/feedback, and GET /admin (service/web/admin.py renders it)."""

import hmac
from functools import partial

import anyio
from fastapi import APIRouter, Depends, FastAPI, HTTPException, Request, Response
from fastapi.responses import HTMLResponse

from service.web.deps import get_answerer, require_json
from service.web.errors import BODY_ERRORS, ApiError, error_responses
from service.web.schemas import ChoiceRequest, FeedbackRequest
from service.questions_log.store import LogDisabledError

router = APIRouter()

# How long a thumbs click right after the answer waits for that answer's row to be written.
FEEDBACK_WAIT_S = 2.0


def log_status(app: FastAPI) -> str:
    writer = app.state.log_writer
    return "off" if writer is None else writer.status


def _save_feedback(writer, body: FeedbackRequest) -> None:
    writer.wait_for(body.ask_id, FEEDBACK_WAIT_S)
    writer.ready()
    writer.store.feedback(body.ask_id, body.helpful, body.comment)


@router.post("/api/feedback", status_code=204, response_class=Response, operation_id="giveFeedback",
             tags=["questions"], dependencies=[Depends(require_json)], summary="Dire si une réponse a aidé",
             responses=error_responses(
                 *BODY_ERRORS,
                 (404, "ask_id inconnu (`unknown_answer`), ou journal désactivé (`log_disabled`)"),
                 (409, "Avis déjà donné pour cette réponse (`feedback_exists`)"),
                 (503, "Journal indisponible (`log_unavailable`)")))
async def feedback(body: FeedbackRequest, request: Request) -> Response:
    """Un avis (utile ou non, et un commentaire facultatif) sur une réponse, par son `ask_id` ; une fois par réponse."""
    writer = request.app.state.log_writer
    if writer is None:
        raise LogDisabledError()
    await anyio.to_thread.run_sync(partial(_save_feedback, writer, body))
    return Response(status_code=204)


def _save_choice(writer, body: ChoiceRequest) -> None:
    writer.wait_for(body.ask_id, FEEDBACK_WAIT_S)
    writer.ready()
    writer.store.choose(body.ask_id, body.passage_id)


@router.post("/api/choice", status_code=204, response_class=Response, operation_id="chooseAnswer",
             tags=["questions"], dependencies=[Depends(require_json)],
             summary="Dire quel passage proposé répond (« Tu parles de… ? »)",
             responses=error_responses(
                 *BODY_ERRORS,
                 (404, "ask_id inconnu (`unknown_answer`), ou journal désactivé (`log_disabled`)"),
                 (409, "Passage que la réponse n'a pas proposé (`not_offered`)"),
                 (503, "Journal indisponible (`log_unavailable`)")))
async def choice(body: ChoiceRequest, request: Request) -> Response:
    """Le passage que le joueur a touché parmi les `choices` d'une réponse : une paire question-passage
    confirmée, que `rulesqa report` liste ; le dernier choix compte."""
    writer = request.app.state.log_writer
    if writer is None:
        raise LogDisabledError()
    await anyio.to_thread.run_sync(partial(_save_choice, writer, body))
    return Response(status_code=204)


def _token_given(request: Request) -> str:
    header = request.headers.get("authorization", "")
    if header.lower().startswith("bearer "):
        return header[7:].strip()
    return request.query_params.get("token", "")


def require_admin(request: Request) -> None:
    """/admin exists only with RULESQA_ADMIN_TOKEN set (404 otherwise, like any unknown path); the token
    (`Authorization: Bearer …` or `?token=`) is compared in constant time."""
    expected = request.app.state.settings.admin_token
    if not expected:
        raise HTTPException(404)
    given = _token_given(request)
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise ApiError(401, "jeton d'administration absent ou incorrect", "unauthorized",
                       headers={"WWW-Authenticate": 'Bearer realm="rulesqa-admin"'})


@router.get("/admin", include_in_schema=False, dependencies=[Depends(require_admin)])
async def admin(request: Request, since: int | None = None, game: str | None = None) -> HTMLResponse:
    from service.web.admin import render_admin
    from service.questions_log.report import build_report

    writer = request.app.state.log_writer
    if writer is None:
        raise LogDisabledError()
    if since is not None and since < 1:
        raise ApiError(422, "« since » doit être un nombre de jours, 1 ou plus", "invalid_request")
    embedder = get_answerer(request).retriever.embedder  # the vectors the answers use: no second model

    def build():
        writer.ready()
        return build_report(writer.store, embedder, since, game)

    report = await anyio.to_thread.run_sync(build, limiter=request.app.state.limiter)
    return HTMLResponse(render_admin(report), headers={"Cache-Control": "no-store", "X-Robots-Tag": "noindex"})
