"""Real layouts other people print (issue 33): a rulebook written as a web page with the browser's default
styles, printed by chromium. One small PDF per failure class seen on real manuals: each unit one passage,
with its kind, nothing of the navigation, no fragment."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from indexer.corpus import read_game
from indexer.passages import is_fragment, passages_of
from indexer.pdf import import_pdf
from tests.html_pdf import INTRO_PARAGRAPHS, filler, page, print_html


@pytest.fixture(scope="module")
def chromium():
    if not Path("/usr/bin/chromium").exists():
        pytest.skip("Debian's chromium is missing (make browser-deps)")
    pytest.importorskip("playwright.sync_api")


def imported(tmp_path: Path, body: str, style: str = ""):
    pdf = print_html(page(body, style=style), tmp_path / "regles.pdf")
    result = import_pdf(pdf, tmp_path, "conquete", "Conquête")
    passages = [p for p in passages_of(read_game(result.markdown)) if not p.is_card]
    assert [p.text for p in passages[:2]] == list(INTRO_PARAGRAPHS)  # the page's opening, the same every time
    return pdf, result, passages[2:]


def texts(passages) -> dict[str, tuple[str, tuple[int, ...]]]:
    return {p.text: (p.kind, p.pages) for p in passages}


def page_texts(pdf: Path) -> list[str]:
    out = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, check=True).stdout
    return [re.sub(r"\s+", " ", text) for text in out.decode("utf-8").split("\f")]


ITEMS = ["Mélangez les cartes et formez le talon.", "Distribuez cinq armées à chaque joueur.",
         "Le plus jeune joueur commence la partie."]


def test_a_bulleted_list_drawn_with_discs_is_one_item_a_passage(chromium, tmp_path):
    # Chromium draws a list's discs as shapes, not characters: the three items came out as one line. An
    # item's second line (under its text, not under its bullet) goes on the item; the lead line ending
    # with ":" is a passage of its own, not the whole list's.
    long_item = ("Chaque joueur choisit une couleur, prend les armées de cette couleur et les pose devant lui, à "
                 "portée de main, avec la carte d'aide qui résume le tour de jeu.")
    body = ("<h2>Mise en place</h2><p>Pour commencer :</p>"
            f"<ul>{''.join(f'<li>{t}</li>' for t in [*ITEMS, long_item])}</ul>")
    _, result, passages = imported(tmp_path, body)
    assert texts(passages) == {"Pour commencer :": ("rule", (1,)), **{t: ("rule", (1,)) for t in [*ITEMS, long_item]}}
    assert "\n".join(f"- {t} (p. 1)" for t in ITEMS) in result.markdown.read_text("utf-8")


TERMS = [("héros", "Le personnage contrôlé par le joueur pendant toute la partie."),
         ("manche", "Une suite de tours où chaque joueur joue une fois."),
         ("renfort", "Les armées reçues au début du tour.")]


def test_a_definition_list_is_terms_each_with_its_definition(chromium, tmp_path):
    # <dl> in default styles: the term on its line, the definition indented under it. The term was a passage
    # alone and its one-line definition was glued to the next term.
    body = f"<h2>Glossaire</h2><dl>{''.join(f'<dt>{t}</dt><dd>{d}</dd>' for t, d in TERMS)}</dl>"
    _, _, passages = imported(tmp_path, body)
    assert texts(passages) == {f"{t}\n{d}": ("term", (1,)) for t, d in TERMS}


SECTIONS = ["Mise en place", "Le tour de jeu", "Fin de la partie"]


def test_a_table_of_contents_over_the_sections_it_links_is_navigation(chromium, tmp_path):
    # A web page's contents: a list of links, no page numbers, printed on the page of the sections it names.
    toc = "".join(f'<li><a href="#s{i}">{t}</a></li>' for i, t in enumerate(SECTIONS))
    body = f"<h2>Sommaire</h2><ol>{toc}</ol>" + "".join(
        f'<h2 id="s{i}">{i + 1}. {t}</h2><p>{t} : chaque joueur agit à son tour dans le sens des aiguilles.</p>'
        for i, t in enumerate(SECTIONS))
    _, result, passages = imported(tmp_path, body)
    assert [(p.section, p.text) for p in passages] == [
        (f"{i + 1}. {t}", f"{t} : chaque joueur agit à son tour dans le sens des aiguilles.") for i, t in enumerate(SECTIONS)]
    assert result.left_out.get("sommaire") == len(SECTIONS)


def test_a_caption_joins_its_table_and_every_row_carries_its_header_over_a_page_break(chromium, tmp_path):
    rows = [(f"Manche {i}", f"{3 * i} points") for i in range(1, 41)]
    # The table starts on the first page whatever the fonts (DejaVu alone sets the filler wider than Liberation).
    body = (f"<h2>Le score</h2>{filler(8)}<p>Chaque manche rapporte des points selon le tableau suivant.</p>"
            "<table><caption>Tableau 1. Points par manche</caption><thead><tr><th>Manche</th><th>Points</th></tr>"
            f"</thead><tbody>{''.join(f'<tr><td>{a}</td><td>{b}</td></tr>' for a, b in rows)}</tbody></table>")
    pdf, _, passages = imported(tmp_path, body, "table { border-collapse: collapse } td, th { border: 1px solid }")
    got = texts(passages)
    printed = page_texts(pdf)
    pages = set()
    for a, b in rows:
        kind, cited = got[f"Tableau 1. Points par manche\nManche : {a} ; Points : {b}"]
        assert kind == "row" and len(cited) == 1 and f"{a} {b}" in printed[cited[0] - 1], (a, cited)
        pages.add(cited[0])
    assert len(pages) >= 2  # the table does go over a page break
    assert "Tableau 1. Points par manche" not in got  # never a passage alone


def test_credits_are_meta_and_an_example_is_an_example(chromium, tmp_path):
    body = ("<h2>Le tour</h2><p>À son tour, le joueur déplace une armée vers un territoire voisin.</p>"
            "<p>Exemple : Anne déplace deux armées de l'Europe vers l'Asie, puis s'arrête.</p>"
            "<h2>Auteurs</h2><p>Jean Dupont &lt;jean.dupont@example.org&gt;</p><p>Marie Curie</p>"
            "<p>Traduction : Paul Martin</p>")
    _, result, passages = imported(tmp_path, body)
    assert texts(passages) == {
        "À son tour, le joueur déplace une armée vers un territoire voisin.": ("rule", (1,)),
        "Exemple : Anne déplace deux armées de l'Europe vers l'Asie, puis s'arrête.": ("example", (1,)),
        "Jean Dupont <jean.dupont@example.org>": ("meta", (1,)),
        "Marie Curie": ("meta", (1,)),
        "Traduction : Paul Martin": ("meta", (1,)),
    }
    assert result.kinds == {"meta": 3, "rule": 1 + len(INTRO_PARAGRAPHS), "example": 1}
    assert result.fragments == 3  # the credits' short lines: counted, and kept apart from the rules (meta)
    assert "Marie Curie (p. 1) {meta}" in result.markdown.read_text("utf-8")


def test_passages_json_and_the_import_say_each_passage_kind(chromium, tmp_path):
    body = (f"<h2>Glossaire</h2><dl><dt>{TERMS[0][0]}</dt><dd>{TERMS[0][1]}</dd></dl>"
            "<h2>Questions fréquentes</h2><h3>Peut-on attaquer deux fois dans le même tour ?</h3>"
            "<p>Oui, tant qu'il reste au moins deux armées sur le territoire qui attaque.</p>"
            "<table border=1><tr><th>Continent</th><th>Bonus</th></tr><tr><td>Europe</td><td>5</td></tr>"
            "<tr><td>Asie</td><td>7</td></tr><tr><td>Afrique</td><td>3</td></tr></table>")
    pdf = print_html(page(body), tmp_path / "regles.pdf")
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    run = [sys.executable, "-m", "rulesqa"]
    out = subprocess.run([*run, "import", str(pdf), "--game", "conquete", "--title", "Conquête", "--corpus",
                          str(corpus)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    said = next(line for line in out.stderr.splitlines() if "passages écrits" in line).split(" : ", 1)[1]
    said = said.split(" ; ")[0]
    assert dict(part.rsplit(" ", 1) for part in said.split(", ")) == {
        "rangée de tableau": "3", "règle": str(len(INTRO_PARAGRAPHS)), "terme": "1", "question": "1"}
    listed = subprocess.run([*run, "passages", "--json", "--corpus", str(corpus)], capture_output=True, text=True,
                            timeout=120)
    kinds = {p["text"].split("\n")[0]: p["kind"] for p in json.loads(listed.stdout)["passages"]
             if p["kind"] != "card" and p["text"] not in INTRO_PARAGRAPHS}
    assert kinds == {"héros": "term", "Peut-on attaquer deux fois dans le même tour ?": "question",
                     "Continent : Europe ; Bonus : 5": "row", "Continent : Asie ; Bonus : 7": "row",
                     "Continent : Afrique ; Bonus : 3": "row"}


def test_no_fragment_in_a_web_manual(chromium, tmp_path):
    body = ("<h2>Démarrer une partie</h2><h3>Le menu Jeu</h3><h3>Le talon</h3>"
            "<p>Le talon est la pile de cartes posée face cachée au centre de la table.</p>"
            f"<ul>{''.join(f'<li>{t}</li>' for t in ITEMS)}</ul>"
            f"<h2>Glossaire</h2><dl>{''.join(f'<dt>{t}</dt><dd>{d}</dd>' for t, d in TERMS)}</dl>")
    _, result, passages = imported(tmp_path, body)
    assert [p.text for p in passages if is_fragment(p)] == []
    assert result.fragments == 0
    assert len(passages) == 1 + len(ITEMS) + len(TERMS)


def test_a_web_manuals_navigation_bar_and_contents_of_its_other_pages_are_left_out(chromium, tmp_path):
    # DocBook's HTML: a bar of links over and under each page, and a chapter's contents linking to the
    # chapter's other pages (no heading of this page to match, no page number).
    bar = ('<table width="100%"><tr><td><a href="a.html">Précédent</a></td><td><a href="b.html">Niveau supérieur'
           '</a></td><td><a href="index.html">Sommaire</a></td><td><a href="c.html">Suivant</a></td></tr></table>')
    entries = ["1. Partir du bon pied", "2. Premiers pas", "3. Modifier les sources", "4. Fichiers requis"]
    toc = "".join(f'<li><a href="https://example.org/guide/ch{i}.html">{t}</a></li>' for i, t in enumerate(entries))
    body = (f"{bar}<h2>Le guide</h2><ul style='list-style: none'>{toc}</ul>"
            "<p>Ce guide décrit la construction d'un paquet, du premier pas jusqu'à son envoi.</p>"
            f"{bar}")
    _, result, passages = imported(tmp_path, body)
    assert [p.text for p in passages] == ["Ce guide décrit la construction d'un paquet, du premier pas jusqu'à son envoi."]
    assert result.left_out.get("sommaire") == len(entries)


PACKAGES = [("chromium", "V:37, I:118", "Chromium (navigateur libre de Google)"),
            ("firefox-esr", "V:194, I:416", "Firefox ESR (Firefox Extended Support Release = Firefox Support à Long "
                                            "Terme, la version des distributions stables)"),
            ("lynx", "V:12, I:124", "Lynx (navigateur en mode texte)"),
            ("links2", "V:1, I:12", "Links (graphique en mode console sans X)")]


def _row(cells) -> str:
    return "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


@pytest.mark.parametrize("table", ["border", "zebra"])
def test_a_stylesheets_table_is_rows_with_their_headers_words(chromium, tmp_path, table):
    # border: HTML's border="1", each cell framed two points apart, links underlined in the cells, a two-line
    # cell ("V:37," over "I:118") beside one-line cells centred between its lines. zebra: a frame and a
    # band of colour every other row, no rule between the rows (DocBook's stylesheets).
    style = ("td { vertical-align: middle } td:nth-child(2) { width: 3.2em }" if table == "border" else
             "table { border: 1px solid #aaa } th, td { border-width: 0; padding: 2pt 6pt }"
             " tbody tr:nth-child(even) { background: #eeeeee }")
    rows = "".join(_row([f'<a href="https://example.org/{p}"><code>{p}</code></a>', pop, text])
                   for p, pop, text in PACKAGES)
    attrs = ' border="1"' if table == "border" else ""
    body = (f"<h2>Navigateurs</h2><p>Voici les navigateurs que propose la distribution.</p>"
            f"<table{attrs}><thead><tr><th>paquet</th><th>popcon</th><th>description</th></tr></thead>"
            f"<tbody>{rows}</tbody></table>")
    _, _, passages = imported(tmp_path, body, style)
    rows = [p for p in passages if p.kind == "row"]
    assert [p.text for p in rows] == [f"paquet : {p} ; popcon : {pop} ; description : {text}"
                                      for p, pop, text in PACKAGES]
