"""A rulebook written as a web page with the browser's default styles (no stylesheet, or one line of it),
printed by Debian's chromium through Playwright, its footer on ("2/5"): the way a player prints an online
manual. Used by tests/indexer/pdf/test_web_layouts.py."""

from pathlib import Path


def print_html(html: str, path: Path) -> Path:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox", "--disable-gpu"])
        page = browser.new_page()
        page.set_content(html)
        page.pdf(path=str(path), format="A4", display_header_footer=True,
                 header_template="<span></span>",
                 footer_template='<div style="font-size:9px;width:100%;text-align:center"><span class="pageNumber">'
                                 '</span>/<span class="totalPages"></span></div>')
        browser.close()
    return path


INTRO_PARAGRAPHS = (
    "Conquête est un jeu de stratégie pour deux à six joueurs, où chacun tente de dominer le monde en plaçant ses "
    "armées sur les territoires. Les joueurs jouent chacun leur tour, dans le sens des aiguilles d'une montre, "
    "jusqu'à ce qu'un seul joueur contrôle tous les continents.",
    "La partie dure environ une heure. Chaque joueur reçoit au début de la partie une couleur, les armées de "
    "cette couleur et une carte d'objectif qu'il garde secrète jusqu'à la fin.")
INTRO = "<h1>Conquête</h1>" + "".join(f"<p>{p}</p>" for p in INTRO_PARAGRAPHS)


def page(body: str, title: str = "Conquête", style: str = "") -> str:
    """A web page: the rulebook's opening paragraphs (what every manual has around its lists and tables), then
    `body`."""
    return (f'<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>{title}</title>'
            f"<style>{style}</style></head><body>{INTRO}{body}</body></html>")


def filler(n: int, topic: str = "le joueur actif") -> str:
    """Paragraphs that push what follows onto the next pages (so that running headers repeat)."""
    return "".join(f"<p>Règle de remplissage {i} : {topic} pioche une carte, la regarde puis la pose devant lui "
                   "avant de passer la main à son voisin de gauche.</p>" for i in range(n))
