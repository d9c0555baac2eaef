"""What the browser tests share besides fixtures: Debian's chromium, its flags, and a page that records
dialogs and JavaScript errors (tests/browser/conftest.py builds the fixtures from these)."""

from pathlib import Path

CHROMIUM = Path("/usr/bin/chromium")
# Without the background-networking flags chromium keeps trying to reach Google, refused here.
CHROMIUM_ARGS = [
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--no-first-run", "--disable-sync",
]
PHONE = {"width": 390, "height": 844}


class PageProbe:
    """What must never happen: a dialog (an injected alert) or an uncaught JavaScript error."""

    def __init__(self, page):
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        page.on("dialog", self._dialog)
        page.on("pageerror", lambda err: self.errors.append(str(err)))

    def _dialog(self, dialog):
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def assert_clean(self):
        assert self.dialogs == [], f"a dialog opened: {self.dialogs}"
        assert self.errors == [], f"JavaScript error in the page: {self.errors}"


def new_page(browser, viewport=PHONE, phone=True):
    context = browser.new_context(viewport=viewport, device_scale_factor=2, locale="fr-FR", is_mobile=phone,
                                  has_touch=phone, reduced_motion="reduce")
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.probe = PageProbe(page)
    return page
