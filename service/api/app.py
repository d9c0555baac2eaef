"""create_app(settings): the FastAPI application. Nothing is read or loaded at import time."""

import logging
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from service.api import errors, reload
from service.api.middleware import AccessLog, BodyLimit
from service.api.log_routes import router as log_router
from service.api.routes import router
from service.api.static_files import WidgetScript
from service.settings import Settings

STATIC = Path(__file__).resolve().parents[1] / "static"
log = logging.getLogger("rulesqa")
# The table page runs its own two scripts and talks to its own origin, nothing else: a rulebook text that
# slipped through as markup could load or run nothing either.
PAGE_CSP = "default-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'"

DESCRIPTION = """
Réponses aux questions de règles de jeux de société, **dans les mots du livret** et avec sa page.

- `POST /api/ask` : une question (et, si on le connaît, le jeu) ; la réponse extraite, sa citation
  (« Karuba, livret p. 6 ») et les passages, ou `found: false` quand ce n'est pas dans les règles.
- `GET /api/games` : les jeux connus et leurs fiches.
"""


def create_app(settings: Settings, answerer=None) -> FastAPI:
    """The app; `answerer` may be given (tests, `rulesqa serve`), otherwise it is loaded at startup."""

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        if app.state.answerer is None:
            from service.startup import load_answerer

            log.info("chargement du modèle et de l'index %s", settings.index_dir)
            app.state.answerer = await anyio.to_thread.run_sync(load_answerer, settings)
            log.info("prêt")
        batcher = None
        if settings.batch_max > 1:  # concurrent questions share one inference (service/batching.py)
            from service.batching import QueryBatcher

            batcher = QueryBatcher(app.state.answerer.retriever.embedder, settings.batch_max, settings.batch_wait_ms)
            app.state.answerer = app.state.answerer.with_embedder(batcher)
        from service.log.recorder import open_writer

        app.state.log_writer = open_writer(settings)
        try:
            yield
        finally:
            if app.state.log_writer is not None:
                await anyio.to_thread.run_sync(app.state.log_writer.close)
                app.state.log_writer = None
            if batcher is not None:
                batcher.close()

    app = FastAPI(title="rulesqa", description=DESCRIPTION, version="0.1.0", lifespan=lifespan)
    app.state.settings = settings
    app.state.answerer = answerer
    app.state.log_writer = None  # the questions log's writer, started with the app (service/log/)
    app.state.limiter = anyio.CapacityLimiter(settings.worker_threads)
    errors.install(app)
    app.include_router(router)
    app.include_router(log_router)
    app.include_router(reload.router)

    @app.get("/", include_in_schema=False)
    def table_page():
        return FileResponse(STATIC / "index.html", media_type="text/html; charset=utf-8",
                            headers={"Content-Security-Policy": PAGE_CSP})

    script = WidgetScript(STATIC)  # one self-contained file for the site owner's one tag, joined once

    # /static/widget.js too: the raw file lacks the core and would fail on a site that linked to it.
    @app.get("/widget.js", include_in_schema=False)
    @app.get("/static/widget.js", include_in_schema=False)
    def widget(request: Request):
        return script.response(request)

    app.mount("/static", StaticFiles(directory=STATIC, check_dir=False), name="static")
    # Added innermost first: the body limit runs inside CORS, so a widget on another site can read its 413.
    app.add_middleware(BodyLimit, max_bytes=settings.max_body_bytes)
    app.add_middleware(
        CORSMiddleware,
        allow_origins=settings.cors_origins,
        allow_methods=["GET", "POST", "OPTIONS"],
        allow_headers=["content-type"],
        max_age=600,
    )
    app.add_middleware(AccessLog)
    return app
