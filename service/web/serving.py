"""The answerer an app serves: installed behind the micro-batcher, swapped for a new index version, and
the background rebuild of a stale index (service/runtime/startup.py).

A swap never interrupts a request: a request holds the answerer it started with. When the new version was
built with another model (an adaptation of a changed corpus), the new answerer gets its own batcher and
the old one is closed once swapped out (questions it still holds fall back to a direct inference).
"""

from __future__ import annotations

import logging
import threading

import anyio

from service.engine.answerer import Answerer

log = logging.getLogger("rulesqa")
_swap_lock = threading.Lock()  # one reload or rebuild swap at a time (from any thread); answering goes on


def install(app, answerer: Answerer) -> None:
    """Serve `answerer`, its question encoder behind the app's batcher (service/runtime/batching.py) when the
    settings batch: the current batcher when it encodes with the same model, else a new one."""
    settings = app.state.settings
    current = getattr(app.state, "batcher", None)
    if settings.batch_max > 1 and answerer.retriever.embedder is not current:
        embedder = answerer.retriever.embedder
        from service.runtime.batching import QueryBatcher

        app.state.batcher = QueryBatcher(embedder, settings.batch_max, settings.batch_wait_ms)
        answerer = answerer.with_embedder(app.state.batcher)
        if current is not None:
            current.close()
    app.state.answerer = answerer


def close(app) -> None:
    batcher = getattr(app.state, "batcher", None)
    if batcher is not None:
        batcher.close()
        app.state.batcher = None


def swap_now(app, loader=None) -> Answerer:
    """Load the index folder's current version (with `loader(current)` when given, else
    service.runtime.startup.reload_answerer) and serve it; one swap at a time, in the calling thread."""
    from service.runtime.startup import reload_answerer

    with _swap_lock:
        current = app.state.answerer
        fresh = loader(current) if loader else reload_answerer(app.state.settings, current)
        install(app, fresh)
        return app.state.answerer


async def swap(app) -> Answerer:
    """`swap_now` in a worker thread: answering goes on meanwhile."""
    return await anyio.to_thread.run_sync(swap_now, app)


async def rebuild(app, reason: str) -> None:
    """Rebuild the stale index in a child process while the loaded version answers, then swap the new one
    in. A failed build is logged and the loaded version goes on answering."""
    from service.runtime.startup import start_build, stop_build

    settings = app.state.settings
    log.warning("%s ; reconstruction en arrière-plan (processus enfant), l'index actuel répond en attendant", reason)
    child = start_build(settings, asks=False)
    app.state.rebuild_child = child
    try:
        code = await anyio.to_thread.run_sync(child.wait, abandon_on_cancel=True)
    except BaseException:  # the server stops: so does the build (a few seconds at most, at shutdown)
        stop_build(child)
        raise
    finally:
        app.state.rebuild_child = None
    if code != 0:
        log.error("la reconstruction de l'index a échoué (code %s) ; l'index actuel continue de répondre", code)
        return
    try:
        fresh = await swap(app)
    except Exception as exc:  # an index that cannot be loaded leaves the current one answering
        log.error("nouvelle version de l'index illisible (%s) ; l'index actuel continue de répondre", exc)
        return
    log.info("index reconstruit et rechargé : %s passages", fresh.retriever.manifest.corpus.passages)
