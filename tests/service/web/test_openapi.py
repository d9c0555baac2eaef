"""The OpenAPI document tells the truth: one error shape for every 4xx/5xx, declared where it is sent; the
answer's schema derived from its dataclasses; links a client (or schemathesis) can follow."""

import dataclasses
import json

import pytest
from fastapi.testclient import TestClient

from service.engine.decide.abstention import AbstentionPolicy

from service.web.app import create_app
from service.web.schemas import ErrorBody
from service.engine.calibration import Calibration
from service.engine.answer import Answer
from service.runtime.settings import Settings
from tests.fakes import fake_answerer

ERROR_REF = {"$ref": "#/components/schemas/ErrorBody"}


@pytest.fixture(scope="module")
def client(fake_index):
    answerer = fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.2)))
    with TestClient(create_app(Settings(index_dir=fake_index), answerer)) as c:
        yield c


@pytest.fixture(scope="module")
def spec(client):
    return client.get("/openapi.json").json()


def operations(spec):
    for path, ops in spec["paths"].items():
        for method, op in ops.items():
            yield f"{method.upper()} {path}", op


def test_every_error_status_is_declared_as_error_body(spec):
    assert "HTTPValidationError" not in json.dumps(spec)  # FastAPI's list-of-objects shape, never sent
    for name, op in operations(spec):
        errors = {status: r for status, r in op["responses"].items() if int(status) >= 400}
        for status, response in errors.items():
            assert response["content"] == {"application/json": {"schema": ERROR_REF}}, (name, status)
        if "requestBody" in op:  # the body limit, the JSON parser, the content type, the fields
            assert {"400", "413", "415", "422"} <= set(errors), name
    schema = spec["components"]["schemas"]["ErrorBody"]
    assert schema["required"] == ["detail", "code"] and schema["additionalProperties"] is False


def test_the_answer_schema_is_the_dataclass(spec):
    # Derived, not written: a field added to service/engine/answer.py is documented without touching the API.
    declared = spec["paths"]["/api/ask"]["post"]["responses"]["200"]["content"]["application/json"]["schema"]
    name = declared["$ref"].rsplit("/", 1)[1]
    properties = spec["components"]["schemas"][name]["properties"]
    assert set(properties) == {f.name for f in dataclasses.fields(Answer)}


def test_links_name_operations_and_parameters_that_exist(spec):
    by_id = {op["operationId"]: op for _, op in operations(spec)}
    found = set()
    for name, op in operations(spec):
        for link_name, link in op["responses"].get("200", {}).get("links", {}).items():
            target = by_id[link["operationId"]]
            params = {f"{p['in']}.{p['name']}" for p in target.get("parameters", [])}
            assert set(link.get("parameters", {})) <= params, (name, link_name)
            if "requestBody" in link:
                body = target["requestBody"]["content"]["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
                assert set(link["requestBody"]) <= set(spec["components"]["schemas"][body]["properties"])
            found.add((op["operationId"], link["operationId"]))
    assert {("ask", "giveFeedback"), ("listGames", "getGame"), ("getGame", "getPage"), ("ask", "getPage")} <= found


@pytest.mark.parametrize("method, path, body", [
    ("POST", "/api/ask", {"question": "Combien de points ?", "game": "monopoly"}),
    ("GET", "/api/games/monopoly", None),
    ("GET", "/api/games/monopoly/pages/3", None),
])
def test_an_unknown_game_is_404_with_the_known_ids_wherever_it_is_named(client, spec, method, path, body):
    r = client.request(method, path, json=body)
    assert r.status_code == 404
    error = ErrorBody.model_validate(r.json())
    assert error.code == "unknown_game"
    assert error.detail == "jeu inconnu : 'monopoly' ; jeux connus : cubirds, cubitos, karuba, sans-arret"
    route = path if method == "POST" else path.replace("monopoly/pages/3", "{game_id}/pages/{label}").replace(
        "games/monopoly", "games/{game_id}")
    assert "404" in spec["paths"][route][method.lower()]["responses"]


def test_a_whole_float_k_is_an_integer_as_json_schema_says(client):
    r = client.post("/api/ask", json={"question": "Les pépites d'or rapportent combien ?", "game": "karuba", "k": 3.0})
    assert r.status_code == 200 and len(r.json()["passages"]) == 3
    r = client.post("/api/ask", json={"question": "Les pépites d'or rapportent combien ?", "k": 3.5})
    assert r.status_code == 422 and r.json()["code"] == "invalid_request"


def test_a_server_bug_still_answers_in_the_declared_shape(fake_index):
    class Broken:
        def answer(self, query):
            raise RuntimeError("boom")

    app = create_app(Settings(index_dir=fake_index, batch_max=1), Broken())
    with TestClient(app, raise_server_exceptions=False) as c:
        r = c.post("/api/ask", json={"question": "Combien de points ?"})
    assert r.status_code == 500 and ErrorBody.model_validate(r.json()).code == "internal_error"
