"""Blocks -> the corpus Markdown (header, `#` sections, one line per paragraph, bullet or table row, each
ending with its pages) and the layout sidecar (where each line is printed, for highlighting)."""

import json
import re
from pathlib import Path

from indexer.atomic import write_bytes_atomic
from indexer.pdf.document.blocks import Block

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


def _unref(text: str) -> str:
    """A page reference printed in the text kept as text: an invisible word joiner after its parenthesis."""
    return _PAGE_REF.sub("(" + WORD_JOINER, text)


def _safe(text: str) -> str:
    text = _unref(text)
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
    return _unref(text).replace("|", "¦")


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
    return _unref(text).replace("*", "∗")


def _blank(out: list[str]) -> None:
    """A blank line before what follows, unless the last line is one already."""
    if out[-1]:
        out.append("")


def _heading(block: Block, previous: Block | None, out: list[str], layout: list[dict]) -> None:
    text = _safe(block.text)
    _blank(out)
    out += [f"{'#' * block.level} {text} {page_ref(block.pages)}", ""]
    layout.append({"text": text, "boxes": _boxes(block)})


def _table_block(block: Block, previous: Block | None, out: list[str], layout: list[dict]) -> None:
    if not any(any(cells) for cells, _, _ in block.rows):
        return  # a table without a filled cell writes nothing
    _blank(out)
    _table(block, out, layout)
    out.append("")


def _term(block: Block, previous: Block | None, out: list[str], layout: list[dict]) -> None:
    # Terms (and steps) follow each other as bullets of one list: one passage each, the term its title.
    if previous is None or previous.kind != "term":
        _blank(out)
    title, definition = _title(block.title), _unref(block.text)
    out.append(f"- **{title}** {definition} {page_ref(block.pages)}")
    boxes = _boxes(block)
    layout += [{"text": title, "boxes": boxes}, {"text": definition, "boxes": boxes}]


def _question(block: Block, previous: Block | None, out: list[str], layout: list[dict]) -> None:
    text = _safe(block.text)
    _blank(out)
    question = _unref(block.title)
    out.append(f"Q: {question} {page_ref(block.title_pages)}")
    out.append(f"{text} {page_ref(block.text_pages)}")
    out.append("")
    boxes = _boxes(block)
    layout += [{"text": question, "boxes": boxes}, {"text": text, "boxes": boxes}]


def _bullet_or_row(block: Block, previous: Block | None, out: list[str], layout: list[dict]) -> None:
    # A list stays one block, one passage per bullet; the lead line ending with ":" is a passage of its
    # own (glued to it, the corpus reader would make the lead and the whole list one passage).
    text = _unref(block.text) if block.kind == "li" else _safe(block.text)
    glued = previous is not None and previous.kind == block.kind
    if not glued:
        _blank(out)
    out.append(f"- {text} {page_ref(block.pages)}" if block.kind == "li" else f"{text} {page_ref(block.pages)}")
    layout.append({"text": text, "boxes": _boxes(block)})


def _paragraph(block: Block, previous: Block | None, out: list[str], layout: list[dict]) -> None:
    text = _safe(block.text)
    _blank(out)
    out.append(f"{text} {page_ref(block.pages)}")
    layout.append({"text": text, "boxes": _boxes(block)})


def _boxes(block: Block) -> list[list]:
    return [list(b) for b in block.boxes]


# How each kind of block is written; any other kind is a paragraph.
_WRITERS = {"h": _heading, "table": _table_block, "term": _term, "qa": _question, "li": _bullet_or_row,
            "row": _bullet_or_row}
_ROLE_KINDS = ("p", "li", "term", "row")  # the kinds whose last line carries the block's role ("{note}")


def render_markdown(header: dict[str, str], blocks: list[Block], notes: list[str] = ()) -> tuple[str, list[dict]]:
    """The file's text, and for each written line its text (without marker) and its boxes. `notes`: comment
    lines of the header, for the person who reviews the import (the corpus reader skips them)."""
    out = ["---", *(f"{k}: {v}" for k, v in header.items() if v), *(f"# {n}" for n in notes), "---", ""]
    layout = []
    previous = None
    for block in blocks:
        start = len(out)
        _WRITERS.get(block.kind, _paragraph)(block, previous, out, layout)
        if block.role and len(out) > start and block.kind in _ROLE_KINDS:
            out[-1] += f" {{{block.role}}}"
        previous = block
    return "\n".join(out).rstrip() + "\n", layout


def write_atomic(path: Path, data: bytes) -> None:
    """Write beside the target and rename, so a reader (the indexer, the page server) never sees half a file."""
    write_bytes_atomic(path, data)


def sheet_of(where) -> int:
    """The PDF page (0-based) of a layout sidecar's page entry: an index, or a spread's {"page", "half"}."""
    return where["page"] if isinstance(where, dict) else int(where)


def layout_json(pages: dict[int, int | dict], lines: list[dict]) -> bytes:
    """The layout sidecar: printed page -> where it is in the PDF (its index, or {"page": index, "half": 1|2} for
    a half of a spread), and each written line's boxes (fractions of its printed page)."""
    return json.dumps({"version": 1, "pages": {str(k): v for k, v in pages.items()}, "lines": lines},
                      ensure_ascii=False, separators=(",", ":")).encode()
