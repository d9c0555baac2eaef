""""Tu parles de… ?" and follow-ups in the browser: an answer that is not sure offers its best passages, a tap
shows one with its page and tells the questions log; a follow-up keeps the game. The API runs for real on
the fake embedder (never sure: no calibration measured for it), with a SQLite log."""

import json

import pytest

from tests.browser.support import new_page
from tests.browser.test_browser_pages import HostSite, ask_in_widget, ask_on_table, open_widget, sync_api

pytestmark = pytest.mark.browser
expect = sync_api.expect

NAMED = "À Karuba, les pépites d'or rapportent combien à la fin ?"
FOLLOW_UP = "et les cristaux ?"


def chosen_in_log(server, ask_id: str) -> str | None:
    writer = server.app.state.log_writer
    assert writer.flush(timeout=10)
    return next(r["chosen_passage_id"] for r in writer.store.rows() if r["ask_id"] == ask_id)


def test_table_page_offers_choices_a_tap_shows_one_and_a_follow_up_keeps_the_game(browser, logged_api):
    page = new_page(browser)
    page.goto(logged_api.url + "/")
    with page.expect_response("**/api/ask") as asked:
        ask_on_table(page, NAMED)  # no game picked: named in the question
    answer = asked.value.json()
    assert answer["game"]["id"] == "karuba" and not answer["sure"] and len(answer["choices"]) == 3
    result = page.locator("#result")
    expect(result.get_by_role("heading", name="Réponse probable · Karuba")).to_be_visible()
    group = result.get_by_role("group", name="Tu parles de… ?")
    buttons = group.get_by_role("button")
    expect(buttons).to_have_count(3)
    expect(buttons.nth(0)).to_have_attribute("aria-pressed", "true")
    expect(result.locator(".answer-text")).to_have_text(answer["answer"]["text"])

    second = answer["choices"][1]
    with page.expect_request("**/api/choice") as tapped:
        buttons.nth(1).click()
    assert json.loads(tapped.value.post_data) == {"ask_id": answer["ask_id"], "passage_id": second["passage_id"]}
    expect(buttons.nth(1)).to_have_attribute("aria-pressed", "true")
    expect(buttons.nth(0)).to_have_attribute("aria-pressed", "false")
    expect(result.locator(".answer-text")).to_have_text(second["text"])
    # Its page: the chip of the passage tapped, with the server's citation.
    chip = result.locator(".answer-slot .chip-large")
    expect(chip).to_contain_text(second["short_citation"])
    expect(chip).to_have_attribute("title", second["citation"])
    expect(result.get_by_role("heading", name="Réponse · Karuba")).to_be_visible()
    expect(group.get_by_role("status")).to_contain_text(second["citation"])
    page.wait_for_timeout(200)
    assert chosen_in_log(logged_api, answer["ask_id"]) == second["passage_id"]

    with page.expect_request("**/api/ask") as follow:
        ask_on_table(page, FOLLOW_UP)
    assert json.loads(follow.value.post_data)["previous"] == {"question": NAMED, "game": "karuba"}
    expect(result.get_by_role("heading", name="Karuba")).to_be_visible()
    page.probe.assert_clean()
    page.context.close()


def test_widget_offers_choices_and_keeps_the_game_of_a_follow_up(browser, logged_api):
    site = HostSite()
    site.server.start()
    try:
        page = new_page(browser)
        page.goto(site.publish("choix", logged_api.url))
        host = open_widget(page)
        with page.expect_response("**/api/ask") as asked:
            ask_in_widget(host, NAMED)
        answer = asked.value.json()
        bubble = host.locator(".bubble.bot").last
        group = bubble.get_by_role("group", name="Tu parles de… ?")
        expect(group.get_by_role("button")).to_have_count(len(answer["choices"]))
        third = answer["choices"][2]
        with page.expect_request("**/api/choice"):
            group.get_by_role("button").nth(2).click()
        expect(bubble.locator(".answer")).to_have_text(third["text"])
        expect(bubble.locator(".answer-slot .chip")).to_contain_text(third["short_citation"])
        with page.expect_request("**/api/ask") as follow:
            ask_in_widget(host, FOLLOW_UP)
        assert json.loads(follow.value.post_data)["previous"] == {"question": NAMED, "game": "karuba"}
        expect(host.locator(".bubble.bot").last).to_contain_text("Karuba")
        page.probe.assert_clean()
        page.context.close()
    finally:
        site.server.stop()
