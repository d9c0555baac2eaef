"""Small rulebook pages set the way desktop-publishing tools set them (issue 42), made with reportlab for the tests:
tracked (letter-spaced) text, a drop cap, justified paragraphs whose word spaces stretch, a leaflet of four narrow
columns, a lead-in set larger than its paragraph, and a spread (two printed pages on one PDF page). Each maker
returns the paragraphs the import must write whole, with the printed page each is on."""

from pathlib import Path

A4 = (595.0, 842.0)
BODY = 10.0

SETUP = ("Chaque joueur prend les cinq cartes de sa couleur et les garde en main, cachées des autres joueurs "
         "jusqu'à la fin de la manche.")
TURN = ("Pour vos premières parties, retirez les cartes marquées d'une étoile : elles ajoutent des effets que "
        "les joueurs découvriront plus tard.")
END = ("La partie s'arrête dès qu'un joueur a posé sa dernière carte ; celui qui a le plus de points l'emporte, "
       "et en cas d'égalité la victoire est partagée.")
FIRST = "Le premier joueur choisit la direction."
WIND = ("Une chaude brise souffle sur le désert : chaque joueur déplace son pion d'une case vers le nord avant "
        "de jouer son tour.")


def _wrap(canvas, text: str, font: str, size: float, width: float) -> list[str]:
    lines, line = [], ""
    for word in text.split():
        trial = f"{line} {word}".strip()
        if canvas.stringWidth(trial, font, size) > width and line:
            lines.append(line)
            line = word
        else:
            line = trial
    return lines + [line] if line else lines


def _justified(canvas, text: str, x: float, y: float, width: float, font: str = "Helvetica", size: float = BODY,
               char_space: float = 0.0, scaled: bool = False) -> float:
    """The paragraph set justified: each line but the last drawn word by word, its spaces stretched to the
    column's width (as InDesign positions them); returns the y under it."""
    lines = _wrap(canvas, text, font, size, width - char_space * 60)
    for i, line in enumerate(lines):
        words = line.split()
        widths = [canvas.stringWidth(w, font, size) + sum(char_space + KERNS[i % len(KERNS)] for i in range(len(w)))
                  if char_space else canvas.stringWidth(w, font, size) for w in words]
        gap = (width - sum(widths)) / (len(words) - 1) if i < len(lines) - 1 and len(words) > 1 else \
            canvas.stringWidth(" ", font, size) + char_space
        at = x
        for word, w in zip(words, widths):
            if char_space or scaled:
                _kerned(canvas, word, at, y, font, size, char_space, kerns=bool(char_space))
            else:
                canvas.setFont(font, size)
                canvas.drawString(at, y, word)
            at += w + gap
        y -= size * 1.25
    return y - size * 0.8


KERNS = (-0.2, 0.3, -0.1, 0.35, 0.0, -0.15, 0.3)  # points added to the tracking, glyph after glyph (optical kerning)


def _kerned(canvas, word: str, x: float, y: float, font: str, size: float, tracking: float,
            kerns: bool = True) -> None:
    """A word as InDesign writes a tracked and optically kerned line: the font set at 1 point and scaled by the
    text matrix, the tracking as character spacing, each glyph's kerning in one TJ array."""
    text = canvas.beginText()
    text.setTextTransform(size, 0, 0, size, x, y)
    text.setFont(font, 1)
    text.setCharSpace(tracking / size)
    parts = []
    for i, ch in enumerate(word):
        byte = ch.encode("cp1252")[0]
        parts.append(f"(\\{byte:03o})" if byte > 126 or ch in "()\\" else f"({ch})")
        parts.append(f"{-KERNS[i % len(KERNS)] * 1000 / size if kerns else 0:.1f}")
    text._code.append(f"[{' '.join(parts)}] TJ")
    canvas.drawText(text)


def _folio(canvas, number: int, x: float) -> None:
    canvas.setFont("Helvetica", 8)
    canvas.drawCentredString(x, 30, str(number))


def tracked_and_justified(path: Path) -> list[tuple[str, int]]:
    """A page of justified paragraphs, one of them tracked (letter-spaced, as a publisher fits copy)."""
    from reportlab.pdfgen.canvas import Canvas

    c = Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica-Bold", 16)
    c.drawString(60, 780, "Mise en place")
    y = _justified(c, SETUP, 60, 750, 300)
    y = _justified(c, TURN, 60, y, 300, char_space=0.25)
    _justified(c, END, 60, y, 300)
    _folio(c, 1, A4[0] / 2)
    c.showPage()
    c.save()
    return [(SETUP, 1), (TURN, 1), (END, 1)]


def scaled_justified(path: Path) -> list[tuple[str, int]]:
    """One column of justified paragraphs written as InDesign writes them: the font set at 1 point, scaled to
    10 by the text matrix (a reader that takes the font's size for the glyphs' sees 1-point text)."""
    from reportlab.pdfgen.canvas import Canvas

    c = Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica-Bold", 16)
    c.drawString(60, 780, "Mise en place")
    y = 750
    for text in (SETUP, TURN, END):
        y = _justified(c, text, 60, y, 300, scaled=True)
    _folio(c, 1, A4[0] / 2)
    c.showPage()
    c.save()
    return [(SETUP, 1), (TURN, 1), (END, 1)]


def drop_cap(path: Path) -> list[tuple[str, int]]:
    """A paragraph opening with a drop cap three lines high, its first lines set beside it."""
    from reportlab.pdfgen.canvas import Canvas

    c = Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica-Bold", 16)
    c.drawString(60, 780, "Le vent")
    c.setFont("Times-Bold", 38)
    c.drawString(60, 722, WIND[0])
    width = c.stringWidth(WIND[0], "Times-Bold", 38) + 4
    lines = _wrap(c, WIND[1:], "Helvetica", BODY, 240 - width)
    y = 750
    for i, line in enumerate(lines):
        indent = width if i < 3 else 0
        c.setFont("Helvetica", BODY)
        c.drawString(60 + indent, y, line)
        y -= BODY * 1.25
    y = _justified(c, SETUP, 60, y - 6, 240)
    _folio(c, 1, A4[0] / 2)
    c.showPage()
    c.save()
    return [(WIND, 1), (SETUP, 1)]


LEAFLET = [
    ("Le but", "Chaque manche, les joueurs tentent de former la plus longue suite de cartes de la même couleur "
               "devant eux avant que la pioche ne soit vide."),
    ("La pioche", "Quand la pioche est vide, mélangez la défausse pour en former une nouvelle, sauf lors de la "
                  "dernière manche où la partie s'arrête aussitôt."),
    ("Les échanges", "Une fois par tour, un joueur peut échanger une carte de sa main contre la carte visible "
                     "du dessus de la défausse de son voisin."),
    ("Le score", "À la fin de la manche, chaque carte de votre plus longue suite rapporte un point et chaque "
                 "carte restée en main en fait perdre un."),
]


def four_columns(path: Path) -> list[tuple[str, int]]:
    """A landscape leaflet of four narrow columns twelve points apart, each a title over its paragraph."""
    from reportlab.pdfgen.canvas import Canvas

    size = (842.0, 595.0)
    c = Canvas(str(path), pagesize=size)
    width, gutter, x = 175.0, 12.0, 40.0
    for title, text in LEAFLET:
        c.setFont("Helvetica-Bold", 13)
        c.drawString(x, 520, title)
        _justified(c, text, x, 495, width)
        x += width + gutter
    _folio(c, 1, size[0] / 2)
    c.showPage()
    c.save()
    return [(text, 1) for _, text in LEAFLET]


LEAD = ("Quand plus personne ne peut jouer,", "la manche s'arrête et chacun compte les cartes de sa plus longue "
        "suite, puis note son score sur la feuille de marque.")


def lead_in(path: Path) -> list[tuple[str, int]]:
    """A paragraph opening with a lead-in set larger and bold, run into its first line."""
    from reportlab.pdfgen.canvas import Canvas

    c = Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica-Bold", 16)
    c.drawString(60, 780, "La manche")
    head, text = LEAD
    c.setFont("Helvetica-Bold", 12.5)
    c.drawString(60, 750, head)
    lead = c.stringWidth(head + " ", "Helvetica-Bold", 12.5)
    first, *rest = _wrap(c, text, "Helvetica", BODY, 300 - lead)
    c.setFont("Helvetica", BODY)
    c.drawString(60 + lead, 750, first)
    _justified(c, " ".join(rest), 60, 750 - BODY * 1.25, 300)
    _justified(c, SETUP, 60, 680, 300)
    _folio(c, 1, A4[0] / 2)
    c.showPage()
    c.save()
    return [(f"{head} {text}", 1), (SETUP, 1)]


def spread(path: Path) -> list[tuple[str, int]]:
    """A booklet exported as spreads: pages 6 and 7 side by side on one landscape PDF page, each with its folio."""
    from reportlab.pdfgen.canvas import Canvas

    size = (2 * A4[0], A4[1])
    c = Canvas(str(path), pagesize=size)
    for i, (title, text) in enumerate([("Mise en place", SETUP), ("Fin de partie", END)]):
        x = 60 + i * A4[0]
        c.setFont("Helvetica-Bold", 16)
        c.drawString(x, 780, title)
        _justified(c, text, x, 750, 300)
        _folio(c, 6 + i, x + 240)
    c.showPage()
    c.save()
    return [(SETUP, 6), (END, 7)]


def indented_paragraphs(path: Path) -> list[tuple[str, int]]:
    """Paragraphs set as a book sets them (LaTeX's default): no space between them, each first line indented,
    every line but the last justified; a reader that takes a block of lines for one paragraph runs them together."""
    from reportlab.pdfgen.canvas import Canvas

    c = Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica-Bold", 16)
    c.drawString(60, 780, "Mise en place")
    y, width, indent = 750.0, 300.0, 15.0
    # A one-line paragraph first: the next one starts at the same indent, under a short line.
    for text in (FIRST, SETUP, TURN):
        first = _wrap(c, text, "Helvetica", BODY, width - indent)[0]
        rest = _wrap(c, text[len(first):].strip(), "Helvetica", BODY, width)
        for i, line in enumerate([first] + rest):
            x, room = (60 + indent, width - indent) if i == 0 else (60, width)
            words = line.split()
            widths = [c.stringWidth(w, "Helvetica", BODY) for w in words]
            last = i == len(rest)
            gap = c.stringWidth(" ", "Helvetica", BODY) if last or len(words) < 2 else \
                (room - sum(widths)) / (len(words) - 1)
            c.setFont("Helvetica", BODY)
            for word, w in zip(words, widths):
                c.drawString(x, y, word)
                x += w + gap
            y -= BODY * 1.25
    _folio(c, 1, A4[0] / 2)
    c.showPage()
    c.save()
    return [(FIRST, 1), (SETUP, 1), (TURN, 1)]


# Set line by line, as the card texts are: one sentence in each column wraps, the rows share their baselines.
VILLAGER_LINES = ["Il n'a aucune compétence", "particulière, il vote avec", "Thiercelieux chaque jour."]
WITCH_LINES = ["La Sorcière doit utiliser", "chaque potion une fois à", "Thiercelieux, à la nuit."]
VILLAGER, WITCH = " ".join(VILLAGER_LINES), " ".join(WITCH_LINES)
POTION = "une potion de guérison, pour ressusciter le joueur tué par les Loups-Garous,"


def narrow_columns(path: Path) -> list[tuple[str, int]]:
    """Two narrow columns of prose side by side on the same baselines (a role card's text beside another's), and a
    bullet whose item wraps under the bullet itself, as a narrow column of a leaflet sets it."""
    from reportlab.pdfgen.canvas import Canvas

    c = Canvas(str(path), pagesize=A4)
    c.setFont("Helvetica-Bold", 16)
    c.drawString(60, 780, "Les personnages")
    size, width = 9.0, 120.0
    for x, lines in ((60, VILLAGER_LINES), (200, WITCH_LINES)):
        y = 750.0
        for line in lines:
            c.setFont("Helvetica", size)
            c.drawString(x, y, line)
            y -= size * 1.2
    y = 650.0
    for line in _wrap(c, "• " + POTION, "Helvetica", size, width):
        c.setFont("Helvetica", size)
        c.drawString(60, y, line)
        y -= size * 1.2
    _folio(c, 1, A4[0] / 2)
    c.showPage()
    c.save()
    return [(VILLAGER, 1), (WITCH, 1)]
