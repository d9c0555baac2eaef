"""Every path the docs give as a file of the project exists, and the reference pages list what the code declares.

Scanned: README.md and every Markdown file under docs/. What counts as a path of the project:
- a link target `[text](target)` that is not a URL or an anchor, resolved from the linking file's folder;
- an inline code span without spaces that looks like a path: it starts with a top-level entry of the repository
  (`service/engine/decide/`, `.ci/run`), or its last part is a file name with an extension (`indexer/store.py`,
  `e5/graph.py`, `store.py`). A span written from the repository root must exist there; a shorter span
  (`decide/signals.py`, written under its package's heading) must be the tail of an existing path. A bare file
  name (no `/`) is checked only when it is a Python module: other bare names (`calibration.json`,
  `tokenizer.json`) name files inside built folders (an index, a model), which the repository does not hold.

Not checked, by convention (say a path is an example or an output by writing it so):
- fenced code blocks: commands, their output and examples;
- URLs, absolute paths (`/srv/models/…`, `/tmp/…`), `~/…`, `$VARIABLE/…` and what a build writes: `var/…`,
  `.venv/…`, `test-artifacts/…`;
- placeholders and globs: `<…>`, `{…}`, `[…]`, `*`, `?`, `…` or `...`, and names in capitals (`RULEBOOK.pdf`,
  `DIR/ID.md`);
- a path struck through, ~~`indexer/onnx_backend.py`~~: a file that existed when a dated record was written
  and is gone since (history keeps its words; the strike says it is no longer there);
- EXEMPT below: a short list of examples and output files, each with its reason.
"""

import dataclasses
import os
import re
import typing
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").rglob("*.md"))]

# Example or output files the docs name as such: path -> why. Keep it short: prefer the conventions above.
EXEMPT = {
    "corpus/zorglub.md": "the example import's output: README.md and docs/IMPORT.md show `rulesqa import … --game zorglub` "
                         "writing it",
}

# Built or local folders at the root (git ignores them), and anywhere: never matched against.
BUILT_AT_ROOT = {".git", ".venv", "var", "build", "dist", "test-artifacts", ".pytest_cache", "rulesqa.egg-info",
                 "models", "index"}
BUILT_ANYWHERE = {"__pycache__", "node_modules", ".pytest_cache"}
OUTPUT_PREFIXES = ("var/", ".venv/", "test-artifacts/", "~/", "/", "$")
PLACEHOLDER = re.compile(r"[<>{}\[\]*?…]|\.\.\.|(?:^|/)[A-Z][A-Z0-9_]*(?:\.\w+)?(?:/|$)")
EXTENSION = re.compile(r"(?:^|/)[^/.][^/]*\.(?:py|md|json|jsonl|toml|npz|npy|png|js|css|html|txt|ya?ml|cfg|ini|pdf|csv"
                       r"|sh|lock)$")
FENCE = re.compile(r"^\s*```.*?^\s*```", re.S | re.M)
CODE = re.compile(r"(~~)?`([^`\n]+)`")
LINK = re.compile(r"\]\(([^)\s]+)\)")


def _project_paths(root: Path) -> set[str]:
    """Every file and folder of the working tree, relative, folders ending in '/' (built folders left out)."""
    found = set()
    for folder, dirs, files in os.walk(root):
        rel = Path(folder).relative_to(root)
        dirs[:] = [d for d in dirs if d not in BUILT_ANYWHERE and not (rel == Path(".") and d in BUILT_AT_ROOT)]
        found.update((rel / d).as_posix() + "/" for d in dirs)
        found.update((rel / f).as_posix() for f in files)
    return found


def _is_path(span: str, top: set[str]) -> bool:
    if " " in span or "://" in span or span.startswith("-"):
        return False
    if "/" not in span:
        return span.endswith(".py") and bool(EXTENSION.search(span))
    return span.split("/")[0] in top or bool(EXTENSION.search(span))


def stale_paths(doc: Path, root: Path = ROOT, known: set[str] | None = None) -> list[str]:
    """The paths `doc` gives as project files that do not exist, each as 'FILE: `path`'."""
    known = _project_paths(root) if known is None else known
    top = {p.split("/")[0] for p in known}
    text = FENCE.sub("", doc.read_text("utf-8"))
    name = doc.relative_to(root).as_posix()
    missing = []
    for match in CODE.finditer(text):
        struck, span = match.group(1), match.group(2).strip()
        path = span.split("::")[0].split("#")[0].rstrip(":,.")
        if struck or not _is_path(path, top) or path in EXEMPT:
            continue
        if path.startswith(OUTPUT_PREFIXES) or PLACEHOLDER.search(path):
            continue
        if (root / path).exists():
            continue
        tail = path.rstrip("/")
        if not any(p.rstrip("/") == tail or p.rstrip("/").endswith("/" + tail) for p in known):
            missing.append(f"{name}: `{span}`")
    for match in LINK.finditer(text):
        target = match.group(1).split("#")[0]
        if target and "://" not in target and not target.startswith("mailto:"):
            if not (doc.parent / target).exists():
                missing.append(f"{name}: link ({target})")
    return missing


@pytest.fixture(scope="module")
def known() -> set[str]:
    return _project_paths(ROOT)


@pytest.mark.parametrize("doc", DOCS, ids=lambda d: d.relative_to(ROOT).as_posix())
def test_every_path_the_docs_give_exists(doc, known):
    missing = stale_paths(doc, known=known)
    assert not missing, "paths that do not exist (fix them, or mark them as the module docstring says):\n" + \
        "\n".join(missing)


def test_a_stale_path_is_caught_and_the_conventions_exempt_what_they_say(tmp_path):
    (tmp_path / "service" / "engine" / "compose").mkdir(parents=True)
    (tmp_path / "service" / "engine" / "compose" / "card_answer.py").write_text("")
    (tmp_path / "docs").mkdir()
    (tmp_path / "docs" / "PAGE.md").write_text("")
    doc = tmp_path / "README.md"
    doc.write_text(
        "Gone: `service/engine/compose/card.py`, `routing/players_words.py`, `gone.py` and [a page](docs/GONE.md).\n"
        "Here: `service/engine/compose/card_answer.py`, `compose/card_answer.py`, `card_answer.py`, `service/`,\n"
        "[a page](docs/PAGE.md), [an anchor](#here), [a site](https://example.org/x.md).\n"
        "Not paths, or marked: `var/index/calibration.json`, `~/Téléchargements/regles.pdf`, `DIR/ID.md`,\n"
        "`docs/*.md`, `<repo>/var/x.db`, ~~`indexer/onnx_backend.py`~~, `tokenizer.json`, `image/webp`,\n"
        "`rulesqa ask --json`, `corpus/zorglub.md`.\n"
        "```\nservice/engine/fenced_example.py\n```\n")
    assert stale_paths(doc, root=tmp_path) == [
        "README.md: `service/engine/compose/card.py`", "README.md: `routing/players_words.py`",
        "README.md: `gone.py`", "README.md: link (docs/GONE.md)"]


def _documented(page: str) -> str:
    return (ROOT / "docs" / page).read_text("utf-8")


def test_the_settings_page_lists_every_setting():
    from service.runtime.settings import PREFIX, Settings

    text = _documented("SETTINGS.md")
    missing = [PREFIX + name.upper() for name in Settings.model_fields if f"`{PREFIX}{name.upper()}`" not in text]
    assert missing == []


def _dataclass_fields(cls, seen: set | None = None) -> set[str]:
    """The field names of a dataclass and of the dataclasses its fields hold (lists and optionals included)."""
    seen = set() if seen is None else seen
    names = set()
    for name, hint in typing.get_type_hints(cls).items():
        names.add(name)
        for inner in [hint, *typing.get_args(hint), *(a for arg in typing.get_args(hint) for a in typing.get_args(arg))]:
            if dataclasses.is_dataclass(inner) and inner not in seen:
                seen.add(inner)
                names |= _dataclass_fields(inner, seen)
    return names


def test_the_api_page_lists_every_field_of_the_request_and_the_answer():
    from service.engine.answer import Answer
    from service.web.schemas import AskRequest, ChoiceRequest, ErrorBody, FeedbackRequest, PreviousTurn

    text = _documented("API.md")
    fields = set()
    for model in (AskRequest, PreviousTurn, FeedbackRequest, ChoiceRequest, ErrorBody):
        fields |= set(model.model_fields)
    fields |= _dataclass_fields(Answer)
    assert sorted(f for f in fields if f"`{f}`" not in text) == []


def test_the_readme_is_short_and_its_quickstart_is_the_two_commands_ci_runs():
    readme = (ROOT / "README.md").read_text("utf-8")
    assert len(readme.splitlines()) <= 120  # issue 45: a newcomer's ten minutes; the rest lives in docs/
    quickstart = readme.split("## Quickstart", 1)[1].split("```sh\n", 1)[1].split("```", 1)[0]
    commands = [command for line in quickstart.splitlines() if (command := line.split("#")[0].strip())]
    assert commands == ["make serve", "make test"]
    ci = [line.strip() for line in (ROOT / ".ci" / "run").read_text("utf-8").splitlines()
          if line.strip() and not line.startswith("#")]
    assert ci[-1] == "make test"
