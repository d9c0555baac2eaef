"""Rulebook PDFs generated for the tests and the import benchmark (never committed, never downloaded).

Two producers: reportlab (exact control of every line: page labels, printed numbers, two columns, a
hyphenated line end, a paragraph across a page break) and Debian's chromium through Playwright (CSS
columns, running header and footer from the print templates). Each generator returns the ground truth:
the paragraphs as the importer should write them, with the printed pages they are on.
"""

from dataclasses import dataclass
from pathlib import Path

W, H = 595.0, 842.0  # A4 in points
MARGIN, GUTTER = 56.0, 24.0
TITLE = "Zorglub"
RUNNING_HEADER = "Zorglub · Règles du jeu"


@dataclass(frozen=True)
class Expected:
    text: str  # as the importer writes it, without the page marker
    pages: tuple[int, ...]
    kind: str = "p"  # "h1", "h2", "p" or "li"


# One printed page = two columns; a column = blocks (kind, drawn lines). A block whose kind ends with
# "+" continues the previous page's last paragraph (a paragraph across a page break).
FRONT = [[("h1", ["Sommaire"]), ("p", ["Mise en place, matériel et tour de jeu."])], []]
BODY = [
    [
        [
            ("h1", ["Mise en place"]),
            ("p", ["Chaque joueur prend un plateau individuel", "et le place devant lui."]),
            ("h2", ["Le matériel"]),
            ("li", ["• 48 cartes Zorglub"]),
            ("li", ["• 6 dés spéciaux à huit faces"]),
            ("li", ["• 1 sac en tissu pour les jetons"]),
        ],
        [
            ("p", ["Les cartes restantes forment la pile de dé-", "fausse, face visible, au centre."]),
            ("p", ["Le joueur le plus jeune commence ; c'est peut-", "être le plus rusé de la table."]),
            ("p", ["La partie se déroule en plusieurs manches", "successives, chacune"]),
        ],
    ],
    [
        [
            ("p+", ["composée de trois phases jouées dans l'ordre."]),
            ("h1", ["Tour de jeu"]),
            ("p", ["À ton tour, lance les dés spéciaux puis", "choisis une carte de la rivière."]),
            ("h2", ["Les jetons bonus"]),
            ("p", ["Un jeton bonus rapporte deux points à la fin", "de la partie s'il est encore face cachée."]),
        ],
        [
            ("p", ["Quand la pioche est vide, mélange la", "défausse pour former une nouvelle pioche."]),
            ("h2", ["Le voleur"]),
            ("p", ["Le voleur prend une carte au hasard dans", "la main du joueur de son choix."]),
        ],
    ],
    [
        [
            ("h1", ["Fin de partie"]),
            ("p", ["La partie s'arrête dès qu'un joueur possède", "sept cartes de la même couleur."]),
            ("p", ["Chaque carte Zorglub vaut trois points et", "chaque dé doré un point supplémentaire."]),
        ],
        [
            ("h2", ["Égalité"]),
            ("p", ["En cas d'égalité, le joueur qui possède le", "plus de jetons bonus l'emporte."]),
            ("h2", ["Points de victoire"]),
            ("row", [("Carte Zorglub", "3 points"), ("Dé doré", "1 point"), ("Jeton bonus caché", "2 points")]),
        ],
    ],
]

EXPECTED = [
    Expected("Mise en place", (1,), "h1"),
    Expected("Chaque joueur prend un plateau individuel et le place devant lui.", (1,)),
    Expected("Le matériel", (1,), "h2"),
    Expected("48 cartes Zorglub", (1,), "li"),
    Expected("6 dés spéciaux à huit faces", (1,), "li"),
    Expected("1 sac en tissu pour les jetons", (1,), "li"),
    Expected("Les cartes restantes forment la pile de défausse, face visible, au centre.", (1,)),
    Expected("Le joueur le plus jeune commence ; c'est peut-être le plus rusé de la table.", (1,)),
    Expected("La partie se déroule en plusieurs manches successives, chacune composée de trois phases "
             "jouées dans l'ordre.", (1, 2)),
    Expected("Tour de jeu", (2,), "h1"),
    Expected("À ton tour, lance les dés spéciaux puis choisis une carte de la rivière.", (2,)),
    Expected("Les jetons bonus", (2,), "h2"),
    Expected("Un jeton bonus rapporte deux points à la fin de la partie s'il est encore face cachée.", (2,)),
    Expected("Quand la pioche est vide, mélange la défausse pour former une nouvelle pioche.", (2,)),
    Expected("Le voleur", (2,), "h2"),
    Expected("Le voleur prend une carte au hasard dans la main du joueur de son choix.", (2,)),
    Expected("Fin de partie", (3,), "h1"),
    Expected("La partie s'arrête dès qu'un joueur possède sept cartes de la même couleur.", (3,)),
    Expected("Chaque carte Zorglub vaut trois points et chaque dé doré un point supplémentaire.", (3,)),
    Expected("Égalité", (3,), "h2"),
    Expected("En cas d'égalité, le joueur qui possède le plus de jetons bonus l'emporte.", (3,)),
    Expected("Points de victoire", (3,), "h2"),
    # A table (cells aligned in columns, no rules, no header): one passage per row, its cells kept apart.
    Expected("Carte Zorglub ; 3 points", (3,), "row"),
    Expected("Dé doré ; 1 point", (3,), "row"),
    Expected("Jeton bonus caché ; 2 points", (3,), "row"),
]

STYLE = {"h1": ("Helvetica-Bold", 16, 24), "h2": ("Helvetica-Bold", 12, 18), "p": ("Helvetica", 10, 13),
         "li": ("Helvetica", 10, 13), "row": ("Helvetica", 10, 14)}


def _draw_column(c, blocks, x):
    y = H - MARGIN - 20
    for kind, lines in blocks:
        font, size, lead = STYLE[kind.rstrip("+")]
        c.setFont(font, size)
        for line in lines:
            y -= lead
            if kind == "row":  # a table row: cells in two aligned columns, far apart
                c.drawString(x, y, line[0])
                c.drawString(x + 130, y, line[1])
            else:
                c.drawString(x, y, line)
        y -= 6  # the gap that separates paragraphs


def reportlab_rulebook(path: Path, *, labels: bool = True, cover: bool = True, repeat: int = 1) -> list[Expected]:
    """Cover (no number), one roman front-matter page, then arabic pages 1..N in two columns, with a running
    header and printed page numbers in the footer. `labels` adds the PDF's page labels (Couverture, i, 1...);
    `repeat` repeats the body pages (for the benchmark); page numbers go on."""
    from reportlab.pdfgen.canvas import Canvas

    c = Canvas(str(path), pagesize=(W, H))
    c.setAuthor("rulesqa tests")
    col_w = (W - 2 * MARGIN - GUTTER) / 2
    if cover:
        c.setFont("Helvetica-Bold", 40)
        c.drawCentredString(W / 2, H / 2, TITLE.upper())
        c.setFont("Helvetica", 14)
        c.drawCentredString(W / 2, H / 2 - 40, "Un jeu de cartes et de dés")
        c.showPage()
    pages = [("i", FRONT)] + [(str(n + 1), page) for n, page in enumerate(BODY * repeat)]
    for printed, columns in pages:
        c.setFont("Helvetica-Oblique", 8)
        c.drawString(MARGIN, H - 30, RUNNING_HEADER)
        c.drawRightString(W - MARGIN, H - 30, "Édition 2026")
        c.setFont("Helvetica", 9)
        c.drawCentredString(W / 2, 28, printed)
        for i, blocks in enumerate(columns):
            _draw_column(c, blocks, MARGIN + i * (col_w + GUTTER))
        c.showPage()
    if labels:
        first = 1 if cover else 0
        if cover:
            c.addPageLabel(0, prefix="Couverture")
        c.addPageLabel(first, style="ROMAN_LOWER", start=1)
        c.addPageLabel(first + 1, style="ARABIC", start=1)
    c.save()
    expected = []
    for r in range(repeat):
        shift = r * len(BODY)
        expected += [Expected(e.text, tuple(p + shift for p in e.pages), e.kind) for e in EXPECTED]
    return expected


CHROMIUM_HTML = """<!doctype html><html lang="fr"><head><meta charset="utf-8"><style>
@page { size: A4; margin: 25mm 18mm 22mm 18mm; }
body { font-family: 'DejaVu Sans', sans-serif; font-size: 10pt; line-height: 1.35; margin: 0; }
section { columns: 2; column-gap: 10mm; } section + section { break-before: page; }
h1 { font-size: 17pt; margin: 0 0 6pt; } h2 { font-size: 12.5pt; margin: 8pt 0 4pt; }
p { margin: 0 0 7pt; }
.li { margin: 0 0 3pt; }
</style></head><body><section>
<h1>Préparer la partie</h1>
<p>Posez le plateau central au milieu de la table et mélangez les tuiles rivière face cachée.</p>
<h2>Le matériel des joueurs</h2>
<p class="li">• un paravent par joueur</p><p class="li">• quatre explorateurs de sa couleur</p>
<p>Le premier joueur reçoit le jeton de capitaine et le garde pendant toute la manche.</p>
</section><section><h1>Déroulement</h1>
<p>À son tour, un joueur pioche une tuile rivière et la pose à côté d'une tuile déjà en jeu.</p>
<p>Une pirogue ne peut jamais traverser une cascade, même si un pouvoir le permettrait autrement.</p>
<h2>Les trésors</h2>
<p>Chaque trésor découvert est placé derrière le paravent de son propriétaire jusqu'à la fin.</p>
</section><section><h1>Décompte final</h1>
<p>Le joueur qui totalise le plus de points de trésor remporte la partie et devient capitaine.</p>
</section></body></html>"""

CHROMIUM_EXPECTED = [
    Expected("Préparer la partie", (1,), "h1"),
    Expected("Posez le plateau central au milieu de la table et mélangez les tuiles rivière face cachée.", (1,)),
    Expected("Le matériel des joueurs", (1,), "h2"),
    Expected("un paravent par joueur", (1,), "li"),
    Expected("quatre explorateurs de sa couleur", (1,), "li"),
    Expected("Le premier joueur reçoit le jeton de capitaine et le garde pendant toute la manche.", (1,)),
    Expected("Déroulement", (2,), "h1"),
    Expected("À son tour, un joueur pioche une tuile rivière et la pose à côté d'une tuile déjà en jeu.", (2,)),
    Expected("Une pirogue ne peut jamais traverser une cascade, même si un pouvoir le permettrait autrement.",
             (2,)),
    Expected("Les trésors", (2,), "h2"),
    Expected("Chaque trésor découvert est placé derrière le paravent de son propriétaire jusqu'à la fin.", (2,)),
    Expected("Décompte final", (3,), "h1"),
    Expected("Le joueur qui totalise le plus de points de trésor remporte la partie et devient capitaine.",
             (3,)),
]


def chromium_rulebook(path: Path) -> list[Expected]:
    """Chromium's print-to-PDF: CSS page margins, two CSS columns, the running header and the page number
    printed by chromium's own header/footer templates (no page labels)."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.set_content(CHROMIUM_HTML)
        page.pdf(
            path=str(path), format="A4", display_header_footer=True, prefer_css_page_size=True,
            header_template='<div style="font-size:8px;width:100%;text-align:center">Jungle · Règles</div>',
            footer_template='<div style="font-size:9px;width:100%;text-align:center">'
                            '<span class="pageNumber"></span></div>',
        )
        browser.close()
    return CHROMIUM_EXPECTED


def scanned_rulebook(source: Path, path: Path, dpi: int = 150, pages: int | None = None) -> None:
    """`source`'s pages rendered to images and wrapped into an image-only PDF (no text layer): a scan."""
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(source))
    try:
        count = len(doc) if pages is None else min(pages, len(doc))
        images = [doc[i].render(scale=dpi / 72).to_pil().convert("RGB") for i in range(count)]
    finally:
        doc.close()
    images[0].save(path, "PDF", resolution=dpi, save_all=True, append_images=images[1:])
