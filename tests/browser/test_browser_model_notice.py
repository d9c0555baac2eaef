"""The notice the served model's terms ask for (GET /api/config's model_notice) in chromium: the table page's
footer and the widget's panel show it, with its links, when the server's model is Gemma-like, and nothing when
it is not; axe-core passes with it shown; a page that met a starting server asks again after an answer."""

# ruff: noqa: F811  (the shared fixtures imported below are requested by name)
import pytest

from tests.browser.support import assert_accessible, new_page
from tests.browser.test_browser_pages import (  # noqa: F401  (fixtures and helpers shared with the page tests)
    GOLD, LiveServer, api, ask_in_widget, ask_on_table, expect, host_site, open_widget,
)
from tests.notice_fakes import PROHIBITED_USE_URL, REQUIRED, TERMS_URL, gemma_like, one_game_index

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def gemma_api(tmp_path_factory):
    """The API over Karuba indexed with a fake embedder described as EmbeddingGemma."""
    from service.engine.calibration import Calibration
    from service.engine.decide.abstention import AbstentionPolicy
    from service.runtime.settings import Settings
    from service.web.app import create_app
    from tests.fakes import fake_answerer

    index = one_game_index(tmp_path_factory.mktemp("gemma-like"), gemma_like())
    answerer = fake_answerer(index, Calibration(abstention=AbstentionPolicy(threshold=0.2)), embedder=gemma_like())
    server = LiveServer(create_app(Settings(index_dir=index, cors_origins=["*"]), answerer)).start()
    yield server
    server.stop()


def assert_gemma_notice(notice) -> None:
    expect(notice).to_be_visible()
    expect(notice).to_contain_text("Réponses trouvées avec EmbeddingGemma (Google).")
    expect(notice).to_contain_text(REQUIRED)
    terms = notice.get_by_role("link", name="Conditions d'utilisation de Gemma")
    prohibited = notice.get_by_role("link", name="Usages interdits")
    expect(terms).to_have_attribute("href", TERMS_URL)
    expect(prohibited).to_have_attribute("href", PROHIBITED_USE_URL)
    expect(terms).to_have_attribute("rel", "noopener noreferrer")


def starting_then_ready(page):
    """GET /api/config answers as a starting server the first time (no notice yet, `ready: false`), then as
    the server does; returns the list of /api/config requests seen."""
    seen = []

    def config(route):
        response = route.fetch()
        seen.append(route.request.url)
        body = response.json()
        route.fulfill(response=response, json={**body, "model_notice": None, "ready": False} if len(seen) == 1
                      else body)

    page.route("**/api/config", config)
    return seen


def test_table_page_shows_the_gemma_notice_in_its_footer(audit, gemma_api):
    page = audit
    page.goto(gemma_api.url + "/")
    notice = page.locator("footer #model-notice")
    assert_gemma_notice(notice)
    assert_accessible(page, "table page with the model's notice")


def test_table_page_notice_passes_axe_in_the_dark(browser, gemma_api):
    page = new_page(browser, color_scheme="dark", bypass_csp=True)
    page.goto(gemma_api.url + "/")
    assert_gemma_notice(page.locator("#model-notice"))
    assert_accessible(page, "table page with the model's notice, dark")
    page.probe.assert_clean()
    page.context.close()


def test_table_page_shows_no_notice_when_the_model_asks_none(page, api):
    with page.expect_response(lambda r: r.url.endswith("/api/config")) as info:
        page.goto(api.url + "/")
    assert info.value.json()["model_notice"] is None
    expect(page.locator("#model-notice")).to_be_hidden()
    expect(page.locator("#model-notice a")).to_have_count(0)


def test_table_page_asks_again_after_an_answer_when_the_server_was_starting(page, gemma_api):
    seen = starting_then_ready(page)
    page.goto(gemma_api.url + "/")
    expect(page.get_by_label("Votre question")).to_have_attribute("maxlength", "1000")  # the limits applied
    expect(page.locator("#model-notice")).to_be_hidden()
    ask_on_table(page, GOLD)
    expect(page.locator("#result")).to_contain_text("pépite")
    assert_gemma_notice(page.locator("#model-notice"))
    assert len(seen) == 2


def test_widget_shows_the_gemma_notice_in_its_panel(audit, gemma_api, host_site):
    page = audit
    page.goto(host_site.publish("gemma", gemma_api.url, attrs='data-game="karuba"'))
    host = open_widget(page)
    notice = host.locator(".panel .model-notice")
    assert_gemma_notice(notice)
    assert_accessible(page, "widget open with the model's notice")
    ask_in_widget(host, GOLD)
    expect(host.locator(".bubble.bot").nth(1)).to_contain_text("2 points par pépite d'or")
    assert_gemma_notice(notice)


def test_widget_shows_no_notice_when_the_model_asks_none(page, api, host_site):
    page.goto(host_site.publish("e5", api.url, attrs='data-game="karuba"'))
    with page.expect_response(lambda r: r.url.endswith("/api/config")) as info:
        host = open_widget(page)
    assert info.value.json()["model_notice"] is None
    expect(host.locator(".model-notice")).to_be_hidden()
    expect(host.locator(".model-notice a")).to_have_count(0)


def test_widget_asks_again_after_an_answer_when_the_server_was_starting(page, gemma_api, host_site):
    seen = starting_then_ready(page)
    page.goto(host_site.publish("demarrage", gemma_api.url, attrs='data-game="karuba"'))
    host = open_widget(page)
    expect(host.get_by_label("Votre question")).to_have_attribute("maxlength", "1000")
    expect(host.locator(".model-notice")).to_be_hidden()
    ask_in_widget(host, GOLD)
    expect(host.locator(".bubble.bot").nth(1)).to_contain_text("2 points par pépite d'or")
    assert_gemma_notice(host.locator(".model-notice"))
    assert len(seen) == 2
