"""FastAPI dependencies: the objects loaded once at startup."""

from fastapi import Request

from service.engine.answerer import Answerer
from service.web.errors import ApiError


def get_answerer(request: Request) -> Answerer:
    answerer = getattr(request.app.state, "answerer", None)
    if answerer is None:
        raise ApiError(503, "le service démarre : modèle et index en cours de chargement", "starting")
    return answerer


def answerer_if_ready(request: Request) -> Answerer | None:
    """The answerer, or None while the service starts (for a route that answers then too: GET /api/config)."""
    return getattr(request.app.state, "answerer", None)


def require_json(request: Request) -> None:
    content_type = request.headers.get("content-type", "").split(";")[0].strip().lower()
    if content_type != "application/json":
        raise ApiError(415, f"Content-Type doit être application/json (reçu : {content_type or 'aucun'})",
                       "unsupported_media_type")
