"""axe-core (WCAG 2.1 A/AA and best practices) over the whole table page and the widget in each state a
player meets, keyboard-only use, and the live regions that announce answers."""

# ruff: noqa: F811  (the shared fixtures imported below are requested by name)
import pytest

from tests.browser.support import assert_accessible
from tests.browser.test_browser_pages import (  # noqa: F401  (fixtures and helpers shared with the page tests)
    CRAFTED_FOUND, CRAFTED_REFUSED, GOLD, OFF_TOPIC, api, ask_in_widget, ask_on_table, expect, host_site,
    open_widget, serve_answer, SHOP_BODY, SHOP_HEAD,
)

pytestmark = pytest.mark.browser


def test_table_page_empty(page, api):
    page.goto(api.url + "/")
    expect(page.get_by_label("Jeu").locator("option")).to_have_count(5)
    assert_accessible(page, "table page, empty")


def test_table_page_answer(page, api):
    page.goto(api.url + "/")
    ask_on_table(page, GOLD, "Karuba")
    expect(page.locator("#result .citation .chip")).to_contain_text("p. 6")
    assert_accessible(page, "table page, answer")


def test_widget_answer(page, api, host_site):
    page.goto(host_site.publish("a11y", api.url, attrs='data-game="karuba"', head=SHOP_HEAD, body=SHOP_BODY))
    host = open_widget(page)
    ask_in_widget(host, GOLD)
    expect(host.locator(".bubble.bot .meta .chip")).to_contain_text("p. 6")
    assert_accessible(page, "widget, answer")
