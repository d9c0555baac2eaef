"""The browser fixtures every browser test module gets: one chromium per module, and phone/desktop pages
that fail the test on a dialog or a JavaScript error."""

import pytest

from tests.browser.support import CHROMIUM, CHROMIUM_ARGS, new_page


@pytest.fixture(scope="module")
def browser():
    if not CHROMIUM.exists():
        pytest.skip("no /usr/bin/chromium: run `make browser-deps` (apt-get install chromium)")
    sync_playwright = pytest.importorskip("playwright.sync_api", reason="pip install playwright").sync_playwright
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser):
    page = new_page(browser)
    yield page
    page.probe.assert_clean()
    page.context.close()


@pytest.fixture
def desktop_page(browser):
    page = new_page(browser, viewport={"width": 1280, "height": 800}, phone=False)
    yield page
    page.probe.assert_clean()
    page.context.close()


@pytest.fixture(scope="module")
def logged_api(fake_index, tmp_path_factory):
    """The API on the real corpus (fake embedder) with the questions log on, in a SQLite file."""
    from service.engine.decide.abstention import AbstentionPolicy
    from service.web.app import create_app
    from service.engine.calibration import Calibration
    from service.runtime.settings import Settings
    from tests.browser.test_browser_pages import LiveServer
    from tests.fakes import fake_answerer

    answerer = fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.2)))
    url = f"sqlite:///{tmp_path_factory.mktemp('log') / 'rulesqa.db'}"
    app = create_app(Settings(index_dir=fake_index, log_questions=True, database_url=url), answerer)
    server = LiveServer(app).start()
    server.app = app
    yield server
    server.stop()


@pytest.fixture
def audit(browser):
    """A phone page whose CSP does not stop the injected axe script (the accessibility checks)."""
    page = new_page(browser, bypass_csp=True)
    yield page
    page.probe.assert_clean()
    page.context.close()
