"""Accessibility of the table page and the widget, in chromium: axe-core (WCAG 2.1 A/AA and its best
practices, 0 violations) over the whole page in each state a player meets, whatever it then holds (new
buttons included); keyboard-only use; the live regions that announce answers.

axe is injected into the page, so these pages are opened with the page's own CSP bypassed (the table page
forbids inline scripts); tests/browser/test_strict_host.py checks the CSPs themselves.
"""

# ruff: noqa: F811  (the shared fixtures imported below are requested by name)
import pytest

from tests.browser.support import assert_accessible, new_page
from tests.browser.test_browser_pages import (  # noqa: F401  (fixtures and helpers shared with the page tests)
    CRAFTED_FOUND, CRAFTED_REFUSED, GOLD, OFF_TOPIC, SHOP_BODY, SHOP_HEAD, api, ask_in_widget, ask_on_table, expect,
    host_site, open_widget, serve_answer,
)
from tests.browser.test_browser_shelf import ambiguous

pytestmark = pytest.mark.browser

LOGGED = {**CRAFTED_FOUND, "ask_id": "3f9c2a71d04b8e65a1c2d3e4"}  # logged: the "Utile ?" buttons show


def focused(page) -> str:
    """The focused element, inside the widget's shadow root too: "tag#id.class [label or text]"."""
    return page.evaluate("""() => {
      let a = document.activeElement;
      while (a && a.shadowRoot && a.shadowRoot.activeElement) a = a.shadowRoot.activeElement;
      if (!a) return "";
      const label = a.labels && a.labels.length ? a.labels[0].textContent.trim() : "";
      const name = a.getAttribute("aria-label") || label || (a.innerText || "").trim().split("\\n")[0];
      return `${a.tagName.toLowerCase()}${a.id ? "#" + a.id : ""}${a.className ? "." + a.className.split(" ")[0] : ""}`
        + ` [${name.slice(0, 40)}]`;
    }""")


# ---------------------------------------------------------------- axe: the table page

def test_table_page_passes_axe_empty_then_with_an_answer_and_an_answer_set(audit, api):
    page = audit
    page.goto(api.url + "/")
    expect(page.get_by_label("Jeu").locator("option")).to_have_count(5)
    assert_accessible(page, "table page, empty")

    page.get_by_label("Jeu").select_option(label="Karuba")
    expect(page.locator("#game-card")).to_be_visible()
    ask_on_table(page, GOLD)
    expect(page.locator("#result .citation .chip")).to_contain_text("p. 6")
    page.locator("#result details.passage summary").first.click()  # a passage unfolded
    assert_accessible(page, "table page, an answer with its passages")

    serve_answer(page, LOGGED)  # "Voir aussi", the common mistake, the thumbs
    page.get_by_role("button", name="Demander").click()
    expect(page.locator("#result .feedback")).to_be_visible()
    assert_accessible(page, "table page, an answer set, a common mistake and the feedback buttons")


def test_table_page_passes_axe_with_a_refusal_a_choice_of_games_and_an_error(audit, api):
    page = audit
    page.goto(api.url + "/")
    ask_on_table(page, OFF_TOPIC, "Karuba")
    expect(page.locator("#result .notice h2")).to_have_text("Ce n'est pas dans les règles")
    assert_accessible(page, "table page, a refusal")

    serve_answer(page, CRAFTED_REFUSED)
    page.get_by_role("button", name="Demander").click()
    expect(page.locator("#result .notice > p")).to_have_text(CRAFTED_REFUSED["refusal"]["message"])
    page.unroute("**/api/ask")
    serve_answer(page, ambiguous(GOLD))
    page.get_by_label("Jeu").select_option("")
    page.get_by_role("button", name="Demander").click()
    expect(page.locator("#result .game-choice")).to_have_count(2)
    assert_accessible(page, "table page, which game? (buttons)")

    page.unroute("**/api/ask")
    page.get_by_label("Votre question").fill("   ")
    page.get_by_role("button", name="Demander").click()
    expect(page.get_by_role("alert")).to_have_text("La question est vide.")
    assert_accessible(page, "table page, an error")


def test_table_page_passes_axe_in_the_dark(browser, api):
    page = new_page(browser, bypass_csp=True, color_scheme="dark")
    page.goto(api.url + "/")
    serve_answer(page, LOGGED)
    ask_on_table(page, GOLD, "Karuba")
    expect(page.locator("#result .feedback")).to_be_visible()
    assert_accessible(page, "table page, dark colour scheme, an answer set")
    page.probe.assert_clean()
    page.context.close()


# ---------------------------------------------------------------- axe: the widget on a host page

def test_widget_passes_axe_open_then_with_answers_and_refusals(audit, api, host_site):
    page = audit
    page.goto(host_site.publish("a11y", api.url, attrs='data-game="karuba"', head=SHOP_HEAD, body=SHOP_BODY))
    assert_accessible(page, "host page, widget closed")
    host = open_widget(page)
    expect(host.locator(".bubble.bot")).to_have_count(1)
    assert_accessible(page, "widget open, greeting")

    ask_in_widget(host, GOLD)
    answer = host.locator(".bubble.bot").nth(1)
    expect(answer.locator(".meta .chip")).to_contain_text("p. 6")
    answer.locator("summary").click()  # the passages unfolded
    assert_accessible(page, "widget, an answer with its passages")

    serve_answer(page, LOGGED)
    ask_in_widget(host, GOLD)
    expect(host.locator(".bubble.bot .feedback")).to_be_visible()
    page.unroute("**/api/ask")
    ask_in_widget(host, OFF_TOPIC)
    expect(host.locator(".bubble.missing")).to_be_visible()
    assert_accessible(page, "widget, an answer set with feedback buttons, then a refusal")


def test_widget_passes_axe_with_a_choice_of_games_and_a_mid_tone_accent(audit, api, host_site):
    # #808080: neither white nor near-black text reaches 4.5:1 on it; the widget picks black.
    page = audit
    page.goto(host_site.publish("gris", api.url, attrs='data-accent="#808080"', head=SHOP_HEAD, body=SHOP_BODY))
    host = open_widget(page)
    expect(host.get_by_label("Jeu", exact=True).locator("option")).to_have_count(5)
    serve_answer(page, ambiguous(GOLD))
    ask_in_widget(host, GOLD)
    expect(host.locator(".game-choice")).to_have_count(2)
    assert host.locator(".launcher").evaluate("el => getComputedStyle(el).color") == "rgb(0, 0, 0)"
    assert_accessible(page, "widget with a mid-grey accent, which game? (buttons)")


# ---------------------------------------------------------------- keyboard only, and what is announced

def test_table_page_by_keyboard_alone(page, api):
    page.goto(api.url + "/")
    expect(page.get_by_label("Jeu").locator("option")).to_have_count(5)
    order = []
    for _ in range(5):
        page.keyboard.press("Tab")
        order.append(focused(page))
    # In reading order; dictation is offered where the browser has speech recognition (chromium does).
    assert order == ["a.skip [Aller à la question]", "select#game [Jeu]", "textarea#question [Votre question]",
                     "button#voice.btn [Dicter]", "button#submit.btn [Demander]"]

    for _ in range(4):
        page.keyboard.press("Shift+Tab")
    page.keyboard.press("Enter")  # the skip link
    expect(page.get_by_label("Votre question")).to_be_focused()
    page.keyboard.type("Dans Karuba, les pépites d'or rapportent combien à la fin ?")
    page.keyboard.press("Enter")  # sends
    expect(page.locator("#result .citation .chip")).to_contain_text("p. 6")
    # The answer is announced by the polite live region, and the focus lands on its heading.
    status = page.locator("#status")
    expect(status).to_have_attribute("aria-live", "polite")
    # Not sure (the fake embedder's scores are no evidence): the likeliest answer and a choice of three.
    expect(status).to_have_text("Réponse probable : Karuba, livret p. 6. Tu parles de… ?")
    expect(page.locator("#result-heading")).to_be_focused()
    tapped = []
    for _ in range(3):
        page.keyboard.press("Tab")
        tapped.append(focused(page))
    assert all(f.startswith("button.choice [") for f in tapped), tapped  # "Tu parles de… ?" first
    page.keyboard.press("Tab")
    assert focused(page).startswith("summary")  # then the passages, one by one
    page.keyboard.press("Enter")
    expect(page.locator("#result details.passage").first).to_have_attribute("open", "")


def test_widget_by_keyboard_alone_keeps_the_focus_in_its_dialog(page, api, host_site):
    body = '<main><h1>Le club</h1><p><a href="#horaires">Nos horaires</a></p></main>'
    page.goto(host_site.publish("clavier", api.url, attrs='data-game="karuba"', body=body))
    page.keyboard.press("Tab")
    assert focused(page) == "a [Nos horaires]"
    page.keyboard.press("Tab")
    assert focused(page) == "button.launcher [Ouvrir l'assistant de règles]"
    page.keyboard.press("Enter")
    host = page.locator("#rulesqa-widget")
    expect(host.get_by_role("dialog")).to_be_visible()
    expect(host.get_by_role("dialog")).to_have_attribute("aria-modal", "true")
    expect(host.get_by_label("Votre question")).to_be_focused()

    page.keyboard.type(GOLD)
    page.keyboard.press("Enter")
    log = host.get_by_role("log")
    expect(log).to_have_attribute("aria-live", "polite")  # each new bubble is read out
    expect(log.locator(".bubble.bot").nth(1)).to_contain_text("2 points par pépite d'or")
    expect(host.get_by_label("Votre question")).to_be_focused()

    # Tab goes round the panel's controls and never leaves it; Shift+Tab goes round the other way.
    ring = []
    for _ in range(12):
        page.keyboard.press("Tab")
        ring.append(focused(page))
    assert "a [Nos horaires]" not in ring and not any("launcher" in f for f in ring)
    cycle = ring[: ring.index(ring[0], 1)]
    assert cycle[0] == "button.send [Envoyer la question]" and cycle[1] == "button.close [Fermer]"
    assert "div.log [Conversation]" in cycle and cycle[-1] == "textarea#question [Votre question]"
    host.get_by_label("Votre question").focus()
    backwards = []
    for _ in range(len(cycle)):
        page.keyboard.press("Shift+Tab")
        backwards.append(focused(page))
    assert backwards == [*reversed(cycle[:-1]), cycle[-1]]

    page.keyboard.press("Escape")
    expect(host.get_by_role("dialog")).to_be_hidden()
    assert focused(page) == "button.launcher [Ouvrir l'assistant de règles]"
