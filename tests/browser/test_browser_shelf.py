"""The game picker on a large shelf and the "Précisez le jeu" buttons, in chromium (Playwright).

The shelf is the API's answer to /api/games rewritten in the browser (10,000 games), so the picker is
driven exactly as on a shop's shelf without building one."""

# ruff: noqa: F811  (the fixtures imported below are parameters of the tests: pytest's way, not redefinitions)
import json
from urllib.parse import parse_qs, urlparse

import pytest

from tests.browser.test_browser_pages import (  # noqa: F401  (fixtures)
    GOLD, api, ask_on_table, ask_in_widget, host_site, open_widget, wait_for,
)

sync_api = pytest.importorskip("playwright.sync_api")
expect = sync_api.expect
pytestmark = pytest.mark.browser

SHELF = [{"id": f"jeu-{i:05d}", "title": f"Jeu numéro {i}", "aliases": [], "author": None, "publisher": None,
          "year": None, "players": None, "duration": None, "age": None, "passages": 120} for i in range(10_000)]
KARUBA = {**SHELF[0], "id": "karuba", "title": "Karuba", "players": "2 à 4", "author": "Rüdiger Dorn", "passages": 18}


def serve_shelf(page, searches: list[str]):
    """/api/games as a 10,000-game shelf: the first page, or the games whose title contains q."""

    def handle(route):
        query = parse_qs(urlparse(route.request.url).query)
        q = query.get("q", [""])[0].lower()
        limit = int(query.get("limit", ["50"])[0])
        if q:
            searches.append(q)
        found = [g for g in [KARUBA, *SHELF] if q in g["title"].lower()] if q else SHELF
        route.fulfill(json={"games": found[:limit], "total": len(found), "offset": 0, "limit": limit})

    page.route("**/api/games?*", handle)


def test_table_page_searches_a_large_shelf(page, api):
    searches = []
    serve_shelf(page, searches)
    page.goto(api.url + "/")
    search = page.get_by_role("searchbox", name="Recherche par titre")
    expect(search).to_be_visible()  # 10,000 games do not fit in one page
    expect(page.locator("#game option")).to_have_count(51)  # "Reconnaître le jeu" + one page
    search.fill("karu")
    expect(page.locator("#game")).to_have_value("karuba")  # one match: chosen
    expect(page.locator("#game option")).to_have_count(2)
    assert searches[-1] == "karu" and len(searches) <= 2  # debounced, not one request per letter
    expect(page.locator("#game-card")).to_contain_text("Rüdiger Dorn")


def ambiguous(question: str) -> dict:
    games = [{"id": "karuba", "title": "Karuba"}, {"id": "cubirds", "title": "Cubirds"}]
    message = "Précisez le jeu : Karuba ou Cubirds ?"
    return {"question": question, "game": None, "game_detected": False, "found": False, "answer": None,
            "message": message, "passages": [], "refusal": {"reason": "ambiguous_game", "message": message,
                                                            "games": games}, "warning": None}


def route_ambiguous_then_real(page, bodies: list[dict]):
    def handle(route):
        body = json.loads(route.request.post_data)
        bodies.append(body)
        if body.get("game") is None:
            route.fulfill(json=ambiguous(body["question"]))
        else:
            route.fulfill(response=route.fetch())

    page.route("**/api/ask", handle)


def test_table_page_asks_which_game_and_asks_again_with_it(page, api):
    bodies = []
    route_ambiguous_then_real(page, bodies)
    page.goto(api.url + "/")
    ask_on_table(page, GOLD)
    notice = page.locator("#result .notice")
    expect(notice.get_by_role("heading")).to_have_text("Quel jeu ?")
    expect(notice.locator(":scope > p")).to_have_text("Précisez le jeu : Karuba ou Cubirds ?")
    notice.get_by_role("button", name="Karuba").click()
    wait_for(page, lambda: len(bodies) == 2)
    assert bodies[1] == {"question": GOLD, "game": "karuba", "client": "page"}
    expect(page.locator("#game")).to_have_value("karuba")
    expect(page.locator("#result .citation .chip")).to_contain_text("p. 6")


def test_widget_asks_which_game_and_asks_again_with_it(page, api, host_site):
    bodies = []
    route_ambiguous_then_real(page, bodies)
    page.goto(host_site.publish("quel-jeu", api.url))
    host = open_widget(page)
    ask_in_widget(host, GOLD)
    missing = host.locator(".bubble.missing")
    expect(missing.locator(".verdict")).to_have_text("Quel jeu ?")
    missing.get_by_role("button", name="Cubirds").click()
    wait_for(page, lambda: len(bodies) == 2)
    assert bodies[1] == {"question": GOLD, "game": "cubirds", "client": "widget"}
    expect(host.get_by_label("Jeu", exact=True)).to_have_value("cubirds")
    # The second answer is rendered before the page closes: its route is fulfilled from a real fetch, which
    # fails ("Fetch response has been disposed") if the test ends while it is in flight.
    expect(host.locator(".bubble.typing")).to_have_count(0)
