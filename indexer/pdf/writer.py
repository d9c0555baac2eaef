"""Blocks -> the corpus Markdown (header, `#` sections, one line per paragraph, bullet or table row, each
ending with its pages) and the layout sidecar (where each line is printed, for highlighting)."""

import json
import os
import re
import tempfile
from pathlib import Path

from indexer.pdf.blocks import Block

LAYOUT_SUFFIX = ".layout.json"


def page_ref(pages: list[int]) -> str:
    pages = sorted(set(pages))
    if len(pages) > 1 and pages == list(range(pages[0], pages[-1] + 1)):
        return f"(p. {pages[0]}-{pages[-1]})"
    return "(p. " + ", ".join(map(str, pages)) + ")"


# What the corpus reader takes for a page reference: "(p. 12)", but also the text's own "(p. ex. …)" or a
# cross-reference "(voir p. 4)" printed in the rulebook, which must not become a citation.
_PAGE_REF = re.compile(r"\((?=\s*pp?\b)")
WORD_JOINER = "\u2060"


def _safe(text: str) -> str:
    # A page reference printed in the text stays text: an invisible word joiner after its parenthesis.
    text = _PAGE_REF.sub("(" + WORD_JOINER, text)
    # A paragraph must not be read back as a heading, a question or a bullet it is not.
    if text.startswith("#"):
        return text.lstrip("#").strip()
    if text.startswith("Q:"):
        return "Q :" + text[2:]
    if text.startswith("- "):
        return "– " + text[2:]
    if text.startswith("|"):  # a Markdown table row to the corpus reader (a line of "|" drawn as text)
        return WORD_JOINER + text
    return text


def _cell(text: str) -> str:
    return _PAGE_REF.sub("(" + WORD_JOINER, text).replace("|", "¦")


def _table(block: Block, out: list[str], layout: list[dict]) -> None:
    """A Markdown table: its caption right over it (each row carries it), its header (empty cells when it has
    none), then a row a line, each citing its page."""
    from indexer.corpus import row_text

    width = len(block.rows[0][0])
    header = [_cell(c) for c in (block.header or [""] * width)]
    if block.title:
        out.append(f"{_safe(block.title)} {page_ref(block.title_pages)}")
        layout.append({"text": block.title, "boxes": []})
    out += ["| " + " | ".join(header) + " |", "|" + "---|" * width]
    for cells, page, box in block.rows:
        cells = [_cell(c) for c in cells]
        if any(cells):
            out.append("| " + " | ".join(cells) + f" | {page_ref([page])}")
            layout.append({"text": row_text(header, cells), "boxes": [list(box)]})


def _title(text: str) -> str:
    """A term or a step, as a bullet's title (`- **term** definition`): no "*" inside."""
    return _PAGE_REF.sub("(" + WORD_JOINER, text).replace("*", "∗")


def render_markdown(header: dict[str, str], blocks: list[Block], notes: list[str] = ()) -> tuple[str, list[dict]]:
    """The file's text, and for each written line its text (without marker) and its boxes. `notes`: comment
    lines of the header, for the person who reviews the import (the corpus reader skips them)."""
    out = ["---", *(f"{k}: {v}" for k, v in header.items() if v), *(f"# {n}" for n in notes), "---", ""]
    layout = []
    previous = None
    for block in blocks:
        start = len(out)
        text = _safe(block.text) if block.kind != "li" else _PAGE_REF.sub("(" + WORD_JOINER, block.text)
        boxes = [list(b) for b in block.boxes]
        if block.kind == "h":
            out += ([""] if out[-1] else []) + [f"{'#' * block.level} {text} {page_ref(block.pages)}", ""]
            layout.append({"text": text, "boxes": boxes})
        elif block.kind == "table" and any(any(cells) for cells, _, _ in block.rows):
            if out[-1]:
                out.append("")
            _table(block, out, layout)
            out.append("")
        elif block.kind == "term":
            # Terms (and steps) follow each other as bullets of one list: one passage each, the term its title.
            if previous is None or previous.kind != "term":
                out += [""] if out[-1] else []
            title, definition = _title(block.title), _PAGE_REF.sub("(" + WORD_JOINER, block.text)
            out.append(f"- **{title}** {definition} {page_ref(block.pages)}")
            layout += [{"text": title, "boxes": boxes}, {"text": definition, "boxes": boxes}]
        elif block.kind == "qa":
            out += [""] if out[-1] else []
            question = _PAGE_REF.sub("(" + WORD_JOINER, block.title)
            out.append(f"Q: {question} {page_ref(block.title_pages)}")
            out.append(f"{text} {page_ref(block.text_pages)}")
            out.append("")
            layout += [{"text": question, "boxes": boxes}, {"text": text, "boxes": boxes}]
        elif block.kind in ("li", "row"):
            # A list stays one block, one passage per bullet; the lead line ending with ":" is a passage of its
            # own (glued to it, the corpus reader would make the lead and the whole list one passage).
            glued = previous is not None and previous.kind == block.kind
            if not glued and out[-1]:
                out.append("")
            line = f"- {text} {page_ref(block.pages)}" if block.kind == "li" else f"{text} {page_ref(block.pages)}"
            out.append(line)
            layout.append({"text": text, "boxes": boxes})
        elif block.kind != "table":
            if out[-1]:
                out.append("")
            out.append(f"{text} {page_ref(block.pages)}")
            layout.append({"text": text, "boxes": boxes})
        if block.role and len(out) > start and block.kind in ("p", "li", "term", "row"):
            out[-1] += f" {{{block.role}}}"
        previous = block
    return "\n".join(out).rstrip() + "\n", layout


def write_atomic(path: Path, data: bytes) -> None:
    """Write beside the target and rename, so a reader (the indexer, the page server) never sees half a file."""
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def sheet_of(where) -> int:
    """The PDF page (0-based) of a layout sidecar's page entry: an index, or a spread's {"page", "half"}."""
    return where["page"] if isinstance(where, dict) else int(where)


def layout_json(pages: dict[int, int | dict], lines: list[dict]) -> bytes:
    """The layout sidecar: printed page -> where it is in the PDF (its index, or {"page": index, "half": 1|2} for
    a half of a spread), and each written line's boxes (fractions of its printed page)."""
    return json.dumps({"version": 1, "pages": {str(k): v for k, v in pages.items()}, "lines": lines},
                      ensure_ascii=False, separators=(",", ":")).encode()
