"""End to end on a generated rulebook: import the PDF, index it (fake embedder), ask through the HTTP API,
get the passage with its printed page, then that page as an image, the passage highlighted."""

import shutil
from io import BytesIO

import pytest
from fastapi.testclient import TestClient

from indexer.build import build_index
from indexer.pdf import import_pdf
from service.engine.decide.abstention import AbstentionPolicy
from service.web.app import create_app
from service.engine.calibration import Calibration
from service.web.page_images import MAX_SIDE
from service.runtime.settings import Settings
from testbed import pdf_fixtures
from tests.fakes import CORPUS, FakeEmbedder, fake_answerer

QUESTION = "Quand la partie s'arrête-t-elle ? Combien de cartes de la même couleur ?"


@pytest.fixture(scope="module")
def pdf_corpus(tmp_path_factory):
    """The four games plus Zorglub imported from its two-column PDF with a cover, indexed."""
    root = tmp_path_factory.mktemp("pdf-corpus")
    corpus = root / "corpus"
    shutil.copytree(CORPUS, corpus)
    pdf = root / "zorglub-livret.pdf"
    pdf_fixtures.reportlab_rulebook(pdf, labels=True)
    import_pdf(pdf, corpus, "zorglub", "Zorglub", ["Le Zorglub"])
    index = root / "index"
    build_index(corpus, index, FakeEmbedder(), progress=False)
    return corpus, index


@pytest.fixture(scope="module")
def client(pdf_corpus):
    corpus, index = pdf_corpus
    answerer = fake_answerer(index, Calibration(abstention=AbstentionPolicy(threshold=0.2)))
    with TestClient(create_app(Settings(index_dir=index, corpus_dir=corpus), answerer)) as c:
        yield c


def _image(response):
    from PIL import Image

    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "image/webp"
    return Image.open(BytesIO(response.content)).convert("RGB")


def _yellow(image) -> int:
    import numpy as np

    rgb = np.asarray(image).astype(int)
    return int(((rgb[..., 0] > 240) & (rgb[..., 1] > 200) & (rgb[..., 2] < 180)).sum())


def test_ask_then_see_the_cited_page(client):
    body = client.post("/api/ask", json={"question": QUESTION, "game": "zorglub", "k": 3}).json()
    top = body["passages"][0]
    assert "sept cartes de la même couleur" in top["text"] and top["pages"] == [3]
    assert top["short_citation"] == "p. 3"
    assert client.get("/api/games/zorglub").json()["pdf"] is True
    assert client.get("/api/games/karuba").json()["pdf"] is False

    plain = _image(client.get("/api/games/zorglub/pages/3"))
    assert max(plain.size) == MAX_SIDE and plain.size[1] > plain.size[0]  # the A4 page, portrait
    highlighted = _image(client.get(f"/api/games/zorglub/pages/3?passage={top['id']}"))
    assert _yellow(plain) == 0 and _yellow(highlighted) > 2000


def test_the_page_shown_is_the_printed_page_not_the_pdf_index(client, pdf_corpus):
    """Printed page 1 is the PDF's third page (after the cover and page i): its image has the two columns'
    text of page 1, which the OCR-free check here reads through the layout sidecar's boxes."""
    import json

    corpus, _ = pdf_corpus
    layout = json.loads((corpus / "zorglub.layout.json").read_text("utf-8"))
    assert layout["pages"] == {"1": 2, "2": 3, "3": 4}
    one, three = _image(client.get("/api/games/zorglub/pages/1")), _image(client.get("/api/games/zorglub/pages/3"))
    assert one.tobytes() != three.tobytes()


@pytest.mark.parametrize("path, fragment", [
    ("/api/games/zorglub/pages/9", "page « 9 » introuvable"),
    ("/api/games/zorglub/pages/i", "page « i » introuvable"),
    ("/api/games/karuba/pages/6", "pas de livret PDF pour Karuba"),
    ("/api/games/inconnu/pages/1", "jeu inconnu"),
])
def test_unknown_pages_are_404_in_french(client, path, fragment):
    r = client.get(path)
    assert r.status_code == 404 and fragment in r.json()["detail"]


def test_images_are_cached(client):
    pages = client.app.state.pages
    first = client.get("/api/games/zorglub/pages/2").content
    size = pages._size
    assert client.get("/api/games/zorglub/pages/2").content == first and pages._size == size


def test_the_page_route_is_documented(client):
    spec = client.get("/openapi.json").json()
    route = spec["paths"]["/api/games/{game_id}/pages/{label}"]["get"]
    assert "image/webp" in route["responses"]["200"]["content"]
    assert any(p["name"] == "passage" for p in route["parameters"])
