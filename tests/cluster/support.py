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


def ask_all(url: str, bodies: list[dict], threads: int = 1) -> tuple[list[str], set[str]]:
    """Every body asked over HTTP; the answers in order, and the replicas that answered. One at a time by
    default: concurrent questions share an inference (service/runtime/batching.py), and a batch's padding moves
    the last bits of a vector, on one machine as on many, so only lone questions compare byte for byte."""
    from concurrent.futures import ThreadPoolExecutor

    with httpx.Client(base_url=url, timeout=60) as client:
        def one(body):
            r = client.post("/api/ask", json=body)
            assert r.status_code == 200, r.text
            return without_ask_id(r.json()), r.headers["x-rulesqa-replica"]

        with ThreadPoolExecutor(threads) as pool:
            done = list(pool.map(one, bodies))
    return [a for a, _ in done], {r for _, r in done}
