"""Small rulebook PDFs, one per way the import used to break a real rulebook's structure (issue 27), each
drawn here with reportlab or by hand, each returning what the import must write.

- `deep_descenders`: a font with no ascent or descent (LibreOffice writes its fonts so): pdfium's box is
  then each glyph's ink, lower for p, q, g, j, y;
- `tables`: a ruled table whose cells hold lone numbers and letters, continued on the next page, and a
  table ruled above, under its header and below only, its columns a little more than an em apart;
- `units`: a definition list (term over its indented definition), bold step titles over their text, a
  term on the line of its definition (a hanging paragraph), numbered questions and their answers;
- `navigation`: a table of contents without dot leaders, a list of tables, links to the sections without
  page numbers, an index, menu paths, links back and copyright and licence lines;
- `title_page`: an author line as large and bold as a heading, a copyright over a range of years;
- `close_columns`: two columns ten points apart (LaTeX's multicol).
"""

from pathlib import Path

from tests.pdf_type3 import type3_page

W, H = 595.0, 842.0
LEFT = 70.0


def _canvas(path: Path):
    from reportlab.pdfgen.canvas import Canvas

    return Canvas(str(path), pagesize=(W, H))


def _number(c, n: int) -> None:
    c.setFont("Helvetica", 9)
    c.drawCentredString(W / 2, 30, str(n))


def _text(c, x: float, y: float, text: str, size: float = 10, bold: bool = False) -> None:
    c.setFont("Helvetica-Bold" if bold else "Helvetica", size)
    c.drawString(x, y, text)


# ------------------------------------------------------------------ glyphs without ascent or descent


def deep_descenders(path: Path) -> list[str]:
    """Two paragraphs in a Type 3 font that declares no ascent nor descent (pdfium then boxes each glyph's
    ink) and whose p, q, g, j, y, ç go deep; the second paragraph's last line is one word ("rangée.")
    under a line opening with a descender. Returns the paragraphs."""
    paragraphs = [["Les vraies séquences. Par exemple, vous pouvez déplacer le six de pique uniquement",
                   "sur un cinq de pique, jamais sur un cinq de trèfle, quelle que soit la pioche."],
                  ["Chaque joueur garde ses cartes groupées par couleur dans sa main, puis pose",
                   "pique, trèfle ou carreau au-dessus de la dernière carte de la même",
                   "rangée."]]
    lines = [line for p in paragraphs for line in p + [""]]
    type3_page(path, lines, footer="1")
    return [" ".join(p) for p in paragraphs]


# ------------------------------------------------------------------ tables


CONTINENTS = [("Amérique du Nord", "5"), ("Amérique du Sud", "2"), ("Europe", "5"), ("Afrique", "3"),
              ("Asie", "7"), ("Zone Pacifique", "2"), ("Océanie", "N"), ("Antarctique", "12")]
MOVES = [("Zone", "Coût", "Marée haute"), ("Lagon", "1", "2"), ("Passe étroite", "2", "3"), ("Récif", "3", "interdit")]


def _grid(c, x: float, y: float, widths: list[float], rows: list[tuple], header: bool, pitch: float = 16) -> float:
    """A table ruled all round, cell by cell; returns the y under it."""
    top = y
    for r, row in enumerate(rows):
        for k, cell in enumerate(row):
            _text(c, x + sum(widths[:k]) + 4, y - 12, cell, 10, bold=header and r == 0)
        y -= pitch
    c.setLineWidth(0.6)
    for k in range(len(rows) + 1):
        c.line(x, top - k * pitch, x + sum(widths), top - k * pitch)
    for k in range(len(widths) + 1):
        c.line(x + sum(widths[:k]), top, x + sum(widths[:k]), y)
    return y


def tables(path: Path) -> dict[str, int]:
    """Page 1: a table ruled above, under its header and below only (booktabs), its columns a little more
    than an em apart; then a caption and a table ruled all round, cell by cell, whose cells hold lone
    numbers, going on at the top of page 2 (its header repeated) with a lone letter. Returns each row's
    passage -> its page."""
    c = _canvas(path)
    _text(c, LEFT, 780, "Déplacements et bonus", 16, bold=True)
    _text(c, LEFT, 750, "Les déplacements coûtent des points de courant selon la zone traversée.")
    top, pitch, starts = 735.0, 15, [0, 80, 115]
    for r, row in enumerate(MOVES):
        for k, cell in enumerate(row):
            _text(c, LEFT + starts[k], top - 12 - r * pitch, cell, 10, bold=r == 0)
    c.setLineWidth(0.8)
    for yy in (top, top - pitch - 1, top - len(MOVES) * pitch - 3):
        c.line(LEFT, yy, LEFT + 190, yy)
    _text(c, LEFT, 640, "Chaque continent tenu à la fin de la manche rapporte son bonus.")
    _text(c, LEFT, 615, "Tableau 1 : bonus gagnés par continent", 10, bold=True)
    _grid(c, LEFT, 605, [92, 40], [("Continent", "Bonus"), *CONTINENTS[:6]], header=True)
    _number(c, 1)
    c.showPage()
    y = _grid(c, LEFT, 780, [92, 40], [("Continent", "Bonus"), *CONTINENTS[6:]], header=True)
    _text(c, LEFT, y - 30, "Un continent partagé ne rapporte rien à personne.")
    _number(c, 2)
    c.showPage()
    c.save()
    rows = {f"Continent : {a} ; Bonus : {b}": 1 for a, b in CONTINENTS[:6]}
    rows.update({f"Continent : {a} ; Bonus : {b}": 2 for a, b in CONTINENTS[6:]})
    rows.update({f"Zone : {a} ; Coût : {b} ; Marée haute : {m}": 1 for a, b, m in MOVES[1:]})
    return rows


# ------------------------------------------------------------------ terms, steps, questions


def units(path: Path) -> list[tuple[str, str]]:
    """Page 1: a glossary as a definition list (each term over its definition, indented), then steps: a
    bold "1. Le talon" over its paragraph. Page 2: terms on the line of their definition (a hanging
    paragraph, the definition going on under itself), then numbered questions in bold and their answers.
    Returns (title, text) per unit: the passage is "title\\ntext" (a question's: "question\\nanswer")."""
    c = _canvas(path)
    glossary = [("Brelan (3 id.)", ["Trois cartes de même valeur, posées ensemble devant soi."]),
                ("Modifier", ["Changer la valeur d'un dé avant de le placer, une seule fois par tour,",
                              "en payant un jeton d'énergie."]),
                ("Talon", ["Les cartes qui restent après la distribution, face cachée."])]
    steps = [("1. Le talon", ["Mélangez les cartes et posez-les face cachée au centre de la table."]),
             ("2. La rivière", ["Retournez cinq cartes du talon et alignez-les, face visible, à côté",
                                "de lui."]),
             ("3. Les mains", ["Distribuez six cartes à chaque joueur."])]
    _text(c, LEFT, 780, "Glossaire", 16, bold=True)
    y = 750.0
    for term, lines in glossary:
        _text(c, LEFT, y, term)
        for line in lines:
            y -= 13
            _text(c, LEFT + 30, y, line)
        y -= 20
    _text(c, LEFT, y - 10, "Mise en place", 16, bold=True)
    y -= 40
    for title, lines in steps:
        _text(c, LEFT, y, title, bold=True)
        for line in lines:
            y -= 13
            _text(c, LEFT, y, line)
        y -= 22
    _number(c, 1)
    c.showPage()
    hanging = [("Pioche", ["La pile de cartes face cachée où chaque joueur prend", "une carte au début de son tour."]),
               ("Défausse", ["La pile de cartes face visible à côté de la pioche."]),
               ("Rivière (5 cartes)", ["La rangée de cartes visibles où l'on peut piocher."])]
    questions = [("5.1 Puis-je jouer deux cartes pendant le même tour ?",
                  ["Non. Chaque joueur joue une seule carte par tour, quelle que soit sa main."]),
                 ("5.2 Puis-je utiliser le clavier plutôt que la souris ?",
                  ["Oui. Chaque action a son raccourci, listé dans l'aide de jeu."])]
    _text(c, LEFT, 780, "Vocabulaire", 16, bold=True)
    y = 750.0
    for term, lines in hanging:
        _text(c, LEFT, y, term, bold=True)
        for k, line in enumerate(lines):
            _text(c, LEFT + 110, y - 13 * k, line)
        y -= 13 * len(lines) + 9
    _text(c, LEFT, y - 10, "Questions fréquentes", 16, bold=True)
    y -= 40
    for question, lines in questions:
        _text(c, LEFT, y, question, bold=True)
        for line in lines:
            y -= 13
            _text(c, LEFT, y, line)
        y -= 22
    _number(c, 2)
    c.showPage()
    c.save()
    return [(t, " ".join(lines)) for t, lines in glossary + steps + hanging + questions]


# ------------------------------------------------------------------ navigation


SECTIONS = [("Mise en place", 2), ("Tour de jeu", 3), ("Fin de partie", 3)]
INDEX = [("Bonus", "3"), ("Défausse", "2, 3"), ("Pioche", "2"), ("Rivière", "2"), ("Talon", "2, 3")]
MENUS = ["Partie → Nouvelle partie", "Options → Son → Musique", "Aide → À propos"]
LEGAL = ["© 2000-2005 Éditions du Zorglub. Tous droits réservés.",
         "Ce livret est distribué sous licence Creative Commons BY-SA 4.0."]


def navigation(path: Path) -> tuple[list[str], list[str]]:
    """Page 1: a table of contents without dot leaders (page numbers at the right margin), a list of tables,
    the copyright. Page 2: links to the sections, without page numbers; rules; a link back. Page 3: a
    caption and a table, rules, menu paths on their own, a link back. Page 4: an index, the licence.
    Returns (the passages the import must write, the navigation lines it must leave out)."""
    c = _canvas(path)
    _text(c, LEFT, 780, "Sommaire", 16, bold=True)
    y = 750.0
    for title, page in SECTIONS:
        _text(c, LEFT, y, title)
        c.drawRightString(W - LEFT, y, str(page))
        y -= 16
    _text(c, LEFT, y - 20, "Liste des tableaux", 16, bold=True)
    _text(c, LEFT, y - 48, "Tableau 1 : points de fin de partie")
    c.drawRightString(W - LEFT, y - 48, "3")
    _text(c, LEFT, 100, LEGAL[0], 8)
    _number(c, 1)
    c.showPage()
    _text(c, LEFT, 780, "Mise en place", 16, bold=True)
    y = 750.0
    for title, _ in SECTIONS[1:]:  # a web page's "on this page" links: no page number
        _text(c, LEFT, y, title)
        c.linkRect("", title, (LEFT, y - 2, LEFT + 80, y + 9), relative=0)
        y -= 14
    rules = ["Chaque joueur prend la défausse, le talon et une pioche de six cartes.",
             "Les autres cartes forment la rivière, face visible au centre de la table."]
    for text in rules:
        y -= 24
        _text(c, LEFT, y, text)
    c.bookmarkPage("Tour de jeu")
    c.bookmarkPage("Fin de partie")
    _text(c, W - LEFT - 90, y - 30, "Retour au sommaire", 8)
    _number(c, 2)
    c.showPage()
    _text(c, LEFT, 780, "Tour de jeu", 16, bold=True)
    more = ["À son tour, un joueur joue une carte puis pioche une carte du talon."]
    _text(c, LEFT, 750, more[0])
    _text(c, LEFT, 720, "Fin de partie", 16, bold=True)
    _text(c, LEFT, 695, "Tableau 1 : points de fin de partie", 10, bold=True)
    _grid(c, LEFT, 685, [90, 40], [("Cartes", "Points"), ("Rivière", "2"), ("Talon", "1")], header=True)
    y = 600.0
    _text(c, LEFT, y, "Sur la version en ligne :")
    for menu in MENUS:
        y -= 16
        _text(c, LEFT, y, menu)
    _text(c, W - LEFT - 90, y - 30, "Retour au sommaire", 8)
    _number(c, 3)
    c.showPage()
    _text(c, LEFT, 780, "Index", 16, bold=True)
    y = 750.0
    for term, pages in INDEX:
        _text(c, LEFT, y, f"{term}, {pages}")
        y -= 14
    _text(c, LEFT, 100, LEGAL[1], 8)
    _number(c, 4)
    c.showPage()
    c.save()
    nav = ([t for t, _ in SECTIONS] + ["Tableau 1 : points de fin de partie 3"] + [f"{t}, {p}" for t, p in INDEX]
           + MENUS + ["Retour au sommaire"] + LEGAL)
    caption = "Tableau 1 : points de fin de partie"  # joined to its table: each row carries it
    kept = rules + more + [f"{caption}\nCartes : Rivière ; Points : 2", f"{caption}\nCartes : Talon ; Points : 1",
                           "Sur la version en ligne :"]
    return kept, nav


# ------------------------------------------------------------------ title page, close columns


def title_page(path: Path) -> str:
    """Page 1 (printed 1): the game's title, an author line in the headings' size and weight, a copyright
    over a range of years; page 2: rules. Returns the author line."""
    c = _canvas(path)
    _text(c, LEFT, 700, "Les Lanternes de Brume", 26, bold=True)
    author = "Un jeu de Léa Marchal-Oudin"
    _text(c, LEFT, 660, author, 16, bold=True)
    _text(c, LEFT, 600, "De 2 à 4 joueurs, dès 9 ans.")
    _text(c, LEFT, 120, "© 2000-2005 Éditions du Hérisson Lunaire", 8)
    _number(c, 1)
    c.showPage()
    _text(c, LEFT, 780, "Mise en place", 16, bold=True)
    _text(c, LEFT, 750, "Chaque joueur prend un plateau et le place devant lui.")
    _number(c, 2)
    c.showPage()
    c.save()
    return author


def close_columns(path: Path) -> list[str]:
    """Two justified columns 10 points apart (LaTeX's multicol), their lines on one grid. Returns the
    paragraphs."""
    from reportlab.pdfbase.pdfmetrics import stringWidth

    columns = [["La mer monte chaque soir autour des sept îles et chacune des pirogues doit rentrer au port "
                "avant la nuit tombée, ou elle reste dehors.",
                "Une pirogue qui reste dehors perd toute sa cargaison et revient au port au tour suivant, vide et "
                "sans balise."],
               ["Les balises rapportent des points à la fin de la partie, et une île couverte de balises de "
                "plusieurs couleurs rapporte davantage.",
                "Le gagnant totalise le plus de points ; en cas d'égalité, le joueur le plus jeune remporte la "
                "partie."]]
    width, gap = 220.0, 10.0

    def wrap(text: str) -> list[list[str]]:
        lines, line = [], []
        for word in text.split():
            if line and stringWidth(" ".join(line + [word]), "Helvetica", 10) > width:
                lines.append(line)
                line = []
            line.append(word)
        return lines + [line]

    c = _canvas(path)
    _text(c, LEFT, 780, "Au large de l'archipel", 16, bold=True)
    c.setFont("Helvetica", 10)
    for column, paragraphs in enumerate(columns):
        x, y = LEFT + column * (width + gap), 750.0
        for paragraph in paragraphs:
            lines = wrap(paragraph)
            for k, words in enumerate(lines):
                spare = width - stringWidth("".join(words), "Helvetica", 10)
                last = k == len(lines) - 1
                step = stringWidth(" ", "Helvetica", 10) if last else spare / max(len(words) - 1, 1)
                xx = x
                for word in words:  # one word at a time, no space glyph (as TeX draws)
                    c.drawString(xx, y, word)
                    xx += stringWidth(word, "Helvetica", 10) + step
                y -= 13
            y -= 6
    _number(c, 1)
    c.showPage()
    c.save()
    return [p for column in columns for p in column]


# ------------------------------------------------------------------ a code listing's line numbers at the foot


def listing_numbers(path: Path) -> list[str]:
    """Four pages printed without page numbers (LibreOffice from a web page), each ending on a line of a
    numbered code listing: "12 Description: …" on the first, "13 …" on the next. Returns each page's
    paragraph."""
    c = _canvas(path)
    texts = []
    fields = ["Source", "Section", "Priority", "Maintainer"]
    for n in range(4):
        text = f"Le champ {fields[n]} du fichier de contrôle se remplit comme le montre l'exemple ci-dessous."
        _text(c, LEFT, 760, "Chapitre quatre : les fichiers requis sous le répertoire du paquet")
        _text(c, LEFT, 700, text)
        _text(c, LEFT, 640, "Chaque champ tient sur une ligne, suivie de ses lignes de continuation indentées.")
        texts.append(text)
        c.setFont("Courier", 9)
        c.drawString(LEFT, 40, f"{12 + n} Description: {fields[n].lower()} du paquet, en une ligne")
        c.showPage()
    c.save()
    return texts
