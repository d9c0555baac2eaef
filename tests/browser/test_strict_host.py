"""The widget on a host page served with a strict Content-Security-Policy: scripts from the widget's origin
only, no 'unsafe-inline' anywhere, requests and images to the API only, the host's own styles from itself.
These are exactly the lines docs/WIDGET.md tells a site owner to add; the widget must show, answer and open
a cited page under them, with nothing refused. The table page's own CSP is checked the same way."""

# ruff: noqa: F811  (the shared fixtures imported below are requested by name)
import pytest

from tests.browser.test_browser_pages import (  # noqa: F401  (fixtures and helpers)
    GOLD, api, ask_in_widget, ask_on_table, expect, host_site, open_widget, wait_for,
)
from tests.browser.test_page_viewer import ZORGLUB, pdf_api  # noqa: F401  (a corpus with a PDF rulebook)

pytestmark = pytest.mark.browser


def strict_csp(api_url: str) -> str:
    return (f"default-src 'none'; script-src {api_url}; connect-src {api_url}; img-src {api_url}; "
            "style-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'")


def test_widget_answers_and_shows_a_page_on_a_host_with_a_strict_csp(page, pdf_api, host_site):
    url = host_site.publish("strict", pdf_api.url, body="<main><h1>Le club</h1></main>",
                            headers={"Content-Security-Policy": strict_csp(pdf_api.url)})
    page.goto(url)
    host = page.locator("#rulesqa-widget")
    launcher = host.get_by_role("button", name="Ouvrir l'assistant de règles")
    # Styled from its constructed stylesheet: fixed in the corner, in the accent colour.
    assert launcher.evaluate("el => [getComputedStyle(el).position, getComputedStyle(el).backgroundColor]") \
        == ["fixed", "rgb(15, 118, 110)"]
    open_widget(page)
    picker = host.get_by_label("Jeu", exact=True)
    expect(picker.locator("option")).to_have_count(3)  # GET /api/games went through connect-src
    picker.select_option(label="Karuba")
    ask_in_widget(host, GOLD)
    answer = host.locator(".bubble.bot").last
    expect(answer).to_contain_text("2 points par pépite d'or")
    expect(answer.locator(".meta .chip")).to_contain_text("p. 6")

    picker.select_option(label="Zorglub")
    ask_in_widget(host, ZORGLUB)
    answer = host.locator(".bubble.bot").last
    expect(answer).to_contain_text("sept cartes de la même couleur")
    answer.locator(".meta .chip-page").click()
    # The page image came through img-src. (Polled with evaluate: wait_for_function evaluates a string,
    # which this policy refuses as it should.)
    wait_for(page, lambda: page.evaluate(
        "() => document.getElementById('rulesqa-widget').shadowRoot.querySelector('.page-viewer img').naturalWidth"))
    assert host.locator(".page-viewer").evaluate("el => getComputedStyle(el).position") == "fixed"
    page.keyboard.press("Escape")
    assert page.probe.refused == []  # nothing was refused (the fixture checks it again)

    # The policy is enforced: an inline style, as a <style> element would be, is refused and not applied.
    page.evaluate("""() => { const s = document.createElement("style");
      s.textContent = "h1 { color: rgb(255, 0, 0); }"; document.head.append(s); }""")
    assert page.locator("h1").evaluate("el => getComputedStyle(el).color") != "rgb(255, 0, 0)"
    page.wait_for_timeout(100)
    assert any("style" in m for m in page.probe.refused), page.probe.refused
    page.probe.refused.clear()


def test_table_page_runs_under_its_own_csp(page, api):
    response = page.goto(api.url + "/")
    assert response.headers["content-security-policy"].startswith("default-src 'self'")
    ask_on_table(page, GOLD, "Karuba")
    expect(page.locator("#result .citation .chip")).to_contain_text("p. 6")
    # An injected inline script (what a rulebook text turned markup would be) does not run.
    page.evaluate("""() => { const s = document.createElement("script");
      s.textContent = "window.__ran = true"; document.body.append(s); }""")
    assert page.evaluate("window.__ran") is None
    assert any("script" in m for m in page.probe.refused), page.probe.refused
    page.probe.refused.clear()
