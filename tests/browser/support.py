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
    """What must never happen: a dialog (an injected alert), an uncaught JavaScript error, or something the
    page's Content-Security-Policy refused (chromium says so on the console)."""

    def __init__(self, page):
        self.dialogs: list[str] = []
        self.errors: list[str] = []
        self.refused: list[str] = []
        page.on("dialog", self._dialog)
        page.on("pageerror", lambda err: self.errors.append(str(err)))
        page.on("console", self._console)

    def _dialog(self, dialog):
        self.dialogs.append(dialog.message)
        dialog.dismiss()

    def _console(self, message):
        if "Content Security Policy" in message.text:
            self.refused.append(message.text)

    def assert_clean(self):
        assert self.dialogs == [], f"a dialog opened: {self.dialogs}"
        assert self.errors == [], f"JavaScript error in the page: {self.errors}"
        assert self.refused == [], f"refused by the Content-Security-Policy: {self.refused}"


def new_page(browser, viewport=PHONE, phone=True, **options):
    """A page in its own context; `options` go to the context (bypass_csp, color_scheme...)."""
    context = browser.new_context(viewport=viewport, device_scale_factor=2, locale="fr-FR", is_mobile=phone,
                                  has_touch=phone, reduced_motion="reduce", **options)
    page = context.new_page()
    page.set_default_timeout(10_000)
    page.probe = PageProbe(page)
    return page


# ---------------------------------------------------------------- accessibility (axe-core)

AXE = Path(__file__).resolve().parent / "node_modules" / "axe-core" / "axe.min.js"
# WCAG 2.1 levels A and AA: what the pages must pass. axe's best practices are run too (a page's one <h1>,
# landmarks...) and must pass as well.
WCAG21_AA = ("wcag2a", "wcag2aa", "wcag21a", "wcag21aa")
AXE_TAGS = (*WCAG21_AA, "best-practice")

_AXE_RUN = """async (tags) => {
  const result = await axe.run(document, { runOnly: { type: "tag", values: tags }, resultTypes: ["violations"] });
  return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help,
    nodes: v.nodes.map((n) => ({ target: n.target, summary: n.failureSummary })) }));
}"""


def axe_violations(page, tags=AXE_TAGS) -> list[dict]:
    """axe-core run over the whole page as it is now (open shadow roots included): its violations."""
    if not AXE.exists():
        raise AssertionError(f"{AXE} is missing: run `make browser-deps` (npm install of axe-core)")
    if not page.evaluate("typeof window.axe === 'object'"):
        page.add_script_tag(path=str(AXE))
    return page.evaluate(_AXE_RUN, list(tags))


def assert_accessible(page, state: str) -> None:
    violations = axe_violations(page)
    lines = [f"{v['impact']} {v['id']}: {v['help']} -> {[n['target'] for n in v['nodes']][:5]}\n"
             f"    {v['nodes'][0]['summary']}" for v in violations]
    assert not violations, f"axe-core, {state}:\n" + "\n".join(lines)
