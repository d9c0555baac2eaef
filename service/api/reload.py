"""POST /api/admin/reload: answer from the index folder's current version without a restart.

After `rulesqa index --game ID` (or any rebuild) the folder holds a new version; this route loads it in a
worker thread while requests keep being answered by the loaded one, then swaps the two between requests
(a request holds the answerer it started with, so none fails; service/api/serving.py, which the
background rebuild of a stale index uses too). A version built with another model brings that model
(the one inside the index) and its calibration. It exists only when RULESQA_RELOAD_TOKEN is
set (otherwise 404, as an unknown path), and the token is compared in constant time.
"""

import hmac

from fastapi import APIRouter, Depends, HTTPException, Request

from service.answer import Answerer
from service.api import serving
from service.api.deps import get_answerer
from service.api.errors import ApiError

router = APIRouter()


def _check_token(request: Request) -> None:
    expected = request.app.state.settings.reload_token
    if not expected:
        raise HTTPException(404)  # the generic handler words it as an unknown path
    given = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
    if not hmac.compare_digest(given.encode(), expected.encode()):
        raise ApiError(403, "jeton de rechargement absent ou invalide (en-tête Authorization: Bearer …)", "forbidden")


@router.post("/api/admin/reload", include_in_schema=False, dependencies=[Depends(_check_token)])
async def reload(request: Request, answerer: Answerer = Depends(get_answerer)) -> dict:
    fresh = await serving.swap(request.app)  # one swap at a time; answering goes on meanwhile
    manifest = fresh.retriever.manifest
    return {"status": "reloaded", "built_at": manifest.built_at, "corpus_hash": manifest.corpus.hash,
            "games": manifest.corpus.games, "passages": manifest.corpus.passages}
