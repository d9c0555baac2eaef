"""`rulesqa serve --ray … --shards 2`: a front replica and one replica per shard answer the gold questions,
with their game and without, exactly as the single-node service over the unsharded index; a reload
reaches the shards and the front."""

import shutil

import httpx
import pytest

from indexer.shelf import build_shards, read_shelf
from tests.cluster.support import TOKEN, UNBATCHED, ask_all, gold_bodies, local_answers
from tests.fakes import CORPUS

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def sharded(ray_cluster, real_index, real_embedder, free_port, tmp_path_factory):
    from service.cluster.deploy import deploy, undeploy
    from service.runtime.settings import load_settings

    root = tmp_path_factory.mktemp("sharded")
    build_shards(CORPUS, root / "index", real_embedder, 2, progress=False)
    settings = load_settings(index_dir=root / "index", build_index_if_missing=False, reload_token=TOKEN,
                             log_questions=False, **UNBATCHED)
    deployed = deploy(settings, name="shards", port=free_port(), timeout_s=240)
    yield deployed, root / "index"
    undeploy("shards")


def test_sharded_answers_equal_the_single_node_service(sharded, real_index):
    from service.runtime.settings import load_settings

    deployed, index = sharded
    assert all(len(s.games) == 2 for s in read_shelf(index).shards)
    bodies = gold_bodies(("test",), with_and_without_game=True)
    expected = local_answers(load_settings(index_dir=real_index, build_index_if_missing=False, log_questions=False),
                             bodies)
    answers, _ = ask_all(deployed.url, bodies)
    assert answers == expected


def _reload(url: str) -> dict:
    r = httpx.post(url + "/api/admin/reload", headers={"authorization": f"Bearer {TOKEN}"}, timeout=120)
    assert r.status_code == 200, r.text
    return r.json()


def test_reload_reaches_the_shards_and_the_front(sharded, real_embedder, tmp_path):
    """The shelf rebuilt without one game: after one reload the shards and the front serve it together."""
    deployed, index = sharded
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus, ignore=shutil.ignore_patterns("karuba.md"))
    build_shards(corpus, index, real_embedder, 2, progress=False)
    body = _reload(deployed.url)
    assert sorted(x["role"] for x in body["replicas"]) == ["front", "shard", "shard"] and body["games"] == 3
    asked = httpx.post(deployed.url + "/api/ask", json={"question": "Qui commence ?", "game": "karuba"}, timeout=60)
    # An unknown game is 404 wherever it is named (issue 23's contract), on the cluster too.
    assert asked.status_code == 404 and asked.json()["code"] == "unknown_game" and "karuba" in asked.json()["detail"]
    build_shards(CORPUS, index, real_embedder, 2, progress=False)
    assert _reload(deployed.url)["games"] == 4
    asked = httpx.post(deployed.url + "/api/ask", json={"question": "Qui commence ?", "game": "karuba"}, timeout=60)
    assert asked.status_code == 200 and asked.json()["game"]["id"] == "karuba"
