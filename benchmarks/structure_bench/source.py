"""The benchmark's rulebook sources (benchmarks/structure/sources/*.txt) and the gold they give.

A source is a small line format, one block a line, that every producer (producers.py) renders in its own
way; since the source is known, so is what the import must write: each unit (paragraph, list item, step
with its text, term with its definition, question with its answer, table row with all its cells, boxed
example, a figure's caption) one passage, verbatim, on the page it is printed on, a table's caption in each
of its rows, and nothing from the navigation.

    % title: / % tagline: / % author: / % legal: / % index: a, b   the cover, and the index's terms
    === page                      a page break (pages are forced, so every unit's page is known)
    [toc] [lot] [index]           table of contents, list of tables, index (navigation)
    # Titre / ## Titre            headings (sections, not units)
    Texte.                        a paragraph
    - texte / 1. texte            a bullet / a numbered item
    step: 1. Titre :: texte       a step's title and its text (one unit)
    term: Terme :: définition     a term and its definition (one unit)
    faq: 6.1 Question ? :: Réponse.
    box: Exemple : …              a boxed example
    figure: Figure 1 : …          a picture and its caption (the caption is a unit)
    table: Tableau 1 : …          a caption (a unit), then `| a | b |` rows, the first one the header
    cols / endcols                a two-column stretch
    menu: A → B                   a menu path on its own (navigation)
    back                          "Retour au sommaire" (navigation)
    legal: …                      copyright or licence boilerplate (navigation)
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

SOURCES = Path(__file__).resolve().parent / "sources"
BACK = "Retour au sommaire"
TOC_TITLE, LOT_TITLE, INDEX_TITLE = "Sommaire", "Liste des tableaux", "Index"


@dataclass
class Item:
    kind: str  # h1 h2 p li ol step term faq box figure table cols endcols menu back legal toc lot index
    text: str = ""
    detail: str = ""  # step, term, faq: the text after "::"
    rows: list[list[str]] = field(default_factory=list)  # table: the header first
    number: int = 0  # ol: its number


@dataclass
class Document:
    name: str
    title: str
    tagline: str
    author: str
    legal: str
    index_terms: list[str]
    pages: list[list[Item]]  # pages[0] is the cover, made from the % fields

    def headings(self) -> list[tuple[int, Item]]:
        return [(n, item) for n, page in enumerate(self.pages) for item in page if item.kind in ("h1", "h2")]

    def tables(self) -> list[tuple[int, Item]]:
        return [(n, item) for n, page in enumerate(self.pages) for item in page if item.kind == "table"]

    def index_entries(self) -> list[tuple[str, list[int]]]:
        """Each index term with the (1-based) pages whose units name it."""
        out = []
        for term in self.index_terms:
            pattern = re.compile(rf"(?i)\b{re.escape(term)}")
            where = sorted({n + 1 for n, page in enumerate(self.pages) for item in page
                            if item.kind not in ("h1", "h2", "toc", "lot", "index", "menu", "back", "legal")
                            and pattern.search(" ".join([item.text, item.detail, *sum(item.rows, [])]))})
            out.append((term, where))
        return out


@dataclass(frozen=True)
class Unit:
    kind: str
    pieces: tuple[str, ...]  # the texts that must come out verbatim, in order (a row: its cells)
    labels: tuple[str, ...]  # words a passage may carry besides the pieces (its heading, a row's header)
    page: int  # 0-based position of the PDF page
    header: tuple[str, ...] = ()  # a table row: its header's cells (benchmarks/realdocs)
    pages: tuple[int, ...] = ()  # every PDF page (0-based) the unit runs over, when more than `page`


@dataclass(frozen=True)
class Nav:
    kind: str  # toc lot index menu back legal
    text: str


def parse(path: Path) -> Document:
    meta: dict[str, str] = {}
    pages: list[list[Item]] = [[]]
    number = 0
    for raw in Path(path).read_text("utf-8").splitlines():
        line = raw.strip()
        if not line:
            continue
        if line.startswith("% "):
            key, _, value = line[2:].partition(":")
            meta[key.strip()] = value.strip()
            continue
        if line == "=== page":
            pages.append([])
            continue
        page = pages[-1]
        if line.startswith("|"):
            page[-1].rows.append([cell.strip() for cell in line.strip("|").split("|")])
            continue
        if line in ("[toc]", "[lot]", "[index]"):
            page.append(Item(line[1:-1]))
            continue
        if line in ("cols", "endcols", "back"):
            page.append(Item(line, BACK if line == "back" else ""))
            continue
        heading = re.match(r"^(#{1,2}) (.+)$", line)
        if heading:
            page.append(Item(f"h{len(heading.group(1))}", heading.group(2)))
            continue
        tagged = re.match(r"^(step|term|faq|box|figure|table|menu|legal): (.+)$", line)
        if tagged:
            head, _, detail = tagged.group(2).partition(" :: ")
            page.append(Item(tagged.group(1), head.strip(), detail.strip()))
            continue
        numbered = re.match(r"^(\d+)\. (.+)$", line)
        if numbered:
            number = int(numbered.group(1))
            page.append(Item("ol", numbered.group(2), number=number))
            continue
        if line.startswith("- "):
            page.append(Item("li", line[2:]))
            continue
        page.append(Item("p", line))
    pages[0] = [Item("cover")]
    terms = [t.strip() for t in meta.get("index", "").split(",") if t.strip()]
    return Document(Path(path).stem, meta["title"], meta.get("tagline", ""), meta.get("author", ""),
                    meta.get("legal", ""), terms, pages)


def documents() -> list[Document]:
    return [parse(path) for path in sorted(SOURCES.glob("*.txt"))]


def cover(doc: Document) -> list[str]:
    """The cover's lines other than its boilerplate: neither units nor navigation (not scored)."""
    return [doc.title, doc.tagline, doc.author]


def gold(doc: Document) -> tuple[list[Unit], list[Nav]]:
    units, nav = [], [Nav("legal", doc.legal)] if doc.legal else []
    for n, page in enumerate(doc.pages):
        heading = ""
        for item in page:
            k = item.kind
            if k in ("h1", "h2"):
                heading = item.text
            elif k in ("p", "li", "box", "figure"):
                units.append(Unit(k, (item.text,), (heading,), n))
            elif k == "ol":
                units.append(Unit(k, (f"{item.number}. {item.text}",), (heading,), n))
            elif k in ("step", "term", "faq"):
                units.append(Unit(k, (item.text, item.detail), (heading,), n))
            elif k == "table":
                # The caption joins its table (issue 33): a label of each row, as the header is.
                header = item.rows[0]
                for row in item.rows[1:]:
                    units.append(Unit("row", tuple(row), (heading, item.text, *header), n))
            elif k in ("menu", "back", "legal"):
                nav.append(Nav(k, item.text))
            elif k == "toc":
                nav += [Nav("toc", h.text) for _, h in doc.headings()]
            elif k == "lot":
                nav += [Nav("lot", t.text) for _, t in doc.tables()]
            elif k == "index":
                nav += [Nav("index", f"{term}, {', '.join(map(str, where))}") for term, where in doc.index_entries()]
    return units, nav
