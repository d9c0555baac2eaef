"""The cited page of a PDF rulebook, one tap away: a chip of a PDF-backed game opens the page image in a
viewer, the passage highlighted, on the table page and in the widget; Markdown-only games keep plain chips.

The API serves a corpus of Karuba (Markdown only) and Zorglub, imported from a generated two-column PDF.
"""

# ruff: noqa: F811  (the shared fixtures `page`, `browser`, `host_site` are imported, then requested by name)
import shutil

import pytest

from testbed import pdf_fixtures
from tests.browser.support import assert_accessible, new_page
from tests.browser.test_browser_pages import (  # noqa: F401  (fixtures and helpers shared with the page tests)
    GOLD, LiveServer, ask_in_widget, ask_on_table, expect, host_site, open_widget, save_screenshot,
)
from tests.fakes import CORPUS, FakeEmbedder, fake_answerer

pytestmark = pytest.mark.browser

ZORGLUB = "Quand la partie s'arrête-t-elle ? Combien de cartes de la même couleur ?"


@pytest.fixture(scope="module")
def pdf_api(tmp_path_factory):
    from indexer.build import build_index
    from indexer.pdf import import_pdf
    from service.engine.decide.abstention import AbstentionPolicy
    from service.web.app import create_app
    from service.engine.calibration import Calibration
    from service.runtime.settings import Settings

    root = tmp_path_factory.mktemp("pdf-api")
    corpus = root / "corpus"
    corpus.mkdir()
    shutil.copy(CORPUS / "karuba.md", corpus)
    pdf = root / "livret.pdf"
    pdf_fixtures.reportlab_rulebook(pdf)
    import_pdf(pdf, corpus, "zorglub", "Zorglub")
    build_index(corpus, root / "index", FakeEmbedder(), progress=False)
    answerer = fake_answerer(root / "index", Calibration(abstention=AbstentionPolicy(threshold=0.2)))
    server = LiveServer(create_app(Settings(index_dir=root / "index", corpus_dir=corpus, cors_origins=["*"]),
                                   answerer)).start()
    yield server
    server.stop()


def _loaded(img) -> bool:
    return img.evaluate("el => el.complete && el.naturalWidth > 0")


def test_table_page_chip_opens_the_cited_page(page, pdf_api):
    page.goto(pdf_api.url + "/")
    ask_on_table(page, ZORGLUB, "Zorglub")
    result = page.locator("#result")
    expect(result).to_contain_text("sept cartes de la même couleur")
    chip = result.locator(".citation .chip-page")
    expect(chip).to_contain_text("p. 3")
    with page.expect_response(lambda r: "/api/games/zorglub/pages/3?passage=zorglub-" in r.url) as info:
        chip.click()
    assert info.value.status == 200 and info.value.headers["content-type"] == "image/webp"
    viewer = page.locator(".page-viewer")
    expect(viewer).to_be_visible()
    expect(viewer.locator(".page-viewer-title")).to_have_text("Zorglub, livret p. 3")
    img = viewer.locator("img")
    page.wait_for_function("document.querySelector('.page-viewer img').naturalWidth > 0")
    assert _loaded(img)
    # The page fills the phone's width; "+" doubles it (pinch-zoom works on top of it).
    width = img.evaluate("el => el.getBoundingClientRect().width")
    viewer.get_by_role("button", name="Agrandir").click()
    assert img.evaluate("el => el.getBoundingClientRect().width") > 1.8 * width
    save_screenshot(page, "page-viewer.png", docs=False)
    viewer.get_by_role("button", name="Fermer la page").click()
    expect(viewer).to_be_hidden()
    expect(chip).to_be_focused()

    # A Markdown-only game keeps today's plain chip.
    ask_on_table(page, GOLD, "Karuba")
    expect(result.locator(".citation .chip")).to_contain_text("p. 6")
    expect(result.locator(".chip-page")).to_have_count(0)


def test_widget_chip_opens_the_cited_page(page, pdf_api, host_site):
    url = host_site.publish("zorglub", pdf_api.url, attrs='data-game="zorglub"')
    page.goto(url)
    host = open_widget(page)
    ask_in_widget(host, ZORGLUB)
    answer = host.locator(".bubble.bot").nth(1)
    expect(answer).to_contain_text("sept cartes de la même couleur")
    answer.locator(".meta .chip-page").click()
    viewer = host.locator(".page-viewer")
    expect(viewer).to_be_visible()
    page.wait_for_function(
        "document.getElementById('rulesqa-widget').shadowRoot.querySelector('.page-viewer img').naturalWidth > 0")
    src = viewer.locator("img").get_attribute("src")
    assert src.startswith(pdf_api.url + "/api/games/zorglub/pages/3?passage=")  # cross-origin, from the API
    page.keyboard.press("Escape")
    expect(viewer).to_be_hidden()


def test_page_viewer_passes_axe_and_keeps_the_focus_on_the_page_and_in_the_widget(browser, pdf_api, host_site):
    from tests.browser.test_accessibility import focused

    page = new_page(browser, bypass_csp=True)  # axe is injected; the table page's CSP forbids that
    page.goto(pdf_api.url + "/")
    ask_on_table(page, ZORGLUB, "Zorglub")
    chip = page.locator("#result .citation .chip-page")
    chip.focus()
    page.keyboard.press("Enter")
    viewer = page.locator(".page-viewer")
    expect(viewer).to_be_visible()
    page.wait_for_function("document.querySelector('.page-viewer img').naturalWidth > 0")
    expect(viewer.get_by_role("button", name="Fermer la page")).to_be_focused()
    assert_accessible(page, "table page, page viewer open")
    ring = []
    for _ in range(6):
        page.keyboard.press("Tab")
        ring.append(focused(page))
    # Zoom, close, the scrollable page, and round again: the page behind the viewer is out of reach.
    assert ring[:3] == ["div.page-viewer-scroll [Page du livret]",
                        "button [Agrandir]", "button [Fermer la page]"] and ring[3:] == ring[:3]
    page.keyboard.press("Escape")
    expect(viewer).to_be_hidden()
    expect(chip).to_be_focused()

    page.goto(host_site.publish("zorglub-a11y", pdf_api.url, attrs='data-game="zorglub"'))
    host = open_widget(page)
    ask_in_widget(host, ZORGLUB)
    host.locator(".bubble.bot").nth(1).locator(".meta .chip-page").click()
    page.wait_for_function(
        "document.getElementById('rulesqa-widget').shadowRoot.querySelector('.page-viewer img').naturalWidth > 0")
    assert_accessible(page, "widget, page viewer open")
    page.probe.assert_clean()
    page.context.close()
