"""`rulesqa serve --ray … --replicas 2`: the same app on two Ray Serve replicas (a cluster of two nodes) answers as
`rulesqa serve` does, logs to a shared PostgreSQL, reloads on every replica, and survives a killed one."""

import shutil
import threading
import time

import httpx
import pytest

from indexer.update_game import update_game
from tests.cluster.support import TOKEN, UNBATCHED, ask_all, gold_bodies, local_answers

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def served(ray_cluster, real_index, real_embedder, pg_cluster, free_port, tmp_path_factory):
    from service.cluster.deploy import Scaling, deploy, undeploy
    from service.runtime.settings import load_settings

    index = tmp_path_factory.mktemp("served") / "index"
    shutil.copytree(real_index, index)
    database = pg_cluster.create_database("rulesqa_cluster")
    settings = load_settings(index_dir=index, build_index_if_missing=False, reload_token=TOKEN,
                             log_questions=True, database_url=database, **UNBATCHED)
    deployed = deploy(settings, name="two", port=free_port(), scaling=Scaling(replicas=2), timeout_s=240)
    yield deployed, settings, index, real_index
    undeploy("two")


def test_two_replicas_answer_the_gold_questions_as_rulesqa_serve(served):
    deployed, settings, _, _ = served
    bodies = gold_bodies()
    expected = local_answers(settings.model_copy(update={"log_questions": False}), bodies)
    answers, replicas = ask_all(deployed.url, bodies)
    assert len(replicas) == 2  # both replicas answered
    assert answers == expected


def test_table_page_and_widget_are_the_apps(served):
    from fastapi.testclient import TestClient

    from service.runtime.startup import load_answerer
    from service.web.app import create_app

    deployed, settings, _, _ = served
    # GET /api/config carries the served model's notice: the local app answers from the same index.
    local = TestClient(create_app(settings.model_copy(update={"log_questions": False}), load_answerer(settings)))
    for path in ("/", "/widget.js", "/static/app.js", "/api/config"):
        r = httpx.get(deployed.url + path, timeout=30)
        assert r.status_code == 200 and r.content == local.get(path).content, path
    assert "data-game" in httpx.get(deployed.url + "/widget.js").text


def test_questions_log_goes_to_the_shared_postgresql(served):
    from service.questions_log.store import Store

    deployed, settings, _, _ = served
    store = Store(settings.database_url).open()
    try:
        before = store.count()
        ids, replicas = [], set()
        with httpx.Client(base_url=deployed.url, timeout=60) as client:
            for i in range(12):
                r = client.post("/api/ask", json={"question": f"Karuba : qui commence ? ({i})", "client": "widget"})
                ids.append(r.json()["ask_id"])
                replicas.add(r.headers["x-rulesqa-replica"])
            deadline = time.monotonic() + 30
            while store.count() < before + len(ids) and time.monotonic() < deadline:
                time.sleep(0.2)
            assert store.count() == before + len(ids) and len(set(ids)) == len(ids)
            # A verdict reaches whichever replica: each one finds the answer in the shared database.
            seen = set()
            for ask_id in ids:
                r = client.post("/api/feedback", json={"ask_id": ask_id, "helpful": True})
                assert r.status_code == 204, r.text
                seen.add(r.headers["x-rulesqa-replica"])
        assert len(replicas) == 2 and len(seen) == 2
    finally:
        store.close()


def _games_by_replica(url: str, n: int = 30) -> dict[str, set[int]]:
    seen: dict[str, set[int]] = {}
    with httpx.Client(base_url=url, timeout=30) as client:
        for _ in range(n):
            r = client.get("/api/games")
            seen.setdefault(r.headers["x-rulesqa-replica"], set()).add(r.json()["total"])
    return seen


def test_reload_reaches_both_replicas(served, real_embedder):
    deployed, _, index, original = served
    headers = {"authorization": f"Bearer {TOKEN}"}
    update_game(index, real_embedder, "karuba", remove=True)
    assert {t for totals in _games_by_replica(deployed.url).values() for t in totals} == {4}  # not yet
    r = httpx.post(deployed.url + "/api/admin/reload", headers=headers, timeout=120)
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["games"] == 3 and len({x["replica"] for x in body["replicas"]}) == 2
    assert all(x["games"] == 3 and x["corpus_hash"] == body["corpus_hash"] for x in body["replicas"])
    seen = _games_by_replica(deployed.url)
    assert len(seen) == 2 and all(totals == {3} for totals in seen.values())
    # Back to the original folder, on both replicas again, for the tests after this one.
    shutil.rmtree(index)
    shutil.copytree(original, index)
    r = httpx.post(deployed.url + "/api/admin/reload", headers=headers, timeout=120)
    assert r.status_code == 200 and r.json()["games"] == 4
    assert all(totals == {4} for totals in _games_by_replica(deployed.url).values())


def test_reload_refuses_a_wrong_token(served):
    deployed, _, _, _ = served
    r = httpx.post(deployed.url + "/api/admin/reload", headers={"authorization": "Bearer nope"}, timeout=30)
    assert r.status_code == 403 and "jeton de rechargement" in r.json()["detail"]


def replica_pids(app: str) -> dict[str, int]:
    from service.cluster.deploy import replicas

    return {r["replica"]: r["pid"] for r in replicas(app) if r["role"] == "front"}


def test_a_killed_replica_comes_back(served):
    """SIGKILL one replica while 4 clients ask: Ray starts another; few requests fail, none after."""
    import os
    import signal

    from ray import serve

    deployed, _, _, _ = served
    stop, results = threading.Event(), []

    def client():
        with httpx.Client(base_url=deployed.url, timeout=30) as c:
            while not stop.is_set():
                try:
                    r = c.post("/api/ask", json={"question": "Karuba : combien de pépites ?"})
                    results.append((time.monotonic(), r.status_code, r.headers.get("x-rulesqa-replica")))
                except httpx.HTTPError:
                    results.append((time.monotonic(), 0, None))

    threads = [threading.Thread(target=client) for _ in range(4)]
    for t in threads:
        t.start()
    time.sleep(2)
    before = replica_pids("two")
    assert len(before) == 2
    victim = sorted(before)[0]
    killed = time.monotonic()
    os.kill(before[victim], signal.SIGKILL)
    recovered = None
    while time.monotonic() - killed < 180:
        now = replica_pids("two")
        status = serve.status().applications["two"].deployments["Front"]
        running = status.replica_states.get("RUNNING", 0)
        if running == 2 and set(now) - set(before):  # a new replica joined, 2 running
            recovered = time.monotonic() - killed
            break
        time.sleep(0.25)
    time.sleep(2)
    stop.set()
    for t in threads:
        t.join()
    assert recovered is not None, "the killed replica was not replaced"
    failed = [r for r in results if r[1] != 200]
    after = [r for r in results if r[0] > killed + recovered + 1]
    print(f"\nkilled replica: {len(results)} requests, {len(failed)} failed, replaced in {recovered:.1f} s")
    assert len(failed) <= 8  # the requests in flight on the killed replica, at most
    assert after and all(r[1] == 200 for r in after)
