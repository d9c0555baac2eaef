"""The publishers' splits: French rulebooks as their publishers laid them out (manifest.json: where each was found,
its sha256, publisher, layout tool and split), imported by `rulesqa import` into a corpus of their own, and the
questions players would ask of them (questions/NAME.jsonl), for `rulesqa eval --split publishers-dev|publishers-test`.

The PDFs are the publishers' files, never committed: they are read from a cache filled outside git
(`python -m benchmarks.publishers.cache --from DIR`). A question gives the PDF page its answer is on
(`pdf_pages`); its gold pages are the printed pages the import cites for that PDF page, so that the gold does
not depend on how the import numbers pages.

`text`: how the rulebooks are read into the corpus: `import` (`rulesqa import`, its default text layer), `glyphs`
(`rulesqa import --reader glyphs`, the import's own glyph grouping) or `reference` (each page as poppler's `pdftotext` reads it, cut into paragraphs at its blank lines: the reference
the issue measures the import against).
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from eval.errors import EvalError

HERE = Path(__file__).resolve().parent
MANIFEST = HERE / "manifest.json"
QUESTIONS = HERE / "questions"
CACHE = HERE.parents[1] / "var" / "publishers"
SPLITS = ("publishers-dev", "publishers-test")
TEXTS = ("import", "glyphs", "reference")


@dataclass(frozen=True)
class Rulebook:
    name: str  # the game's id in the corpus, the cache file's stem
    game: str
    publisher: str
    language: str
    repo: str
    commit: str
    path: str
    sha256: str
    pages: int
    tool: str
    creator: str
    producer: str
    page_size: str
    layout: str  # what the layout holds: columns, spreads, boxes, card grids…
    split: str  # "dev" or "test": which part its questions belong to

    def file(self, cache: Path) -> Path:
        return cache / f"{self.name}.pdf"


def load_manifest(path: Path = MANIFEST) -> list[Rulebook]:
    entries = json.loads(path.read_text("utf-8"))
    names = [e["name"] for e in entries]
    if len(set(names)) != len(names):
        raise EvalError(f"{path.name} : deux entrées portent le même nom")
    return [Rulebook(**{k: e.get(k, "") for k in Rulebook.__dataclass_fields__}) for e in entries]


def source_questions(name: str) -> list[dict]:
    path = QUESTIONS / f"{name}.jsonl"
    if not path.exists():
        return []
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def materialize(out: Path, split: str, cache: Path = CACHE, text: str = "import") -> tuple[Path, Path]:
    """(corpus folder, questions file) of one publishers' split under `out`: its rulebooks read into the corpus,
    their questions with the gold pages that corpus cites. Rebuilt only when a rulebook or the way of reading
    them changed."""
    if split not in SPLITS:
        raise EvalError(f"split inconnu « {split} » ({', '.join(SPLITS)})")
    if text not in TEXTS:
        raise EvalError(f"lecture inconnue « {text} » ({', '.join(TEXTS)})")
    part = split.removeprefix("publishers-")
    books = [b for b in load_manifest() if b.split == part and source_questions(b.name)]
    missing = [b.name for b in books if not b.file(cache).exists()]
    if missing:
        raise EvalError(f"livrets des éditeurs absents de {cache} ({', '.join(missing)}) : "
                        "python -m benchmarks.publishers.cache --from DOSSIER")
    out = Path(out)
    corpus, questions = out / "corpus", out / "questions.jsonl"
    stamp = out / "stamp.json"
    wanted = {"text": text, "books": {b.name: b.sha256 for b in books}, "import": _import_code(),
              "questions": hashlib.sha256(b"".join((QUESTIONS / f"{b.name}.jsonl").read_bytes()
                                                   for b in books)).hexdigest()}
    if stamp.exists() and json.loads(stamp.read_text("utf-8")) == wanted and questions.exists():
        return corpus, questions
    if corpus.exists():
        shutil.rmtree(corpus)
    corpus.mkdir(parents=True)
    lines = []
    for book in books:
        pdf = book.file(cache)
        if hashlib.sha256(pdf.read_bytes()).hexdigest() != book.sha256:
            raise EvalError(f"{pdf} : empreinte différente du manifeste ({book.name})")
        printed = _read(pdf, corpus, book, text)
        for q in source_questions(book.name):
            lines.append(json.dumps(gold_line(q, printed), ensure_ascii=False))
    questions.write_text("\n".join(lines) + "\n", "utf-8")
    stamp.write_text(json.dumps(wanted), "utf-8")
    return corpus, questions


def _import_code() -> str:
    """A digest of the import's code: a corpus read by another version of it is read again."""
    import indexer.pdf

    digest = hashlib.sha256()
    for path in sorted(Path(indexer.pdf.__file__).parent.rglob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def gold_line(question: dict, printed: dict[int, list[int]]) -> dict:
    """The gold question of a source question: its PDF pages turned into the pages the corpus cites for them."""
    q = {k: v for k, v in question.items() if k not in ("pdf_pages", "printed_pages")}
    q["gold_pages"] = sorted({p for page in question.get("pdf_pages") or [] for p in printed.get(page - 1, [])})
    return q


def _read(pdf: Path, corpus: Path, book: Rulebook, text: str) -> dict[int, list[int]]:
    """The rulebook read into the corpus; returns 0-based PDF page -> the printed pages cited for it."""
    if text == "reference":
        return reference_markdown(pdf, corpus, book)
    from indexer.pdf import import_pdf
    from indexer.pdf.document.writer import sheet_of

    result = import_pdf(pdf, corpus, book.name, book.game, force=True, reader="glyphs" if text == "glyphs" else "auto")
    layout = json.loads(result.layout.read_text("utf-8"))
    printed: dict[int, list[int]] = {}
    for number, where in layout["pages"].items():
        printed.setdefault(sheet_of(where), []).append(int(number))
    return printed


def reference_markdown(pdf: Path, corpus: Path, book: Rulebook) -> dict[int, list[int]]:
    """Each PDF page as poppler reads it (`pdftotext`), cut into paragraphs at its blank lines, cited by its
    position: the reference reading of the publishers' benchmark."""
    run = subprocess.run(["pdftotext", "-q", "-enc", "UTF-8", str(pdf), "-"], capture_output=True)
    if run.returncode != 0:
        raise EvalError(f"{pdf.name} : pdftotext a échoué (make pdf-bench-deps)")
    pages = run.stdout.decode("utf-8", "replace").split("\f")
    body = []
    for i, page in enumerate(pages):
        for paragraph in re.split(r"\n\s*\n", page):
            words = " ".join(paragraph.split())
            if words:
                body.append(f"{_safe(words)} (p. {i + 1})")
    title = book.game.replace("\n", " ")
    (corpus / f"{book.name}.md").write_text(f"---\nid: {book.name}\ntitle: {title}\n---\n\n" + "\n\n".join(body)
                                            + "\n", "utf-8")
    return {i: [i + 1] for i in range(len(pages))}


def _safe(text: str) -> str:
    """A paragraph as one corpus line: no heading, table or question syntax, no page reference of its own."""
    text = re.sub(r"\(\s*p\.", "(p", text)
    text = re.sub(r"^Q:", "Q :", re.sub(r"^[#|]+\s*", "", text))
    return text or "…"
