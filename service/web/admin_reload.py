"""POST /api/admin/reload: answer from the index folder's current version without a restart.

After `rulesqa index --game ID` (or any rebuild) the folder holds a new version; this route loads it in a
worker thread while requests keep being answered by the loaded one, then swaps the two between requests
(a request holds the answerer it started with, so none fails; service/web/serving.py, which the
background rebuild of a stale index uses too). A version built with another model brings that model
(the one inside the index) and its calibration. It exists only when RULESQA_RELOAD_TOKEN is
set (otherwise 404, as an unknown path), and the token is compared in constant time.

Served by many replicas (service/cluster/), one request reaches one replica: the app then holds
`state.reload_everywhere`, which has every replica load the new version (each through
`load_new_version`) and answers once they all have.
"""

import hmac

from fastapi import APIRouter, Depends, HTTPException, Request

from service.engine.answerer import Answerer
from service.web import serving
from service.web.deps import get_answerer
from service.web.errors import ApiError

router = APIRouter()


def _check_token(request: Request) -> None:
    expected = request.app.state.settings.reload_token
    if not expected:
        raise HTTPException(404)  # the generic handler words it as an unknown path
    given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise ApiError(403, "jeton de rechargement absent ou invalide (en-tête Authorization: Bearer …)", "forbidden")


def load_new_version(app) -> dict:
    """Load the index folder's current version beside the one answering, then serve it (between requests: a
    request holds the answerer it started with). `app.state.answerer_loader`, when set, loads it (a sharded
    shelf's, service/cluster/); else service.runtime.startup.reload_answerer does. Returns what the route answers."""
    fresh = serving.swap_now(app, getattr(app.state, "answerer_loader", None))
    return _summary(fresh)


def _summary(fresh: Answerer) -> dict:
    manifest = fresh.retriever.manifest
    return {"status": "reloaded", "built_at": manifest.built_at, "corpus_hash": manifest.corpus.hash,
            "games": manifest.corpus.games, "passages": manifest.corpus.passages}


@router.post("/api/admin/reload", include_in_schema=False, dependencies=[Depends(_check_token)])
async def reload(request: Request, answerer: Answerer = Depends(get_answerer)) -> dict:
    everywhere = getattr(request.app.state, "reload_everywhere", None)
    if everywhere is not None:  # many replicas: each loads it (service/cluster/)
        return await everywhere()
    return _summary(await serving.swap(request.app))  # one swap at a time; answering goes on meanwhile
