"""POST /api/admin/reload: absent without a token setting, refused without the token, and a swap to the
index folder's new version that later requests see."""

import shutil

import pytest
from fastapi.testclient import TestClient

from indexer.update_game import update_game
from service.engine.decide.abstention import AbstentionPolicy
from service.web.app import create_app
from service.engine.calibration import Calibration
from service.runtime.settings import Settings
from tests.fakes import FakeEmbedder, fake_answerer

TOKEN = "un-jeton-assez-long-pour-le-test"


@pytest.fixture
def index(fake_index, tmp_path):
    copy = tmp_path / "index"
    shutil.copytree(fake_index, copy)
    return copy


def client_for(index, token):
    answerer = fake_answerer(index, Calibration(abstention=AbstentionPolicy(threshold=0.2)))
    return TestClient(create_app(Settings(index_dir=index, reload_token=token), answerer))


def test_no_token_setting_means_no_route(index):
    with client_for(index, None) as client:
        r = client.post("/api/admin/reload", headers={"authorization": f"Bearer {TOKEN}"})
        assert r.status_code == 404 and r.json()["detail"] == "chemin inconnu : /api/admin/reload"


def test_wrong_or_missing_token_is_refused(index):
    with client_for(index, TOKEN) as client:
        for headers in ({}, {"authorization": "Bearer nope"}, {"authorization": TOKEN[:-1]}):
            r = client.post("/api/admin/reload", headers=headers)
            assert r.status_code == 403 and "jeton de rechargement" in r.json()["detail"]


def test_reload_swaps_in_the_new_version(index):
    with client_for(index, TOKEN) as client:
        assert client.get("/api/games").json()["total"] == 4
        update_game(index, FakeEmbedder(), "karuba", remove=True)
        assert client.get("/api/games").json()["total"] == 4  # still the loaded version
        r = client.post("/api/admin/reload", headers={"authorization": f"Bearer {TOKEN}"})
        assert r.status_code == 200 and (r.json()["status"], r.json()["games"]) == ("reloaded", 3)
        assert [g["id"] for g in client.get("/api/games").json()["games"]] == ["cubirds", "cubitos", "sans-arret"]
        assert client.get("/api/games/karuba").status_code == 404
        assert client.get("/health").json()["corpus_hash"] == r.json()["corpus_hash"]
        # The new answerer answers: from the games left.
        asked = client.post("/api/ask", json={"question": "Combien de points rapporte une pépite d'or ?"})
        assert asked.status_code == 200 and asked.json()["passages"]
        assert all(p["game"] != "karuba" for p in asked.json()["passages"])
