# ruff: noqa: F811  (the imported fixture is requested by name)
"""A client generated from /openapi.json, as a site owner's developer would make one: datamodel-code-generator
writes pydantic models of every schema (extra fields forbidden) into a temporary folder, and each response
is parsed with the model that the document declares for its operation and status, 4xx included."""

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest
from pydantic import ValidationError

from tests.service.web.test_openapi import client  # noqa: F401  (the API on the fake index, by TestClient)

GOLD = "Les pépites d'or rapportent combien à la fin ?"


@pytest.fixture(scope="module")
def generated(client, tmp_path_factory):
    """(the document, the module datamodel-codegen wrote from it)."""
    folder = tmp_path_factory.mktemp("generated-client")
    spec = folder / "openapi.json"
    spec.write_bytes(client.get("/openapi.json").content)
    out = folder / "rulesqa_models.py"
    command = [str(Path(sys.executable).parent / "datamodel-codegen"), "--input", str(spec),
               "--input-file-type", "openapi", "--output", str(out), "--output-model-type", "pydantic_v2.BaseModel",
               "--extra-fields", "forbid", "--formatters", "builtin", "--disable-timestamp"]
    done = subprocess.run(command, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    module_spec = importlib.util.spec_from_file_location("rulesqa_models", out)
    module = importlib.util.module_from_spec(module_spec)
    sys.modules["rulesqa_models"] = module  # its annotations are resolved through sys.modules
    try:
        module_spec.loader.exec_module(module)
        yield client.get("/openapi.json").json(), module
    finally:
        del sys.modules["rulesqa_models"]


def parse(generated, method: str, path: str, response):
    """What a generated client does: the model declared for this operation and status, then validation."""
    spec, models = generated
    declared = spec["paths"][path][method]["responses"][str(response.status_code)]
    ref = declared["content"]["application/json"]["schema"]["$ref"]
    model = getattr(models, ref.rsplit("/", 1)[1].replace("-", ""))
    return model.model_validate(response.json())


def test_the_generated_models_parse_an_answer_and_a_refusal(client, generated):
    r = client.post("/api/ask", json={"question": GOLD, "game": "karuba", "k": 3})
    answer = parse(generated, "post", "/api/ask", r)
    assert r.status_code == 200 and answer.found is True
    assert answer.answer.citation == "Karuba, livret p. 6" and answer.passages[0].pages == [6]
    refused = parse(generated, "post", "/api/ask", client.post("/api/ask", json={
        "question": "Peut-on jouer avec des licornes volantes ?", "game": "karuba"}))
    assert refused.found is False and refused.answer is None and refused.refusal.message
    games = parse(generated, "get", "/api/games", client.get("/api/games", params={"limit": 2}))
    assert [g.id for g in games.games] == ["cubirds", "cubitos"] and games.total == 4


@pytest.mark.parametrize("body, status, code", [
    ({"question": GOLD, "game": "monopoly"}, 404, "unknown_game"),
    ({"question": "   "}, 422, "invalid_request"),
    ({"question": GOLD, "k": 99}, 422, "invalid_request"),
    ("{", 400, "invalid_json"),
    ({"question": "x" * 20000}, 413, "body_too_large"),
])
def test_the_generated_models_parse_every_error(client, generated, body, status, code):
    content = body if isinstance(body, str) else None
    r = client.post("/api/ask", json=None if content else body, content=content,
                    headers={"content-type": "application/json"})
    assert r.status_code == status
    error = parse(generated, "post", "/api/ask", r)
    assert error.code.value == code and error.detail == r.json()["detail"]


def test_the_generated_models_are_strict_enough_to_catch_a_wrong_shape(generated):
    # FastAPI's default 422 body (a list of objects) is what the document used to declare; it is not ours.
    _, models = generated
    with pytest.raises(ValidationError):
        models.ErrorBody.model_validate({"detail": [{"loc": ["body", "question"], "msg": "x", "type": "missing"}]})
    with pytest.raises(ValidationError):  # an undeclared field would be refused too
        models.ErrorBody.model_validate({"detail": "x", "code": "invalid_request", "hint": "y"})
