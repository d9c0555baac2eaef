"""create_app(settings): the FastAPI application. Nothing is read or loaded at import time."""

import contextlib
import logging
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
from fastapi import FastAPI, Request
from fastapi.middleware.cors import CORSMiddleware
from fastapi.responses import FileResponse
from fastapi.staticfiles import StaticFiles

from service.web import admin_reload, errors, serving
from service.web.middleware import AccessLog, BodyLimit
from service.web.log_routes import router as log_router
from service.web.routes import router
from service.web.static_files import WidgetScript
from service.runtime.settings import Settings

STATIC = Path(__file__).resolve().parent / "static"
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


def create_app(settings: Settings, answerer=None, stale: str | None = None) -> FastAPI:
    """The app; `answerer` may be given (tests, `rulesqa serve`), otherwise it is loaded at startup
    (service/runtime/startup.py). `stale`: why the given answerer's index should be rebuilt; the app then rebuilds
    it in a child process while answering, and swaps the new version in (service/web/serving.py)."""

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        nonlocal stale
        if app.state.answerer is None:
            from service.runtime.startup import open_answerer

            log.info("chargement du modèle et de l'index %s", settings.index_dir)
            opened = await anyio.to_thread.run_sync(open_answerer, settings)
            app.state.answerer, stale = opened.answerer, opened.stale
            log.info("prêt")
        # Concurrent questions share one inference (service/runtime/batching.py).
        serving.install(app, app.state.answerer)
        from service.questions_log.recorder import open_writer

        app.state.log_writer = open_writer(settings)
        rebuild = None
        if stale and settings.build_index_if_missing:
            import asyncio

            rebuild = asyncio.get_running_loop().create_task(serving.rebuild(app, stale))
        try:
            yield
        finally:
            if rebuild is not None and not rebuild.done():
                rebuild.cancel()
                with contextlib.suppress(BaseException):
                    await rebuild
            if app.state.log_writer is not None:
                await anyio.to_thread.run_sync(app.state.log_writer.close)
                app.state.log_writer = None
            serving.close(app)

    app = FastAPI(title="rulesqa", description=DESCRIPTION, version="0.1.0", lifespan=lifespan)
    app.state.settings = settings
    app.state.answerer = answerer
    app.state.batcher = None  # the question encoder's micro-batcher, set with the answerer (serving.install)
    app.state.rebuild_child = None  # the child process rebuilding a stale index, while it runs
    app.state.log_writer = None  # the questions log's writer, started with the app (service/questions_log/)
    app.state.limiter = anyio.CapacityLimiter(settings.worker_threads)
    errors.install(app)
    app.include_router(router)
    app.include_router(log_router)
    app.include_router(admin_reload.router)

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
