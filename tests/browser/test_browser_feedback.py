"""The questions log seen from a browser: two questions and a thumbs-down on the table page, a thumbs-up in
the widget (keyboard only), then the report lists them. The API runs for real with a SQLite log."""

import pytest

from tests.browser.support import new_page
from tests.browser.test_browser_pages import (GOLD, OFF_TOPIC, HostSite, ask_in_widget, ask_on_table,
                                              open_widget, sync_api)
from tests.fakes import FakeEmbedder

pytestmark = pytest.mark.browser
expect = sync_api.expect


def assert_thumb_drawn(button) -> None:
    """A thumb is an SVG drawing, no emoji: a machine without an emoji font would show an empty box."""
    expect(button).to_have_text("")
    drawing = button.locator("svg path")
    expect(drawing).to_have_count(1)
    box = drawing.bounding_box()
    assert box and box["width"] >= 12 and box["height"] >= 12


def test_two_questions_and_a_thumbs_down_reach_the_report(browser, logged_api):
    from service.questions_log.report import build_report

    page = new_page(browser)
    page.goto(logged_api.url + "/")
    ask_on_table(page, GOLD, "Karuba")
    result = page.locator("#result")
    expect(result.locator(".answer-text")).to_contain_text("2 points par pépite d'or")
    group = result.get_by_role("group", name="Cette réponse est-elle utile ?")
    expect(group).to_contain_text("Utile ?")
    down = group.get_by_role("button", name="Non, cette réponse n'est pas utile")
    expect(down).to_have_attribute("title", "Non, cette réponse n'est pas utile")
    expect(group.get_by_role("button", name="Oui, cette réponse est utile")).to_be_visible()
    for button in group.get_by_role("button").all():
        assert_thumb_drawn(button)
    # Keyboard: the verdict is given with Enter, announced, and cannot be given twice.
    down.focus()
    page.keyboard.press("Enter")
    expect(group.get_by_role("status")).to_have_text("Merci pour votre avis.")
    expect(down).to_have_attribute("aria-pressed", "true")
    expect(group.get_by_role("button")).to_have_count(2)
    for button in group.get_by_role("button").all():
        expect(button).to_be_disabled()

    ask_on_table(page, OFF_TOPIC, "Karuba")
    expect(result.get_by_role("heading", name="Ce n'est pas dans les règles")).to_be_visible()
    expect(result.get_by_role("group", name="Cette réponse est-elle utile ?")).to_have_count(1)  # one per answer
    page.probe.assert_clean()
    page.context.close()

    writer = logged_api.app.state.log_writer
    assert writer.flush(timeout=10)
    report = build_report(writer.store, FakeEmbedder())
    assert report["questions"] == 2
    assert [g["question"] for g in report["refused"]] == [OFF_TOPIC]
    assert [(t["question"], t["game"], t["pages"]) for t in report["thumbs_down"]] == [(GOLD, "karuba", [6])]
    assert {r["client"] for r in writer.store.rows()} == {"page"}


def test_the_widget_sends_its_verdict_too(browser, logged_api):
    site = HostSite()
    site.server.start()
    try:
        page = new_page(browser)
        page.goto(site.publish("avis", logged_api.url, attrs='data-game="karuba"'))
        host = open_widget(page)
        ask_in_widget(host, GOLD)
        answer = host.locator(".bubble.bot").last
        up = answer.get_by_role("button", name="Oui, cette réponse est utile")
        assert_thumb_drawn(up)
        up.click()
        expect(answer.locator(".feedback").get_by_role("status")).to_have_text("Merci pour votre avis.")
        page.probe.assert_clean()
        page.context.close()
    finally:
        site.server.stop()
    writer = logged_api.app.state.log_writer
    assert writer.flush(timeout=10)
    widget_rows = [r for r in writer.store.rows() if r["client"] == "widget"]
    assert [(r["question"], r["helpful"]) for r in widget_rows] == [(GOLD, True)]


@pytest.mark.model
def test_acceptance_real_server_page_then_rulesqa_report(browser, real_index, tmp_path):
    """Issue 15's acceptance: `rulesqa serve` (real model), two questions and a thumbs-down through the
    page, then `rulesqa report --json` lists them."""
    import json
    import os
    import subprocess
    import sys
    import time

    import httpx

    from testbed.ports import free_port as _free_port

    outside = "Quel temps fera-t-il demain à Lyon ?"  # off topic: refused, and the report lists it
    port = _free_port()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "RULESQA_INDEX_DIR": str(real_index),
           "RULESQA_BUILD_INDEX_IF_MISSING": "false", "RULESQA_LOG_QUESTIONS": "true",
           "RULESQA_DATABASE_URL": f"sqlite:///{tmp_path / 'rulesqa.db'}"}
    with open(tmp_path / "serve.log", "w") as log:
        server = subprocess.Popen([sys.executable, "-m", "rulesqa", "serve", "--port", str(port)],
                                  stdout=log, stderr=log, env=env)
    try:
        deadline = time.monotonic() + 300
        while True:
            assert server.poll() is None, (tmp_path / "serve.log").read_text()
            try:
                if httpx.get(f"http://127.0.0.1:{port}/health", timeout=2).json().get("log") == "ok":
                    break
            except (httpx.TransportError, ValueError):
                pass
            assert time.monotonic() < deadline, "server did not start"
            time.sleep(0.2)
        page = new_page(browser)
        page.goto(f"http://127.0.0.1:{port}/")
        ask_on_table(page, GOLD, "Karuba")
        result = page.locator("#result")
        expect(result.locator(".citation .chip")).to_contain_text("p. 6")
        result.get_by_role("button", name="Non, cette réponse n'est pas utile").click()
        expect(result.locator(".feedback").get_by_role("status")).to_have_text("Merci pour votre avis.")
        ask_on_table(page, outside, "Karuba")
        expect(result.get_by_role("heading", name="Ce n'est pas dans les règles")).to_be_visible()
        page.probe.assert_clean()
        page.context.close()
    finally:
        server.terminate()  # the writer flushes on shutdown
        server.wait(timeout=60)
    out = subprocess.run([sys.executable, "-m", "rulesqa", "report", "--json"], capture_output=True, text=True,
                         env=env, timeout=300)
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout)
    assert report["questions"] == 2
    assert [t["question"] for t in report["thumbs_down"]] == [GOLD]
    assert [g["question"] for g in report["refused"]] == [outside]
    assert {g["game"] for g in report["per_game"]} >= {"karuba"}
