"""GET /api/config's model_notice: the notice the served model's terms ask for (indexer/models/notice.py), from
the model the answerer's index was built with. Gemma-like fakes (described as EmbeddingGemma, or only named so
by the index) get Gemma's notice with its links; e5-like ones and the suite's fake embedder none."""

import pytest
from fastapi.testclient import TestClient

from service.runtime.settings import Settings
from service.web.app import create_app
from service.web.schemas import ClientConfig
from tests.fakes import FakeEmbedder, fake_answerer, write_fake_model
from tests.notice_fakes import PROHIBITED_USE_URL, REQUIRED, TERMS_URL, e5_like, gemma_like, one_game_index


def config_of(index, embedder) -> dict:
    with TestClient(create_app(Settings(index_dir=index), fake_answerer(index, embedder=embedder))) as client:
        r = client.get("/api/config")
    assert r.status_code == 200
    ClientConfig.model_validate(r.json())  # the declared shape
    return r.json()


def assert_gemma_notice(notice: dict) -> None:
    assert notice["text"].startswith("Réponses trouvées avec EmbeddingGemma (Google).")
    assert REQUIRED in notice["text"]
    assert notice["links"] == [{"label": "Conditions d'utilisation de Gemma", "url": TERMS_URL},
                               {"label": "Usages interdits", "url": PROHIBITED_USE_URL}]


@pytest.fixture(scope="module")
def gemma_index(tmp_path_factory):
    return one_game_index(tmp_path_factory.mktemp("gemma-like"), gemma_like())


def test_a_gemma_described_model_gets_the_notice_and_its_links(gemma_index):
    config = config_of(gemma_index, gemma_like())
    assert_gemma_notice(config["model_notice"])
    assert config["ready"] is True and config["max_question_chars"] == 1000  # the limits are still there


def test_the_index_s_model_id_is_enough_without_a_description(gemma_index):
    embedder = gemma_like(described=False)
    assert not hasattr(embedder, "description")
    assert_gemma_notice(config_of(gemma_index, embedder)["model_notice"])


def test_the_family_the_index_records_of_its_model_folder_is_enough(tmp_path):
    # A model id that names no family, no description: only the index's model/ folder says EmbeddingGemma.
    class Folder(FakeEmbedder):
        model_id, backend = "mon-modele", "onnx"

        def __init__(self, path):
            super().__init__("folder")
            self.path = path

    embedder = Folder(write_fake_model(tmp_path / "modele", "mon-modele", "fake-folder", family="embeddinggemma"))
    index = one_game_index(tmp_path / "build", embedder)
    from indexer.store import load

    assert load(index).manifest.model.family == "embeddinggemma"
    assert_gemma_notice(config_of(index, embedder)["model_notice"])


def test_no_notice_for_an_e5_like_model_nor_the_suite_s_fake(tmp_path, fake_index):
    assert config_of(one_game_index(tmp_path, e5_like()), e5_like())["model_notice"] is None
    config = config_of(fake_index, FakeEmbedder())
    assert config["model_notice"] is None and config["ready"] is True


def test_while_starting_the_config_answers_without_the_notice_then_with_it(tmp_path, gemma_index):
    # No lifespan run (no `with`): the app has no answerer yet, as while `rulesqa serve` loads its index.
    app = create_app(Settings(index_dir=tmp_path / "pas-encore"), None)
    client = TestClient(app)
    starting = client.get("/api/config")
    assert starting.status_code == 200
    assert starting.json()["model_notice"] is None and starting.json()["ready"] is False
    assert starting.json()["max_question_chars"] == 1000
    assert client.get("/api/games").status_code == 503  # the routes that need the answerer still say so
    app.state.answerer = fake_answerer(gemma_index, embedder=gemma_like())  # loaded
    ready = client.get("/api/config").json()
    assert ready["ready"] is True
    assert_gemma_notice(ready["model_notice"])


def test_the_openapi_document_declares_the_notice(gemma_index):
    with TestClient(create_app(Settings(index_dir=gemma_index), fake_answerer(gemma_index, embedder=gemma_like()))) as c:
        schemas = c.get("/openapi.json").json()["components"]["schemas"]
    config = schemas["ClientConfig"]["properties"]
    assert {"model_notice", "ready"} <= set(config)
    assert set(schemas["ModelNotice"]["properties"]) == {"text", "links"}
    assert set(schemas["NoticeLink"]["properties"]) == {"label", "url"}
