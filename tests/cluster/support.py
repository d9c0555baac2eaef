"""What the cluster tests share: the reference answers of the single-node service, and HTTP helpers."""

from __future__ import annotations

import json

import httpx
from fastapi.testclient import TestClient

from eval.gold import load_questions

TOKEN = "jeton-de-rechargement-de-la-grappe"


def gold_bodies(splits=("dev", "test"), with_and_without_game: bool = False) -> list[dict]:
    bodies = []
    for split in splits:
        for q in load_questions(split):
            games = {q.game, None} if with_and_without_game else {q.game}
            bodies += [{"question": q.question, "game": g} for g in sorted(games, key=str)]
    return bodies


def without_ask_id(body: dict) -> str:
    return json.dumps({k: v for k, v in body.items() if k != "ask_id"}, ensure_ascii=False, sort_keys=True)


def local_answers(settings, bodies: list[dict]) -> list[str]:
    """The answers of `rulesqa serve` (load_answerer + create_app) over the same folder, in process."""
    from service.web.app import create_app
    from service.runtime.startup import load_answerer

    with TestClient(create_app(settings, load_answerer(settings))) as client:
        return [without_ask_id(client.post("/api/ask", json=b).json()) for b in bodies]


# Questions in flight at once: a cluster answer is mostly hops between processes (proxy, replica, shards), so
# a few at a time keep the 2 cores busy. The deployment compared byte for byte must not batch them
# (UNBATCHED): a batch's padding moves the last bits of a vector, on one machine as on many.
IN_FLIGHT = 4
UNBATCHED = {"batch_max": 1}


def ask_all(url: str, bodies: list[dict], threads: int = IN_FLIGHT) -> tuple[list[str], set[str]]:
    """Every body asked over HTTP, `threads` at a time; the answers in order, and the replicas that answered.
    Byte-for-byte comparisons ask a deployment with UNBATCHED settings (concurrent questions otherwise share
    an inference, service/runtime/batching.py)."""
    from concurrent.futures import ThreadPoolExecutor

    with httpx.Client(base_url=url, timeout=60) as client:
        def one(body):
            r = client.post("/api/ask", json=body)
            assert r.status_code == 200, r.text
            return without_ask_id(r.json()), r.headers["x-rulesqa-replica"]

        with ThreadPoolExecutor(threads) as pool:
            done = list(pool.map(one, bodies))
    return [a for a, _ in done], {r for _, r in done}
