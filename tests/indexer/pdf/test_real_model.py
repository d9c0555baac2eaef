"""Acceptance with the real e5 model: a rulebook imported from its PDF (two columns, a cover, page labels) is
indexed with the four games and answers with the printed page; its title in a question routes to it."""

import shutil

import pytest

from indexer.build import build_index
from indexer.pdf import import_pdf
from tests.fakes import CORPUS, fake_answerer

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def answerer(tmp_path_factory, real_embedder, labelled_pdf):
    root = tmp_path_factory.mktemp("real-pdf")
    corpus = root / "corpus"
    shutil.copytree(CORPUS, corpus)
    import_pdf(labelled_pdf[0], corpus, "zorglub", "Zorglub")
    # The base model (no adaptation to this corpus): enough to find a passage, and cheap to index.
    build_index(corpus, root / "index", real_embedder, progress=False)
    return fake_answerer(root / "index", embedder=real_embedder)


@pytest.mark.parametrize("question, game, page, fragment", [
    ("Quand est-ce que la partie s'arrête ?", "zorglub", [3], "sept cartes de la même couleur"),
    ("Que fait-on quand la pioche est vide ?", "zorglub", [2], "mélange la défausse"),
    ("Dans Zorglub, que prend le voleur ?", None, [2], "au hasard dans la main"),
])
def test_imported_rulebook_answers_with_the_printed_page(answerer, question, game, page, fragment):
    result = answerer.ask(question, game, 5).to_dict()
    assert result["game"]["id"] == "zorglub"
    top = result["passages"][0]
    assert fragment in top["text"] and top["pages"] == page
    assert top["citation"] == f"Zorglub, livret p. {page[0]}"
