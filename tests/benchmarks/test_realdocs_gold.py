"""The gold of benchmarks/bench_import_realdocs.py read from a small hand-written page: the exact units
(paragraphs, list items without their nested list, a term with its definition, table rows with their header
as labels, a FAQ question with its answer), navigation apart, code apart; then placed on pages."""

from benchmarks.realdocs.gold import place, read
from benchmarks.structure_bench.source import Nav, Unit

PAGE = """<?xml version="1.0" encoding="UTF-8"?>
<html xmlns="http://www.w3.org/1999/xhtml"><head><title>Chapitre 2. Mise en place</title></head><body>
<div class="navheader"><table><tr><td><a href="a.html">Précédent</a></td><td><a href="c.html">Suivant</a></td>
</tr></table></div>
<div class="toc"><p><strong>Table des matières</strong></p><dl class="toc"><dt><a href="#a">2.1. Le plateau</a></dt>
</dl></div>
<h1><a id="top"/>Chapitre 2. Mise en place</h1>
<p>Chaque joueur prend <code>5</code> cartes<a class="headerlink" href="#x">¶</a>.</p>
<h2>2.1. Le plateau</h2>
<ul><li><p>Posez le plateau au centre.</p><ul><li>Face claire visible.</li></ul></li><li>Mélangez les tuiles.</li></ul>
<ol><li>Distribuez l'or.</li><li>Commencez.</li></ol>
<dl class="variablelist"><dt><span class="term">Réserve</span></dt><dd><p>Les pièces non distribuées.</p></dd></dl>
<pre class="programlisting">jeu --start</pre>
<div class="table"><p class="title"><strong>Tableau 2.1. Matériel</strong></p><table border="1">
<thead><tr><th>Élément</th><th>Nombre</th></tr></thead>
<tbody><tr><td>Cartes</td><td>52</td></tr><tr><td>Dés</td><td>2</td></tr></tbody></table></div>
<div class="note"><table border="0" summary="Note"><tr><td rowspan="2"><img alt="[Note]" src="n.png"/></td>
<th>Note</th></tr><tr><td><p>Gardez la boîte.</p></td></tr></table></div>
<div class="qandaset"><dl><dt>2.2. <a href="#q">Qui commence ?</a></dt></dl><table border="0"><tbody>
<tr class="question"><td><p><strong>2.2.</strong></p></td><td><p>Qui commence ?</p></td></tr>
<tr class="answer"><td></td><td><p>Le plus jeune.</p></td></tr></tbody></table></div>
<div class="footnote"><p><sup>[<a href="#r1">1</a>]</sup>Voir la règle.</p></div>
<div class="navfooter"><table><tr><td><a href="index.html">Sommaire</a></td></tr></table></div>
</body></html>"""

H1, H2 = "Chapitre 2. Mise en place", "2.1. Le plateau"


def test_units_navigation_and_code():
    gold = read(PAGE)
    assert gold.units == [
        Unit("p", ("Chaque joueur prend 5 cartes.",), (H1,), -1),
        Unit("li", ("Posez le plateau au centre.",), (H2,), -1),
        Unit("li", ("Face claire visible.",), (H2,), -1),
        Unit("li", ("Mélangez les tuiles.",), (H2,), -1),
        Unit("li", ("Distribuez l'or.",), (H2, "1.", "1"), -1),
        Unit("li", ("Commencez.",), (H2, "2.", "2"), -1),
        Unit("term", ("Réserve", "Les pièces non distribuées."), (H2,), -1),
        # DocBook's title over the table is its caption: it joins the table, a label of each row.
        Unit("row", ("Cartes", "52"), (H2, "Tableau 2.1. Matériel", "Élément", "Nombre"), -1,
             header=("Élément", "Nombre")),
        Unit("row", ("Dés", "2"), (H2, "Tableau 2.1. Matériel", "Élément", "Nombre"), -1, header=("Élément", "Nombre")),
        Unit("p", ("Gardez la boîte.",), (H2, "Note"), -1),
        Unit("faq", ("Qui commence ?", "Le plus jeune."), (H2, "2.2.", "2.2"), -1),
        Unit("p", ("Voir la règle.",), (H2, "[1]", "1"), -1),
    ]
    assert gold.code == ["jeu --start"]
    assert gold.title == H1
    texts = [n.text for n in gold.nav]
    assert gold.nav[0] == Nav("title", H1)
    for line in ("Précédent", "Suivant", "Table des matières", "2.1. Le plateau", "2.2. Qui commence ?", "Sommaire"):
        assert line in texts
    assert not any("Chaque joueur" in t or "Cartes" in t for t in texts)


def test_place_finds_each_unit_on_its_pages():
    units = read(PAGE).units[:3]
    pages = ["Chapitre 2\nChaque joueur prend 5 car-\ntes.\nPosez le plateau", "au centre.\nFace claire visible."]
    placed, missing = place(units, pages)
    assert [(u.page, u.pages) for u in placed] == [(0, (0,)), (0, (0, 1)), (1, (1,))]
    assert missing == []
    placed, missing = place([Unit("p", ("Jamais imprimé ici.",), (), -1)], pages)
    assert placed == [] and len(missing) == 1
