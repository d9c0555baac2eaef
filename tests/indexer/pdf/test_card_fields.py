"""What an import reads of the box: the card fields on the cover, a lexique proposal from the components."""

from reportlab.lib.pagesizes import A4
from reportlab.pdfgen import canvas

from indexer.corpus import read_game
from indexer.passages import passages_of
from indexer.pdf import import_pdf
from indexer.pdf.document.card_fields import card_fields, component_nouns, propose_lexique
from indexer.pdf.document.structure import Block
from service.engine.players_words import lexicon_groups


def test_card_fields_from_cover_texts():
    cover = "ZORGLUB\nUn jeu de Marie Curie\n2 à 5 joueurs · Dès 10 ans · 30-45 min\n© 2019 Les Éditions du Test"
    assert card_fields([cover]) == {"players": "2 à 5", "age": "10 ans et +", "duration": "30 à 45 min",
                                    "author": "Marie Curie", "year": "2019"}
    assert card_fields(["Pour 3 joueurs, 8+ ans, environ 20 minutes"]) == {
        "players": "3", "age": "8 ans et +", "duration": "20 min"}
    assert card_fields(["Le joueur avance de 3 cases."]) == {}
    # The first page that prints a field gives it.
    assert card_fields(["2 à 4 joueurs", "3 à 6 joueurs"])["players"] == "2 à 4"


def test_component_nouns_and_the_lexique_proposal():
    blocks = [Block("h", "Matériel", 1), Block("li", "36 tuiles jungle"), Block("li", "4 bonzes blancs"),
              Block("p", "20 jetons, 1 plateau et 4 dés"), Block("h", "Déroulement", 1), Block("p", "3 cartes")]
    assert component_nouns(blocks) == ["tuile", "bonze", "jeton", "plateau", "dé"]
    lead = [Block("p", "Matériel :"), Block("li", "12 cartes oiseau")]
    assert component_nouns(lead) == ["carte"]
    groups = [["plaquette", "tuile", "carreau"], ["pion", "jeton", "marqueur"]]
    assert propose_lexique(["tuile", "bonze", "jeton"], groups) == (
        "tuile: plaquette, carreau; jeton: pion, marqueur", ["bonze"])


def _rulebook(path):
    c = canvas.Canvas(str(path), pagesize=A4)
    w, h = A4
    c.setFont("Helvetica-Bold", 28)
    c.drawString(72, h - 150, "ZORGLUB")
    c.setFont("Helvetica", 14)
    for i, line in enumerate(["Un jeu de Marie Curie", "2 à 5 joueurs", "Dès 10 ans", "45 min", "© 2019 Test"]):
        c.drawString(72, h - 200 - 22 * i, line)
    c.showPage()
    pages = [
        [("Matériel", True), ("36 tuiles jungle", False), ("4 bonzes blancs", False), ("20 jetons", False)],
        [("Déroulement", True), ("Chaque joueur pose une tuile sur une case libre de son plateau.", False)],
    ]
    for number, lines in enumerate(pages, 1):
        y = h - 90
        for text, heading in lines:
            c.setFont("Helvetica-Bold" if heading else "Helvetica", 18 if heading else 11)
            c.drawString(72, y, text)
            y -= 30 if heading else 18
        c.setFont("Helvetica", 10)
        c.drawString(w / 2, 40, str(number))
        c.showPage()
    c.save()


def test_an_import_fills_the_card_and_proposes_a_lexique_marked_for_review(tmp_path):
    pdf = tmp_path / "zorglub.pdf"
    _rulebook(pdf)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    result = import_pdf(pdf, corpus, "zorglub", "Zorglub", lexicon_groups=lexicon_groups())
    assert result.card == {"players": "2 à 5", "age": "10 ans et +", "duration": "45 min",
                           "author": "Marie Curie", "year": "2019"}
    assert result.lexique_todo == ["bonze"]
    text = result.markdown.read_text("utf-8")
    header = text.split("\n---\n")[0]
    assert "players: 2 à 5" in header and "age: 10 ans et +" in header and "year: 2019" in header
    assert "lexique: tuile: plaquette, carreau, tesselle; jeton: pion, marqueur, figurine, meeple, pionne" in header
    assert "# à vérifier : players, age, duration, author, year, lexique" in header
    assert "# lexique à compléter (mot du livret: mots des joueurs) : bonze" in header
    doc = read_game(result.markdown)
    card = passages_of(doc)[0]
    assert card.is_card and card.text.split("\n")[0] == "Joueurs : 2 à 5"
    assert doc.game.lexicon[0] == ("tuile", ("plaquette", "carreau", "tesselle"))
