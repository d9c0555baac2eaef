"""The gold of a real document, read from its HTML source (lxml), then placed on the PDF's pages.

Units (structure.source.Unit), in document order:
- `p` (and Publican's `div.para`, a `blockquote`'s text, DocBook's `p.title` of a table, figure or example):
  its text;
- `li`: its own text (its inline text and its first paragraph), without the lists, tables and code nested in
  it (they are units of their own); an `ol` item may carry its number (an allowed label);
- `term`: a `dt` and its `dd` (its inline text or first paragraph) as two pieces of one unit; the dd's other
  blocks are units of their own, labelled by the term;
- `faq`: a DocBook qandaset's question and the first paragraph of its answer (two pieces); its number is a
  label, the answer's other paragraphs are units labelled by the question;
- `row`: a data table's body row, its cells the pieces; the header cells are its labels and its `header`;
- `caption`: `caption`, `figcaption`.
A footnote's leading mark ("[12]") is a label, not a piece.
Headings (h1-h6) are not units: the last one before a unit is its label, and so are an admonition's title
(DocBook's Note/Warning tables, Publican's sidebars keep their p.title as a unit). Code (`pre`) is not
scored: its text is returned apart (passages made of it are neither fragments nor navigation), and so is a
unit's text that the PDF does not print (hidden), counted as excluded.

Navigation (structure.source.Nav): `nav`, role=navigation, DocBook's navheader/navfooter bars
(Précédent/Suivant/Sommaire), tables of contents and lists of tables/figures/examples, Publican's docnav
and banner, Sphinx's related bar, sidebar and footer, a qandaset's list of questions; each link, list item,
term or cell of them is one Nav, and so is the page's <title> (Chromium prints it in its header).
"""

import re
import unicodedata
from dataclasses import dataclass, field

import lxml.etree
import lxml.html

from benchmarks.structure_bench.source import Nav, Unit

BLOCKS = {"p", "div", "ul", "ol", "dl", "table", "pre", "blockquote", "figure", "h1", "h2", "h3", "h4", "h5",
          "h6", "hr", "form", "section", "center", "address", "dd", "dt", "li", "tr", "tbody", "thead",
          "tfoot", "caption", "figcaption", "article", "aside", "header", "footer", "main", "nav", "details",
          "summary", "fieldset", "colgroup", "col"}
SKIP = {"script", "style", "head", "noscript", "template", "img", "svg", "iframe", "object", "button", "input",
        "select", "textarea", "map"}
NAV_CLASSES = {"navheader", "navfooter", "toc", "list-of-tables", "list-of-figures", "list-of-examples",
               "list-of-procedures", "docnav", "related", "sphinxsidebar", "sphinxsidebarwrapper", "footer",
               "headerlink", "navigation", "breadcrumb", "breadcrumbs"}
NAV_IDS = {"banner", "title", "navigation", "footer", "sidebar"}
ADMONITIONS = {"note", "warning", "tip", "caution", "important"}
PARA = {"p", "blockquote"}


@dataclass
class Gold:
    units: list[Unit] = field(default_factory=list)
    nav: list[Nav] = field(default_factory=list)
    code: list[str] = field(default_factory=list)  # pre blocks: not scored
    title: str = ""


def clean(text: str) -> str:
    return re.sub(r"\s+", " ", unicodedata.normalize("NFC", text).replace("\u00a0", " ")).strip()


def _tag(el) -> str:
    return el.tag.lower() if isinstance(el.tag, str) else ""


def _classes(el) -> set[str]:
    return set((el.get("class") or "").split())


def _is_nav(el) -> bool:
    tag = _tag(el)
    if tag == "nav" or el.get("role") == "navigation":
        return True
    if _classes(el) & NAV_CLASSES or (el.get("id") or "") in NAV_IDS:
        return True
    parent = el.getparent()
    return tag == "dl" and parent is not None and "qandaset" in _classes(parent)


def _is_block(el) -> bool:
    return _tag(el) in BLOCKS


def _is_para(el) -> bool:
    return _tag(el) in PARA or (_tag(el) == "div" and "para" in _classes(el))


def inline_text(el) -> str:
    """All the text under el, but what is not printed (scripts, images, Sphinx's ¶ links)."""
    parts = []

    def visit(node):
        tag = _tag(node)
        if tag in SKIP or "headerlink" in _classes(node):
            pass
        elif tag == "br":
            parts.append(" ")
        elif tag:
            parts.append(node.text or "")
            for child in node:
                visit(child)
                parts.append(child.tail or "")
        if tag in BLOCKS:
            parts.append(" ")

    visit(el)
    return clean("".join(parts))


class _Reader:
    def __init__(self):
        self.gold = Gold()
        self.heading = ""

    def unit(self, kind: str, pieces, labels=(), header=()) -> None:
        pieces = tuple(clean(p) for p in pieces if clean(p))
        note = re.match(r"^\[(\d+)\]\s*(.+)$", pieces[0]) if pieces else None
        if note:  # a footnote: its mark "[12]" is a label (printed apart, or dropped)
            pieces = (note.group(2), *pieces[1:])
            labels = (*labels, f"[{note.group(1)}]", note.group(1))
        if pieces and re.search(r"\w", " ".join(pieces)):
            self.gold.units.append(Unit(kind, pieces, tuple(x for x in (self.heading, *labels) if x), -1,
                                        header=tuple(header)))

    def nav(self, el) -> None:
        """One Nav a line of el: each list item, term, cell, paragraph (its own text) and loose link."""
        seen = {n.text for n in self.gold.nav}
        lines = ("li", "dt", "dd", "td", "th", "p", "h3", "caption")
        texts = [self.split(el, False)[0]]
        for node in el.iter():
            tag = _tag(node)
            if tag in lines:
                texts.append(self.split(node, False)[0])
            elif tag == "a" and not any(_tag(up) in lines for up in node.iterancestors()):
                texts.append(inline_text(node))
        for text in texts:
            if text and len(text) < 200 and re.search(r"[^\W\d_]", text) and text not in seen:
                seen.add(text)
                self.gold.nav.append(Nav("nav", text))

    def split(self, el, first_para: bool) -> tuple[str, list]:
        """el's own inline text (with its first paragraph when first_para) and its block children."""
        parts, blocks = [el.text or ""], []
        for child in el:
            if _is_block(child) or _is_nav(child):
                if first_para and not clean("".join(parts)) and not blocks and _is_para(child):
                    text, inner = self.split(child, False)
                    parts.append(f" {text} ")
                    blocks += inner
                else:
                    blocks.append(child)
            elif _tag(child) not in SKIP:
                parts.append(inline_text(child))
            parts.append(child.tail or "")
        return clean("".join(parts)), blocks

    def walk(self, el, labels=()) -> None:
        tag, classes = _tag(el), _classes(el)
        if not tag or tag in SKIP:
            return
        if _is_nav(el):
            self.nav(el)
            return
        if re.fullmatch(r"h[1-6]", tag):
            self.heading = inline_text(el)
            return
        if tag == "pre":
            self.gold.code.append(inline_text(el))
            return
        if tag in ("ul", "ol"):
            number = int(el.get("start") or 1)
            for child in el:
                if _tag(child) == "li":
                    text, blocks = self.split(child, True)
                    mark = (f"{number}.", str(number)) if tag == "ol" else ()
                    self.unit("li", [text], (*labels, *mark))
                    for block in blocks:
                        self.walk(block, labels)
                    number += 1
                else:
                    self.walk(child, labels)
            return
        if tag == "dl":
            self.dl(el, labels)
            return
        if tag == "table":
            self.table(el, labels)
            return
        if "table" in classes and tag == "div":  # DocBook: <p class="title">Tableau 7.9. …</p> over the table
            title = next((c for c in el if _tag(c) == "p" and "title" in _classes(c)), None)
            table = el.find(".//table")
            if title is not None and table is not None:
                self.table(table, labels, inline_text(title))
                return
        if tag in ("caption", "figcaption"):
            self.unit("caption", [inline_text(el)], labels)
            return
        if classes & ADMONITIONS and el.find(".//table") is not None:
            title = el.find(".//th")
            label = inline_text(title) if title is not None else ""
            for cell in el.iter("td"):
                for child in cell:
                    self.walk(child, (*labels, label))
            return
        if "qandaset" in classes:
            self.qandaset(el, labels)
            return
        if _is_para(el):
            text, blocks = self.split(el, False)
            self.unit("p", [text], labels)
            for block in blocks:
                self.walk(block, labels)
            return
        text, blocks = self.split(el, False)
        if text:  # loose text in a div or a section
            self.unit("p", [text], labels)
        for block in blocks:
            self.walk(block, labels)

    def dl(self, el, labels) -> None:
        term = None
        for child in el:
            tag = _tag(child)
            if tag == "dt":
                if term is not None:
                    self.unit("term", [term], labels)
                term = inline_text(child)
            elif tag == "dd":
                text, blocks = self.split(child, True)
                if term is not None:
                    self.unit("term", [term, text], labels)
                else:
                    self.unit("p", [text], labels)
                for block in blocks:
                    self.walk(block, (*labels, term or ""))
                term = None
            else:
                self.walk(child, labels)
        if term is not None:
            self.unit("term", [term], labels)

    def qandaset(self, el, labels) -> None:
        question, number = None, ""
        for node in el.iter():
            if _is_nav(node) and node is not el:
                self.nav(node)
        for row in el.iter("tr"):
            cells = [c for c in row if _tag(c) == "td"]
            kind = _classes(row)
            if len(cells) < 2:
                continue
            if "question" in kind:
                number, question = inline_text(cells[0]), inline_text(cells[1])
            elif "answer" in kind and question is not None:
                text, blocks = self.split(cells[1], True)
                self.unit("faq", [question, text], (*labels, number, number.rstrip(".")))
                for block in blocks:
                    self.walk(block, (*labels, question))
                question = None

    def table(self, el, labels, title: str = "") -> None:
        """A caption (or DocBook's title over the table) joins its table: a label of each row, no unit."""
        rows = [r for r in el.iter("tr")]
        if el.get("summary") in ("Note", "Warning", "Tip", "Caution", "Important") or (
                (el.get("border") == "0" or el.get("role") == "presentation") and "table" not in _classes(el)):
            for cell in el.iter("td"):  # a layout table: its cells' content
                for child in cell:
                    self.walk(child, labels)
                if cell.text and cell.text.strip():
                    self.unit("p", [cell.text], labels)
            return
        caption = el.find("caption")
        caption = inline_text(caption) if caption is not None else title
        header: list[str] = []
        for row in rows:
            cells = [c for c in row if _tag(c) in ("td", "th")]
            texts = [inline_text(c) for c in cells]
            parent = row.getparent()
            in_head = parent is not None and _tag(parent) == "thead"
            if in_head or (not header and cells and all(_tag(c) == "th" for c in cells)):
                header += texts
                continue
            self.unit("row", texts, (*labels, *([caption] if caption else []), *header),
                      header=[h for h in header if h])


def read(html: str) -> Gold:
    """The units, navigation and code of an HTML page, in document order (pages unplaced: -1)."""
    data = html.encode("utf-8") if isinstance(html, str) else html
    root = None
    if data.lstrip().startswith(b"<?xml") or b'xmlns="http://www.w3.org/1999/xhtml"' in data[:2000]:
        # XHTML (DocBook's, Publican's): read as XML, or its <a id="x"/> would swallow what follows it
        try:
            root = lxml.etree.fromstring(data, lxml.etree.XMLParser(recover=True, resolve_entities=False,
                                                                    no_network=True))
            for el in root.iter():
                if isinstance(el.tag, str) and "}" in el.tag:
                    el.tag = el.tag.split("}", 1)[1]
        except lxml.etree.XMLSyntaxError:
            root = None
    if root is None:
        root = lxml.html.fromstring(data)
    reader = _Reader()
    title = root.find(".//title")
    if title is not None and title.text:
        reader.gold.title = clean(title.text)
        reader.gold.nav.append(Nav("title", reader.gold.title))
    body = root.find(".//body")
    reader.walk(body if body is not None else root)
    return reader.gold


# -- placing the units on the PDF's pages ------------------------------------------------------------------

def squash(text: str) -> str:
    """Letters and digits only, lower case, ligatures and accents composed: what survives any producer."""
    text = unicodedata.normalize("NFKC", text).lower()
    return re.sub(r"[\W_]+", "", text)


def place(units: list[Unit], pages: list[str], key: int = 30) -> tuple[list[Unit], list[Unit]]:
    """Each unit with `page` (0-based, where it starts) and `pages` (every page it runs over), found in the
    PDF's text (`pages`: pdftotext's, one string a page); returns (placed, not printed)."""
    squashed = [squash(p) for p in pages]
    starts, total = [], 0
    for s in squashed:
        starts.append(total)
        total += len(s)
    text = "".join(squashed)

    def page_at(pos: int) -> int:
        lo, hi = 0, len(starts) - 1
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if starts[mid] <= pos:
                lo = mid
            else:
                hi = mid - 1
        return lo

    placed, missing, cursor = [], [], 0
    for unit in units:
        pieces = [squash(p) for p in unit.pieces if squash(p)]
        if not pieces:
            missing.append(unit)
            continue
        back = starts[max(page_at(cursor) - 1, 0)]
        at = -1
        for size in (3 * key, key):  # a long key first: manuals repeat their openings ("Description : Cette…")
            head, tail = pieces[0][:size], pieces[-1][-size:]
            at = text.find(head, cursor)
            if at < 0:
                at = text.find(head, back)
            if at < 0:  # printed out of the source's order (a float, a column): anywhere
                at = text.find(head)
            if at >= 0:
                break
        if at < 0:
            missing.append(unit)
            continue
        span = sum(len(p) for p in pieces)
        end = text.find(tail, at, at + 3 * span + 3000)
        last = page_at(end + len(tail) - 1) if end >= 0 else page_at(at)
        first = page_at(at)
        placed.append(Unit(unit.kind, unit.pieces, unit.labels, first, header=unit.header,
                           pages=tuple(range(first, max(first, last) + 1))))
        if at >= cursor and first - page_at(cursor) <= 2:  # a far match (a repeated text) moves nothing
            cursor = at
    return placed, missing
