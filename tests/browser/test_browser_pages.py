"""The table page (/) and the embeddable widget (/widget.js) in Debian's chromium, driven by Playwright.

The API runs for real (uvicorn in a thread) on the fake embedder; the widget is embedded with one tag in a
page served from another port, so every widget request is a cross-origin (CORS) request.

Answers the real API cannot give on demand (an answer set of three passages, a common-mistake warning, a
refusal) are crafted and fulfilled with `page.route`, on the table page and in the widget alike.
"""

import os
import shutil
import textwrap
import threading
import time
from pathlib import Path

import pytest

sync_api = pytest.importorskip("playwright.sync_api", reason="pip install playwright")
expect = sync_api.expect

import uvicorn  # noqa: E402
from starlette.applications import Starlette  # noqa: E402
from starlette.responses import HTMLResponse, PlainTextResponse  # noqa: E402
from starlette.routing import Route  # noqa: E402

from tests.browser.support import CHROMIUM, CHROMIUM_ARGS, PHONE, new_page  # noqa: E402,F401  (shared)
from tests.fakes import FakeEmbedder  # noqa: E402, fake_answerer
from tests.fakes import REPO  # noqa: E402
from testbed.ports import free_port as _free_port

pytestmark = pytest.mark.browser

ARTIFACTS = REPO / "test-artifacts"
SCREENSHOTS = REPO / "docs" / "screenshots"

GOLD = "Les pépites d'or rapportent combien à la fin ?"
OFF_TOPIC = "Peut-on jouer avec des licornes volantes ?"
XSS = "<img src=x onerror=alert(1)>"
XSS_CORPUS = f"""\
---
id: piege
title: Le Piège {XSS}
players: 2 à 5 {XSS}
duration: 20 min
age: 8 ans et +
---

# Les cartes {XSS}

Q: Que fait la carte piège {XSS} ?
La carte piège {XSS} fait perdre un tour au joueur qui la pioche. (p. 4)

- **Le trésor** Le trésor rapporte 3 points au joueur qui le trouve. (p. 5)
"""

# A host site with aggressive global CSS: none of it may reach the widget, and the widget's own class
# names (.launcher, .bubble, .chip) must not restyle the host's elements either.
HOSTILE_CSS = """<style>
  body { font-family: serif; color: rgb(200, 0, 0); background: #fafafa; }
  button { background: red !important; color: yellow; border: 4px dashed blue; }
  .chip, .bubble { display: none !important; }
  * { letter-spacing: 3px; }
</style>"""
HOSTILE_BODY = """<h1>Le club du jeudi</h1>
<button id="host-button" class="launcher">Bouton du site</button>
<p id="host-bubble" class="bubble user">Un paragraphe du site</p>"""

SHOP_HEAD = """<style>
  body { margin: 0; font-family: Georgia, serif; background: #fbf7f0; color: #2b2118; }
  header { background: #5b3a29; color: #fff; padding: 18px 20px; font-size: 22px; }
  main { padding: 20px; line-height: 1.6; }
  .box { background: #fff; border: 1px solid #eadfce; border-radius: 10px; padding: 16px; margin: 12px 0; }
</style>"""
SHOP_BODY = """<header>La Ludothèque du Coin</header>
<main><h1>Karuba</h1><div class="box">Un jeu de tuiles et de course au trésor pour 2 à 4 joueurs.</div>
<div class="box">En stock : 3 exemplaires. Retrait en boutique.</div></main>"""


# ---------------------------------------------------------------- servers


class LiveServer:
    """An ASGI app served by uvicorn in a background thread, on a free port of 127.0.0.1."""

    def __init__(self, app):
        self.port = _free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning"))
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def start(self) -> "LiveServer":
        self.thread.start()
        deadline = time.monotonic() + 20
        while not self.server.started:
            if not self.thread.is_alive() or time.monotonic() > deadline:
                raise RuntimeError(f"test server did not start on {self.url}")
            time.sleep(0.02)
        return self

    def stop(self) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)


def _api_server(index_dir: Path) -> LiveServer:
    from service.engine.decide.abstention import AbstentionPolicy
    from service.engine.calibration import Calibration
    from service.web.app import create_app
    from service.runtime.settings import Settings
    from tests.fakes import fake_answerer

    answerer = fake_answerer(index_dir, Calibration(abstention=AbstentionPolicy(threshold=0.2)))
    return LiveServer(create_app(Settings(index_dir=index_dir, cors_origins=["*"]), answerer)).start()


@pytest.fixture(scope="module")
def api(fake_index):
    """The API on the real corpus (fake embedder)."""
    server = _api_server(fake_index)
    yield server
    server.stop()


@pytest.fixture(scope="module")
def xss_api(tmp_path_factory):
    """The API on a one-game corpus whose title, section and passages carry an <img onerror> payload."""
    from indexer.build import build_index

    root = tmp_path_factory.mktemp("xss")
    corpus = root / "corpus"
    corpus.mkdir()
    (corpus / "piege.md").write_text(XSS_CORPUS, encoding="utf-8")
    build_index(corpus, root / "index", FakeEmbedder(), progress=False)
    server = _api_server(root / "index")
    yield server
    server.stop()


class HostSite:
    """A stand-in for a shop or club website, on its own port: another origin than the API."""

    def __init__(self):
        self.pages: dict[str, str] = {}
        self.headers: dict[str, dict] = {}
        self.server = LiveServer(Starlette(routes=[Route("/{name}", self._page)]))
        self.url = self.server.url

    async def _page(self, request):
        name = request.path_params["name"]
        html = self.pages.get(name)
        if html is None:
            return PlainTextResponse("absent", status_code=404)
        return HTMLResponse(html, headers=self.headers.get(name))

    def publish(self, name: str, api_url: str, *, attrs: str = "", head: str = "", body: str = "",
                headers: dict | None = None) -> str:
        """A page embedding the widget with ONE tag, as a site owner would (with its own response
        `headers`, a Content-Security-Policy say); returns its URL."""
        self.headers[name] = headers or {}
        tag = f'<script src="{api_url}/widget.js" {attrs} defer></script>'
        self.pages[name] = textwrap.dedent(f"""\
            <!doctype html>
            <html lang="fr"><head><meta charset="utf-8">
            <meta name="viewport" content="width=device-width, initial-scale=1">
            <title>{name}</title>{head}</head>
            <body>{body}
            {tag}
            </body></html>""")
        return f"{self.url}/{name}"


@pytest.fixture(scope="module")
def host_site():
    site = HostSite()
    site.server.start()
    yield site
    site.server.stop()


# ---------------------------------------------------------------- browser

def save_screenshot(page, name: str, *, docs: bool = True) -> Path:
    """A PNG under test-artifacts/; also under docs/screenshots/ when missing there or when asked.

    Rewriting docs/ on every run would dirty the work tree wherever fonts differ from one machine to
    another; RULESQA_UPDATE_SCREENSHOTS=1 refreshes the committed screenshots on purpose.
    """
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    page.screenshot(path=str(path))
    target = SCREENSHOTS / name
    if docs and (os.environ.get("RULESQA_UPDATE_SCREENSHOTS") == "1" or not target.exists()):
        SCREENSHOTS.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, target)
    return path


# ---------------------------------------------------------------- table page helpers

def ask_on_table(page, question: str, game_label: str | None = None):
    if game_label:
        page.get_by_label("Jeu").select_option(label=game_label)
    page.get_by_label("Votre question").fill(question)
    page.get_by_role("button", name="Demander").click()


def wait_for(page, condition, timeout: float = 5.0):
    """Route handlers run while Playwright waits: wait in small steps until `condition()` holds."""
    deadline = time.monotonic() + timeout
    while not condition():
        assert time.monotonic() < deadline, "condition not met in time"
        page.wait_for_timeout(20)


def no_img(page, scope: str = "body") -> int:
    """<img> elements under `scope`, shadow roots included (Playwright's CSS engine pierces open ones)."""
    return page.locator(f"{scope} img").count()


# ---------------------------------------------------------------- (a) table page

def test_table_page_answers_with_the_page_and_remembers_the_game(page, api):
    page.goto(api.url + "/")
    page.get_by_label("Jeu").select_option(label="Karuba")
    card = page.locator("#game-card")
    expect(card).to_be_visible()
    expect(card).to_contain_text("2 à 4 joueurs")
    expect(card).to_contain_text("30 à 40 min")
    expect(card).to_contain_text("8 ans et +")

    ask_on_table(page, GOLD)
    result = page.locator("#result")
    expect(result.locator(".answer-text")).to_contain_text("2 points par pépite d'or")
    expect(result.locator(".citation .chip")).to_contain_text("p. 6")
    expect(result).to_contain_text("Karuba, livret p. 6")
    # Focus moves to the answer (screen readers read it; on phones the keyboard closes).
    expect(page.locator("#result-heading")).to_be_focused()
    # Not sure (the fake embedder's scores are no evidence): the likeliest answer and a choice of three.
    expect(page.get_by_role("status").and_(page.locator("#status"))).to_have_text(
        "Réponse probable : Karuba, livret p. 6. Tu parles de… ?")

    # The passages are there, folded; one opens with the keyboard.
    passages = result.locator("details.passage")
    expect(passages).to_have_count(5)  # all five have a title line: each folds under it
    expect(passages.first.locator(".badge")).to_have_text("Source")
    passages.first.locator("summary").focus()
    page.keyboard.press("Enter")
    expect(passages.first.locator(".passage-body")).to_be_visible()
    page.keyboard.press("Enter")  # and folds again

    page.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
    save_screenshot(page, "table-page.png")

    page.reload()
    expect(page.get_by_label("Jeu")).to_have_value("karuba")
    expect(page.locator("#game-card")).to_contain_text("Rüdiger Dorn · HABA · 2015")


def test_table_page_says_plainly_when_it_is_not_in_the_rules(page, api):
    page.goto(api.url + "/")
    ask_on_table(page, OFF_TOPIC, "Karuba")
    result = page.locator("#result")
    expect(result.get_by_role("heading", name="Ce n'est pas dans les règles")).to_be_visible()
    expect(result).to_contain_text("Je ne trouve pas de réponse à cette question dans les règles de Karuba.")
    expect(result.get_by_role("heading", name="Les passages les plus proches")).to_be_visible()
    expect(result.locator(".passage")).to_have_count(5)
    expect(result.locator(".answer-text")).to_have_count(0)


def test_table_page_detects_the_game_when_none_is_picked(page, api):
    page.goto(api.url + "/")
    expect(page.get_by_label("Jeu")).to_have_value("")
    ask_on_table(page, "Dans Cubirds, quand se termine la partie ?")
    result = page.locator("#result")
    expect(result.locator(".citation .chip")).to_be_visible()
    expect(result).to_contain_text("Jeu reconnu dans la question : Cubirds.")
    # No page in that rulebook: the chip names the section instead.
    expect(result.locator(".citation .chip")).not_to_contain_text("p.")


def test_table_page_shows_loading_while_the_api_works(page, api):
    held = []
    page.route("**/api/ask", lambda route: held.append(route))
    page.goto(api.url + "/")
    ask_on_table(page, GOLD, "Karuba")
    status = page.get_by_role("status").and_(page.locator("#status"))  # the page's own, not an answer's
    expect(status).to_have_text("Je cherche dans les règles…")
    expect(status).to_be_visible()
    expect(page.get_by_role("button", name="Recherche…")).to_be_disabled()
    wait_for(page, lambda: held)
    held[0].continue_()
    expect(page.locator("#result .citation .chip")).to_contain_text("p. 6")
    expect(page.get_by_role("button", name="Demander")).to_be_enabled()


def test_voice_button_only_where_speech_recognition_exists(browser, api):
    page = new_page(browser)
    page.add_init_script("delete window.SpeechRecognition; delete window.webkitSpeechRecognition;")
    page.goto(api.url + "/")
    expect(page.locator("#voice")).to_be_hidden()
    page.context.close()

    # A stand-in recogniser that "hears" one sentence: the button shows and fills the question in French.
    page = new_page(browser)
    page.add_init_script("""
        window.SpeechRecognition = class extends EventTarget {
          start() {
            window.__lang = this.lang;
            const result = Object.assign([{ transcript: "Quand se termine la partie ?" }], { isFinal: true });
            setTimeout(() => {
              this.dispatchEvent(Object.assign(new Event("result"), { results: [result] }));
              this.dispatchEvent(new Event("end"));
            }, 50);
          }
          stop() {}
        };""")
    page.goto(api.url + "/")
    voice = page.get_by_role("button", name="Dicter")
    expect(voice).to_be_visible()
    voice.click()
    expect(page.get_by_label("Votre question")).to_have_value("Quand se termine la partie ?")
    expect(page.get_by_label("Votre question")).to_be_focused()
    assert page.evaluate("window.__lang") == "fr-FR"
    page.probe.assert_clean()
    page.context.close()


# ---------------------------------------------------------------- (d) table page errors

def test_table_page_shows_the_api_message_for_a_bad_question(page, api):
    page.goto(api.url + "/")
    ask_on_table(page, "   ", "Karuba")
    alert = page.get_by_role("alert")
    expect(alert).to_have_text("La question est vide.")
    expect(page.get_by_label("Votre question")).to_be_focused()
    expect(page.locator("#result")).to_be_hidden()


def test_table_page_says_when_the_service_cannot_be_reached(page, api):
    page.goto(api.url + "/")
    expect(page.get_by_label("Jeu").locator("option")).to_have_count(5)
    page.route("**/api/ask", lambda route: route.abort("internetdisconnected"))
    ask_on_table(page, GOLD, "Karuba")
    expect(page.get_by_role("alert")).to_have_text(
        "Impossible de joindre le service. Vérifiez la connexion, puis réessayez.")
    expect(page.get_by_role("button", name="Demander")).to_be_enabled()

    # Back online: the same question goes through and the error disappears.
    page.unroute("**/api/ask")
    page.get_by_role("button", name="Demander").click()
    expect(page.locator("#result .citation .chip")).to_contain_text("p. 6")
    expect(page.locator("#error")).to_be_empty()


# ---------------------------------------------------------------- (b) widget on another origin

def open_widget(page):
    host = page.locator("#rulesqa-widget")
    host.get_by_role("button", name="Ouvrir l'assistant de règles").click()
    expect(host.get_by_role("dialog")).to_be_visible()
    return host


def ask_in_widget(host, question: str):
    host.get_by_label("Votre question").fill(question)
    host.get_by_role("button", name="Envoyer la question").click()


def test_widget_on_another_origin_answers_with_the_page(page, api, host_site):
    url = host_site.publish("club", api.url, attrs='data-game="karuba"', head=HOSTILE_CSS, body=HOSTILE_BODY)
    page.goto(url)
    host = page.locator("#rulesqa-widget")
    assert page.evaluate("document.getElementById('rulesqa-widget').shadowRoot !== null")
    open_widget(page)
    expect(host.get_by_label("Votre question")).to_be_focused()
    expect(host.locator(".subtitle")).to_have_text("Karuba")
    expect(host.get_by_label("Jeu")).to_be_hidden()  # fixed by data-game

    with page.expect_response(lambda r: r.url.endswith("/api/ask")) as info:
        ask_in_widget(host, GOLD)
    response = info.value
    assert response.request.header_value("origin") == host_site.url  # a genuine cross-origin request
    assert response.headers["access-control-allow-origin"] == "*"

    answer = host.locator(".bubble.bot").nth(1)  # after the greeting
    expect(answer).to_contain_text("2 points par pépite d'or")
    expect(answer.locator(".meta .chip")).to_contain_text("p. 6")
    expect(host.locator(".bubble.user")).to_have_text(GOLD)
    expect(host.get_by_label("Votre question")).to_have_value("")

    # A second question: the conversation is kept.
    ask_in_widget(host, OFF_TOPIC)
    expect(host.locator(".bubble.missing")).to_contain_text("Ce n'est pas dans les règles.")
    expect(host.locator(".bubble.user")).to_have_count(2)
    host.locator(".bubble.missing summary").click()
    expect(host.locator(".bubble.missing details li")).to_have_count(5)  # the passages
    expect(host.locator(".bubble.missing .choices li")).to_have_count(3)  # "Tu parles de… ?"

    # The host's CSS does not reach in...
    style = host.get_by_role("button", name="Envoyer la question").evaluate(
        "el => { const s = getComputedStyle(el); return [s.backgroundColor, s.borderStyle]; }")
    assert style[0] != "rgb(255, 0, 0)" and style[1] != "dashed"
    expect(host.locator(".meta .chip").first).to_be_visible()
    assert host.locator(".panel").evaluate("el => getComputedStyle(el).letterSpacing") == "normal"
    assert "serif" != host.locator(".panel").evaluate("el => getComputedStyle(el).fontFamily")
    # ... and the widget's CSS does not reach out.
    own = page.locator("#host-button").evaluate("el => getComputedStyle(el).position")
    assert own == "static"
    expect(page.locator("#host-bubble")).to_be_hidden()  # hidden by the host's own rule only

    # Escape closes and gives the focus back to the launcher; the conversation survives.
    page.keyboard.press("Escape")
    expect(host.get_by_role("dialog")).to_be_hidden()
    launcher = host.get_by_role("button", name="Ouvrir l'assistant de règles")
    expect(launcher).to_be_focused()
    launcher.click()
    expect(host.locator(".bubble.user")).to_have_count(2)


def test_widget_screenshot_on_a_phone(page, api, host_site):
    url = host_site.publish("boutique", api.url, attrs='data-game="karuba"', head=SHOP_HEAD, body=SHOP_BODY)
    page.goto(url)
    host = open_widget(page)
    ask_in_widget(host, GOLD)
    expect(host.locator(".bubble.bot .meta .chip")).to_contain_text("p. 6")
    ask_in_widget(host, "Quand se termine une partie ?")
    expect(host.locator(".bubble.bot .meta .chip")).to_have_count(2)
    expect(host.locator(".bubble.bot").first).to_contain_text("Bonjour ! Une question sur les règles de Karuba ?")
    box = host.get_by_role("dialog").bounding_box()
    assert (box["width"], box["height"]) == (390, 844)  # full screen on phones
    page.evaluate("document.activeElement && document.activeElement.blur()")
    save_screenshot(page, "widget.png")


def test_widget_picks_the_game_and_follows_the_theme(desktop_page, api, host_site):
    page = desktop_page
    url = host_site.publish("theme", api.url, attrs='data-accent="#7c3aed" data-position="left"',
                            head=SHOP_HEAD, body=SHOP_BODY)
    page.goto(url)
    host = page.locator("#rulesqa-widget")
    launcher = host.get_by_role("button", name="Ouvrir l'assistant de règles")
    assert launcher.evaluate("el => getComputedStyle(el).backgroundColor") == "rgb(124, 58, 237)"
    assert launcher.bounding_box()["x"] < 100  # data-position="left"
    open_widget(page)
    picker = host.get_by_label("Jeu")
    expect(picker.locator("option")).to_have_count(5)
    picker.select_option(label="Karuba")
    expect(host.locator(".subtitle")).to_have_text("Karuba")
    ask_in_widget(host, GOLD)
    expect(host.locator(".bubble.bot .meta .chip")).to_contain_text("p. 6")
    panel = host.get_by_role("dialog").bounding_box()
    assert panel["width"] < 500 and panel["x"] < 100  # a floating panel on a desktop, on the left
    save_screenshot(page, "widget-desktop.png", docs=False)

    host.get_by_role("button", name="Fermer", exact=True).click()
    expect(host.get_by_role("dialog")).to_be_hidden()


# ---------------------------------------------------------------- (d) widget errors

def test_widget_shows_the_api_message_and_a_network_failure(page, api, host_site):
    url = host_site.publish("typo", api.url, attrs='data-game="karubaa"')
    page.goto(url)
    host = open_widget(page)
    ask_in_widget(host, GOLD)
    error = host.locator(".bubble.error")
    expect(error).to_contain_text("karubaa")  # the API's 4xx detail, about the unknown game
    expect(error).to_have_attribute("role", "alert")

    page.route("**/api/ask", lambda route: route.abort("internetdisconnected"))
    ask_in_widget(host, GOLD)
    expect(error.last).to_have_text(
        "Impossible de joindre le service de règles. Vérifiez la connexion, puis réessayez.")
    expect(host.get_by_role("button", name="Envoyer la question")).to_be_enabled()


# What the API answers for a game it no longer serves (removed from the index since the page loaded).
UNKNOWN_GAME = {"detail": "jeu inconnu : 'karuba' ; jeux connus : cubirds, cubitos", "code": "unknown_game"}


def test_table_page_unpicks_a_game_the_api_no_longer_knows(page, api):
    page.goto(api.url + "/")
    page.route("**/api/ask", lambda route: route.fulfill(status=404, json=UNKNOWN_GAME))
    ask_on_table(page, GOLD, "Karuba")
    expect(page.get_by_role("alert")).to_have_text("Jeu inconnu : 'karuba' ; jeux connus : cubirds, cubitos.")
    expect(page.get_by_label("Jeu")).to_have_value("")
    expect(page.locator("#game-card")).to_be_hidden()
    page.reload()
    expect(page.get_by_label("Jeu").locator("option")).to_have_count(5)
    expect(page.get_by_label("Jeu")).to_have_value("")  # forgotten, not brought back from the last visit


def test_widget_unpicks_a_game_the_api_no_longer_knows(page, api, host_site):
    page.goto(host_site.publish("retire", api.url))
    host = open_widget(page)
    picker = host.get_by_label("Jeu", exact=True)
    picker.select_option(label="Karuba")
    page.route("**/api/ask", lambda route: route.fulfill(status=404, json=UNKNOWN_GAME))
    ask_in_widget(host, GOLD)
    expect(host.locator(".bubble.error")).to_have_text("Jeu inconnu : 'karuba' ; jeux connus : cubirds, cubitos.")
    expect(picker).to_have_value("")
    expect(host.locator(".subtitle")).to_have_text("Choisissez le jeu ou nommez-le")


def test_widget_shows_a_typing_bubble_while_waiting(page, api, host_site):
    url = host_site.publish("attente", api.url, attrs='data-game="karuba"')
    held = []
    page.route("**/api/ask", lambda route: held.append(route))
    page.goto(url)
    host = open_widget(page)
    ask_in_widget(host, GOLD)
    expect(host.locator(".bubble.typing")).to_have_text("Je cherche dans les règles…")
    expect(host.get_by_role("button", name="Envoyer la question")).to_be_disabled()
    wait_for(page, lambda: held)
    held[0].continue_()
    expect(host.locator(".bubble.typing")).to_have_count(0)
    expect(host.locator(".bubble.bot .meta .chip")).to_contain_text("p. 6")


# ---------------------------------------------------------------- (c) rulebook text is never markup

def test_table_page_shows_markup_from_the_rulebook_as_text(page, xss_api):
    page.goto(xss_api.url + "/")
    page.get_by_label("Jeu").select_option("piege")
    expect(page.locator("#game-title")).to_have_text(f"Le Piège {XSS}")
    expect(page.locator("#game-facts")).to_contain_text(f"2 à 5 {XSS} joueurs")
    ask_on_table(page, "Que fait la carte piège ?")
    result = page.locator("#result")
    expect(result.locator(".answer-text")).to_contain_text(f"La carte piège {XSS} fait perdre un tour")
    expect(result.locator(".citation .chip")).to_contain_text(f"Le Piège {XSS}, livret p. 4")
    result.locator("details.passage summary").first.click()
    expect(result.locator(".passage-body").first).to_contain_text(XSS)
    page.wait_for_timeout(300)  # an injected <img src=x> would have failed to load and fired by now
    assert no_img(page) == 0
    page.probe.assert_clean()


def test_widget_shows_markup_from_the_rulebook_as_text(page, xss_api, host_site):
    url = host_site.publish("piege", xss_api.url, attrs='data-game="piege"')
    page.goto(url)
    host = open_widget(page)
    ask_in_widget(host, f"Que fait la carte piège {XSS} ?")
    expect(host.locator(".bubble.user")).to_have_text(f"Que fait la carte piège {XSS} ?")
    answer = host.locator(".bubble.bot").last
    expect(answer.locator(".answer")).to_contain_text(f"La carte piège {XSS} fait perdre un tour")
    expect(host.locator(".subtitle")).to_have_text(f"Le Piège {XSS}")
    answer.locator("summary").click()
    expect(answer.locator("li").first).to_contain_text(XSS)
    page.wait_for_timeout(300)
    assert no_img(page) == 0
    assert page.evaluate("document.getElementById('rulesqa-widget').shadowRoot.querySelectorAll('img').length") == 0
    page.probe.assert_clean()


# ---------------------------------------------------------------- (e) one core, served once

STATIC = REPO / "service" / "web" / "static"


def test_widget_is_one_script_holding_the_core(page, api, host_site):
    body = page.request.get(api.url + "/widget.js")
    assert body.ok and body.headers["content-type"].startswith("text/javascript")
    script = body.text()
    for part in ("core.js", "widget.js"):  # whole, and once
        text = (STATIC / part).read_text(encoding="utf-8").strip()
        assert script.count(text) == 1, f"{part} is not in /widget.js exactly once"
    assert script.index("const RulesqaCore") < script.index("rulesqa chat widget")

    requests = []
    page.on("request", lambda r: requests.append(r.url) if r.url.startswith(api.url) else None)
    page.goto(host_site.publish("un-tag", api.url, attrs='data-game="karuba"'))
    host = open_widget(page)
    ask_in_widget(host, GOLD)
    expect(host.locator(".bubble.bot .meta .chip")).to_contain_text("p. 6")
    scripts = [u for u in requests if u.endswith(".js")]
    assert scripts == [api.url + "/widget.js"]  # the one tag, nothing else to load
    # The core lives inside the widget's function: the host page gets no global from it.
    assert page.evaluate("typeof RulesqaCore") == "undefined"


def test_table_page_loads_the_core_before_its_own_script_and_no_copy_of_it(page, api):
    page.goto(api.url + "/")
    srcs = page.locator("script[src]").evaluate_all("nodes => nodes.map(n => n.getAttribute('src'))")
    assert srcs == ["/static/core.js", "/static/app.js"]
    for part in ("app.js", "widget.js"):  # the helpers they share live in core.js only
        text = (STATIC / part).read_text(encoding="utf-8")
        assert "function el(" not in text and "function chip(" not in text and "async function api(" not in text


# ---------------------------------------------------------------- (f) limits from GET /api/config

def serve_config(page, **changes):
    """GET /api/config as the server says, with `changes`; returns the requests to /api/ask seen."""
    def config(route):
        response = route.fetch()
        route.fulfill(response=response, json={**response.json(), **changes})

    asked = []
    page.route("**/api/config", config)
    page.on("request", lambda r: asked.append(r) if r.url.endswith("/api/ask") else None)
    return asked


def test_table_page_takes_the_question_limit_from_the_server(page, api):
    page.goto(api.url + "/")
    expected = page.request.get(api.url + "/api/config").json()["max_question_chars"]
    expect(page.get_by_label("Votre question")).to_have_attribute("maxlength", str(expected))

    asked = serve_config(page, max_question_chars=40)
    page.reload()
    question = page.get_by_label("Votre question")
    expect(question).to_have_attribute("maxlength", "40")
    # Dictation (or a script) can set a longer text than maxlength lets one type: checked before sending.
    question.evaluate("(el) => { el.value = 'x'.repeat(60); }")
    page.get_by_role("button", name="Demander").click()
    expect(page.get_by_role("alert")).to_have_text("La question est trop longue (60 caractères, maximum 40).")
    expect(question).to_be_focused()
    page.wait_for_timeout(200)
    assert asked == []


def test_widget_takes_the_question_limit_from_the_server(page, api, host_site):
    asked = serve_config(page, max_question_chars=40)
    page.goto(host_site.publish("limite", api.url, attrs='data-game="karuba"'))
    host = open_widget(page)
    field = host.get_by_label("Votre question")
    expect(field).to_have_attribute("maxlength", "40")
    field.evaluate("(el) => { el.value = 'é'.repeat(41); }")
    host.get_by_role("button", name="Envoyer la question").click()
    expect(host.locator(".bubble.error")).to_have_text("La question est trop longue (41 caractères, maximum 40).")
    expect(field).to_have_value("é" * 41)  # kept, to be shortened
    expect(host.locator(".bubble.user")).to_have_count(0)
    page.wait_for_timeout(200)
    assert asked == []


# ---------------------------------------------------------------- (g) the answer as the server cites it

WARNING = f"On ne pose pas de tuile sur un temple {XSS}."


def _passage(pid, section, pages, text, citation, short):
    return {"id": pid, "game": "karuba", "section": section, "pages": pages, "text": text, "score": 0.9,
            "citation": citation, "short_citation": short}


# The quoted passage's pages say [6] but the server cites "p. 99": the chip must show the server's citation.
CRAFTED_PASSAGES = [
    _passage("karuba-a", "Comment on gagne", [6], "Aux points\nDeux points par pépite d'or.",
             "Karuba, livret p. 99", "p. 99"),
    _passage("karuba-b", "Fin de partie", [7], "Fin\nLa partie s'arrête.", "Karuba, livret p. 7", "p. 7"),
    _passage("karuba-c", "Les aventuriers", [], "Un aventurier avance.", "Karuba, section Les aventuriers",
             "Les aventuriers"),
    _passage("karuba-d", "Erreurs fréquentes", [8], "Temple\n" + WARNING, "Karuba, livret p. 8", "p. 8"),
]
CRAFTED_FOUND = {
    "question": GOLD, "game": {"id": "karuba", "title": "Karuba"}, "game_detected": False, "found": True,
    "answer": {"text": "Deux points par pépite d'or.", "citation": "Karuba, livret p. 99",
               "passage_id": "karuba-a", "passage_ids": ["karuba-a", "karuba-b", "karuba-c"]},
    "message": "Réponse trouvée : Karuba, livret p. 99.",
    "passages": CRAFTED_PASSAGES,
    "refusal": None,
    "warning": {"text": WARNING, "citation": "Karuba, livret p. 8", "passage_id": "karuba-d"},
}
REFUSAL = "Cette question porte sur un autre jeu que Karuba."
CRAFTED_REFUSED = {
    **CRAFTED_FOUND, "found": False, "answer": None, "warning": None,
    "message": "Je ne trouve pas de réponse à cette question dans les règles de Karuba.",
    "refusal": {"reason": "other_game", "message": REFUSAL},
}


def serve_answer(page, answer: dict):
    """/api/ask goes to the real server (CORS headers and all) and comes back as `answer`."""
    page.route("**/api/ask", lambda route: route.fulfill(response=route.fetch(), json=answer))


def assert_answer_set(scope, answer_chip: str):
    """The quoted chip as the server cites it, the other two under "Voir aussi", the common mistake."""
    expect(scope.locator(answer_chip)).to_contain_text("p. 99")
    expect(scope.locator(answer_chip)).not_to_contain_text("p. 6")
    expect(scope.locator(answer_chip)).to_contain_text("Source : Karuba, livret p. 99")
    see_also = scope.locator(".see-also")
    expect(see_also).to_contain_text("Voir aussi")
    chips = see_also.locator(".chip span[aria-hidden=true]")
    expect(chips).to_have_text(["p. 7", "Les aventuriers"])
    expect(see_also.locator(".chip .visually-hidden")).to_have_text(
        ["Source : Karuba, livret p. 7", "Source : Karuba, section Les aventuriers"])
    mistake = scope.locator(".mistake")
    expect(mistake).to_have_attribute("role", "note")
    expect(mistake.locator(".mistake-title")).to_have_text("Erreur fréquente")
    expect(mistake.locator(".mistake-text")).to_have_text(WARNING)  # markup in it stays text
    expect(mistake.locator(".chip")).to_contain_text("p. 8")
    expect(mistake.locator(".chip")).to_contain_text("Source : Karuba, livret p. 8")
    # Under the answer's own chip, in that order.
    tops = [scope.locator(s).bounding_box()["y"] for s in (answer_chip, ".see-also", ".mistake")]
    assert tops == sorted(tops)


def test_table_page_shows_the_answer_set_and_the_common_mistake(page, api):
    serve_answer(page, CRAFTED_FOUND)
    page.goto(api.url + "/")
    ask_on_table(page, GOLD, "Karuba")
    result = page.locator("#result")
    assert_answer_set(result, ".citation .chip")
    # The passage list cites as the server does, too.
    expect(result.locator(".passage .chip span[aria-hidden=true]").first).to_have_text("p. 99")
    page.wait_for_timeout(300)
    assert no_img(page) == 0
    page.evaluate("document.activeElement.blur(); window.scrollTo(0, 0)")
    save_screenshot(page, "table-page-answer-set.png", docs=False)


def test_widget_shows_the_answer_set_and_the_common_mistake(page, api, host_site):
    serve_answer(page, CRAFTED_FOUND)
    page.goto(host_site.publish("ensemble", api.url, attrs='data-game="karuba"', head=SHOP_HEAD, body=SHOP_BODY))
    host = open_widget(page)
    ask_in_widget(host, GOLD)
    answer = host.locator(".bubble.bot").last
    assert_answer_set(answer, ".meta .chip")
    page.wait_for_timeout(300)
    assert no_img(page) == 0
    page.evaluate("document.activeElement && document.activeElement.blur()")
    save_screenshot(page, "widget-answer-set.png", docs=False)


def test_table_page_gives_the_reason_of_a_refusal(page, api):
    serve_answer(page, CRAFTED_REFUSED)
    page.goto(api.url + "/")
    ask_on_table(page, GOLD, "Karuba")
    notice = page.locator("#result .notice")
    expect(notice.get_by_role("heading")).to_have_text("Ce n'est pas dans les règles")
    expect(notice.locator(":scope > p")).to_have_text(REFUSAL)
    expect(page.get_by_role("status").and_(page.locator("#status"))).to_have_text(REFUSAL)
    expect(page.locator("#result .see-also, #result .mistake")).to_have_count(0)

    # Without a refusal (an older server), the message says it.
    page.unroute("**/api/ask")
    serve_answer(page, {**CRAFTED_REFUSED, "refusal": None})
    page.get_by_role("button", name="Demander").click()
    expect(notice.locator(":scope > p")).to_have_text(CRAFTED_REFUSED["message"])


def test_widget_gives_the_reason_of_a_refusal(page, api, host_site):
    serve_answer(page, CRAFTED_REFUSED)
    page.goto(host_site.publish("refus", api.url, attrs='data-game="karuba"'))
    host = open_widget(page)
    ask_in_widget(host, GOLD)
    missing = host.locator(".bubble.missing")
    expect(missing.locator(".verdict")).to_have_text("Ce n'est pas dans les règles.")
    expect(missing).to_contain_text(REFUSAL)
    expect(missing).not_to_contain_text(CRAFTED_REFUSED["message"])
    expect(missing.locator(".see-also, .mistake")).to_have_count(0)
