"""The HTTP API through TestClient, on the fake-embedder index: bodies of successes and failures."""

import json
import logging
import re

import pytest
from fastapi.testclient import TestClient

from tests.fakes import fake_answerer
from service.engine.decide.abstention import AbstentionPolicy
from service.engine.calibration import Calibration
from service.web.app import create_app
from service.web.schemas import ErrorBody
from service.runtime.settings import Settings, load_settings

NUGGETS = "Les pépites d'or rapportent combien à la fin ?"


@pytest.fixture(scope="module")
def answerer(fake_index):
    return fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.2)))


@pytest.fixture
def client(answerer, fake_index):
    with TestClient(create_app(Settings(index_dir=fake_index), answerer)) as c:
        yield c


def post(client, body, content_type="application/json"):
    data = body if isinstance(body, (bytes, str)) else json.dumps(body)
    return client.post("/api/ask", content=data, headers={"content-type": content_type})


def test_ask_returns_the_same_object_as_the_answerer(client, answerer):
    r = post(client, {"question": NUGGETS, "game": "karuba", "k": 3})
    assert r.status_code == 200
    assert r.json() == answerer.ask(NUGGETS, "karuba", 3).to_dict()
    body = r.json()
    assert body["found"] is True and body["passages"][0]["pages"] == [6]
    assert body["answer"]["citation"] == "Karuba, livret p. 6"


def test_ask_defaults_game_detection_and_k(client):
    body = post(client, {"question": "Dans Can't Stop, que faire d'un double total comme 7 et 7 ?"}).json()
    assert body["game"] == {"id": "sans-arret", "title": "Sans Arrêt"} and body["game_detected"] is True
    assert len(body["passages"]) == 5


@pytest.mark.parametrize(
    "body, status, code, fragment",
    [
        ("{", 400, "invalid_json", "JSON invalide"),
        (b"{\"question\": \"\xff\"}", 400, "invalid_json", "du JSON en UTF-8 est attendu"),
        ("[1, 2]", 422, "invalid_request", "objet JSON"),
        ({}, 422, "invalid_request", "« question » est obligatoire"),
        ({"question": ""}, 422, "invalid_request", "la question est vide"),
        ({"question": "   \t"}, 422, "invalid_request", "la question est vide"),
        ({"question": "\x1c"}, 422, "invalid_request", "la question est vide"),  # a space to str.strip only
        ({"question": 12}, 422, "invalid_request", "« question » doit être un texte"),
        ({"question": None}, 422, "invalid_request", "« question » doit être un texte"),
        ({"question": "x" * 1001}, 422, "invalid_request", "trop longue (1001 caractères, maximum 1000)"),
        ({"question": "ok ?", "k": 0}, 422, "invalid_request", "« k » doit être un entier entre 1 et 20"),
        ({"question": "ok ?", "k": 21}, 422, "invalid_request", "« k » doit être un entier entre 1 et 20"),
        ({"question": "ok ?", "k": "5"}, 422, "invalid_request", "« k » doit être un entier"),
        ({"question": "ok ?", "game": "Kar uba"}, 422, "invalid_request", "« game » doit être un id de jeu"),
        # A well-formed id that no corpus holds is a missing resource, as in GET /api/games/{id}.
        ({"question": "ok ?", "game": "monopoly"}, 404, "unknown_game",
         "jeu inconnu : 'monopoly' ; jeux connus : cubirds, cubitos"),
        ({"question": "ok ?", "questoin": "x"}, 422, "invalid_request", "champ inconnu « questoin »"),
    ],
)
def test_bad_ask_bodies_get_a_french_4xx(client, body, status, code, fragment):
    r = post(client, body)
    assert r.status_code == status
    error = ErrorBody.model_validate(r.json())  # the declared shape, nothing more
    assert error.code == code and fragment in error.detail


def test_wrong_content_type_and_oversized_body(client):
    r = post(client, "question=x", "application/x-www-form-urlencoded")
    assert r.status_code == 415 and r.json()["code"] == "unsupported_media_type"
    assert "application/json" in ErrorBody.model_validate(r.json()).detail
    r = post(client, {"question": "x" * 20000})
    assert r.status_code == 413 and r.headers["content-type"] == "application/json"
    assert r.json() == {"detail": "corps de requête trop volumineux (maximum 16 Kio)", "code": "body_too_large"}


def test_streamed_oversized_body_is_refused_too(client):
    chunks = (b"x" * 4096 for _ in range(8))  # no content-length: chunked upload
    r = client.post("/api/ask", content=chunks, headers={"content-type": "application/json"})
    assert r.status_code == 413 and ErrorBody.model_validate(r.json()).code == "body_too_large"


def test_games_and_one_game(client):
    games = client.get("/api/games").json()["games"]
    assert [g["id"] for g in games] == ["cubirds", "cubitos", "karuba", "sans-arret"]
    karuba = client.get("/api/games/karuba").json()
    assert karuba == {
        "id": "karuba", "title": "Karuba", "aliases": [], "author": "Rüdiger Dorn", "publisher": "HABA",
        "year": 2015, "players": "2 à 4", "duration": "30 à 40 min", "age": "8 ans et +", "passages": 19,
        "pdf": False,
    }
    assert next(g for g in games if g["id"] == "sans-arret")["aliases"][0] == "Can't Stop"


def test_games_searched_and_paginated(client):
    body = client.get("/api/games", params={"q": "karouba", "limit": 2}).json()
    assert body["games"][0]["id"] == "karuba" and body["games"][0]["passages"] == 19
    assert (body["offset"], body["limit"]) == (0, 2) and body["total"] >= 1
    body = client.get("/api/games", params={"limit": 2, "offset": 2}).json()
    assert [g["id"] for g in body["games"]] == ["karuba", "sans-arret"] and body["total"] == 4
    assert [g["id"] for g in client.get("/api/games?q=cant stop").json()["games"]] == ["sans-arret"]
    r = client.get("/api/games", params={"limit": 0})
    assert r.status_code == 422 and r.json()["detail"] == "« limit » doit être un entier entre 1 et 200"
    r = client.get("/api/games", params={"q": "x" * 101})
    assert r.status_code == 422 and r.json()["detail"].startswith("« q » doit être un texte")


def test_typo_and_english_titles_route_over_http(client):
    for question in ("À Karouba, les pépites d'or rapportent combien ?", "In Can't Stop, can I keep rolling?"):
        body = post(client, {"question": question}).json()
        assert body["game_detected"] is True, question
    assert post(client, {"question": "À Karouba, les pépites d'or rapportent combien ?"}).json()["game"]["id"] \
        == "karuba"
    assert post(client, {"question": "In Cant Stpo, can I keep rolling?"}).json()["game"]["id"] == "sans-arret"


def test_unknown_game_and_unknown_path_and_method(client):
    r = client.get("/api/games/monopoly")
    assert r.status_code == 404 and r.json()["code"] == "unknown_game"
    assert "jeux connus : cubirds, cubitos, karuba, sans-arret" in r.json()["detail"]
    r = client.get("/api/nothing")
    assert r.status_code == 404 and r.json() == {"detail": "chemin inconnu : /api/nothing", "code": "not_found"}
    r = client.get("/api/ask")
    assert r.status_code == 405 and r.headers["allow"] == "POST"
    assert r.json() == {"detail": "méthode GET non permise sur /api/ask", "code": "method_not_allowed"}


def test_health_reports_the_manifest(client):
    r = client.get("/health")
    body = r.json()
    assert r.status_code == 200 and body["status"] == "ok"
    assert body["model"] == "fake-hashing" and body["passages"] == 81 and body["games"] == 4
    assert body["passages_per_game"]["karuba"] == 19 and len(body["corpus_hash"]) == 64
    assert body["calibration"] == "calibrated"  # the fixture's answerer is given its settings


def test_health_says_when_the_calibration_is_the_default(fake_index, caplog):
    # The fake model has no entry in service/engine/data/calibration.json: conservative defaults, one warning.
    with caplog.at_level(logging.WARNING, logger="rulesqa"):
        answerer = fake_answerer(fake_index)
    assert [r.levelname for r in caplog.records if "calibrage" in r.getMessage()] == ["WARNING"]
    with TestClient(create_app(Settings(index_dir=fake_index), answerer)) as c:
        assert c.get("/health").json()["calibration"] == "default"


def test_health_is_503_until_loaded(fake_index):
    # Without `with`, TestClient does not run the lifespan: the state of a server still loading.
    r = TestClient(create_app(Settings(index_dir=fake_index), None)).get("/health")
    assert r.status_code == 503 and r.json()["code"] == "starting" and "démarre" in r.json()["detail"]


def test_cors_default_allows_any_origin_and_can_be_restricted(answerer, fake_index):
    with TestClient(create_app(Settings(index_dir=fake_index), answerer)) as c:
        r = c.post("/api/ask", json={"question": NUGGETS, "game": "karuba"}, headers={"origin": "https://club.example"})
        assert r.headers["access-control-allow-origin"] == "*"
    restricted = Settings(index_dir=fake_index, cors_origins=["https://shop.example"])
    with TestClient(create_app(restricted, answerer)) as c:
        ok = c.options("/api/ask", headers={"origin": "https://shop.example", "access-control-request-method": "POST"})
        assert ok.headers["access-control-allow-origin"] == "https://shop.example"
        denied = c.options("/api/ask", headers={"origin": "https://evil.example", "access-control-request-method": "POST"})
        assert "access-control-allow-origin" not in denied.headers


def test_settings_from_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("RULESQA_INDEX_DIR", str(tmp_path))
    monkeypatch.setenv("RULESQA_CORS_ORIGINS", "https://a.example, https://b.example")
    monkeypatch.setenv("RULESQA_WORKER_THREADS", "3")
    s = load_settings()
    assert (s.index_dir, s.cors_origins, s.worker_threads) == (tmp_path, ["https://a.example", "https://b.example"], 3)
    monkeypatch.setenv("RULESQA_WORKER_THREADS", "beaucoup")
    with pytest.raises(Exception, match="RULESQA_WORKER_THREADS"):
        load_settings()


def test_one_access_log_line_per_request(client, caplog):
    with caplog.at_level(logging.INFO, logger="rulesqa.access"):
        client.get("/api/games/karuba")
        post(client, {"question": ""})
    lines = [r.getMessage() for r in caplog.records if r.name == "rulesqa.access"]
    assert len(lines) == 2
    assert lines[0].startswith("GET /api/games/karuba 200 ") and lines[0].endswith("ms")
    assert lines[1].startswith("POST /api/ask 422 ")


def _examples(spec: dict, operation: dict) -> list:
    """Every example an operation shows: its parameters', its JSON body's and its JSON answer's."""
    schemas = spec["components"]["schemas"]

    def resolved(schema):
        return schemas[schema["$ref"].rsplit("/", 1)[1]] if "$ref" in schema else schema

    found = [p.get("examples", p.get("schema", {}).get("examples")) for p in operation.get("parameters", [])]
    body = operation.get("requestBody", {}).get("content", {}).get("application/json")
    answer = operation["responses"].get("200", {}).get("content", {}).get("application/json")
    found += [resolved(part["schema"]).get("examples") for part in (body, answer) if part and "schema" in part]
    return found


def test_openapi_has_french_examples(client):
    """Every route shows an example of each parameter, of its JSON body and of its JSON answer, and the text a
    person reads in them is French."""
    spec = client.get("/openapi.json").json()
    operations = [(path, op) for path, ops in spec["paths"].items() for op in ops.values()]
    assert len(operations) >= 8
    french = re.compile(r"[éèêàçùôî]|\b(?:les?|la|des|une?|du|et|pour|jeu|page)\b", re.IGNORECASE)
    for path, operation in operations:
        examples = _examples(spec, operation)
        assert examples and all(examples), (path, operation["operationId"], examples)
        text = json.dumps(examples, ensure_ascii=False)
        # Routes whose examples hold words for a person (not only ids, numbers and limits).
        if operation["operationId"] in ("ask", "giveFeedback", "listGames", "getGame"):
            assert french.search(text), (path, text)
    ask = json.dumps(spec["components"]["schemas"]["AskRequest"]["examples"], ensure_ascii=False)
    assert "pépites d'or" in ask and "et à deux joueurs ?" in ask
    assert client.get("/docs").status_code == 200


def test_the_widget_is_one_script_with_its_core_wherever_it_is_fetched(client):
    first, second = client.get("/widget.js"), client.get("/static/widget.js")
    assert first.status_code == second.status_code == 200 and first.text == second.text
    assert first.headers["content-type"].startswith("text/javascript")
    assert "// ---- core.js ----" in first.text and "// ---- widget.js ----" in first.text


def test_the_widget_is_cached_and_revalidated_by_its_etag(client):
    first = client.get("/widget.js")
    etag = first.headers["etag"]
    assert etag.startswith('"') and len(etag) == 34 and first.headers["cache-control"] == "public, max-age=3600"
    for header in (etag, f"W/{etag}", f'"autre", {etag}', "*"):
        again = client.get("/widget.js", headers={"if-none-match": header})
        assert again.status_code == 304 and again.content == b"" and again.headers["etag"] == etag, header
        assert again.headers["cache-control"] == "public, max-age=3600"
    changed = client.get("/widget.js", headers={"if-none-match": '"une-ancienne-version"'})
    assert changed.status_code == 200 and changed.content == first.content
    assert client.get("/static/widget.js").headers["etag"] == etag


def test_config_serves_the_limits_the_api_enforces(client):
    config = client.get("/api/config").json()
    assert config["max_question_chars"] == 1000 and config["k"] == {"min": 1, "max": 20, "default": 5}
    limit = config["max_question_chars"]
    assert post(client, {"question": "x" * limit, "game": "karuba"}).status_code == 200
    too_long = post(client, {"question": "x" * (limit + 1), "game": "karuba"})
    assert too_long.status_code == 422 and f"maximum {limit}" in too_long.json()["detail"]
    assert post(client, {"question": "ok ?", "k": config["k"]["max"] + 1}).status_code == 422


def test_a_follow_up_keeps_the_previous_turn_s_game(client):
    body = {"question": "et à deux joueurs ?",
            "previous": {"question": "Combien de trésors de temple utilise-t-on ?", "game": "karuba"}}
    r = client.post("/api/ask", json=body)
    assert r.status_code == 200 and r.json()["game"]["id"] == "karuba" and r.json()["game_detected"] is True
    bad = client.post("/api/ask", json={"question": "et à deux ?", "previous": {"question": "  "}})
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_request"
    unknown = client.post("/api/ask", json={"question": "et à deux ?", "previous": {"question": "x", "oops": 1}})
    assert unknown.status_code == 422 and "oops" in unknown.json()["detail"]


def test_every_mode_the_config_advertises_is_one_ask_takes(client, answerer):
    modes = client.get("/api/config").json()["modes"]
    assert modes == ["dense", "lexical", "hybrid"]
    for mode in modes:
        r = post(client, {"question": NUGGETS, "game": "karuba", "k": 3, "mode": mode})
        assert r.status_code == 200, (mode, r.text)
        assert r.json() == answerer.ask(NUGGETS, "karuba", 3, mode).to_dict()
    # Each mode ranks its own way: dense scores are cosines, lexical ones BM25 (above 1 here).
    dense = post(client, {"question": NUGGETS, "game": "karuba", "mode": "dense"}).json()["passages"]
    lexical = post(client, {"question": NUGGETS, "game": "karuba", "mode": "lexical"}).json()["passages"]
    assert all(-1 <= p["score"] <= 1 for p in dense) and lexical[0]["score"] > 1
    r = post(client, {"question": NUGGETS, "mode": "semantique"})
    assert r.status_code == 422 and r.json() == {
        "detail": "« mode » doit valoir « dense », « lexical », « hybrid »", "code": "invalid_request"}
