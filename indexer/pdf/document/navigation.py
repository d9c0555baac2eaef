"""What helps to find one's way in a document but is no rule: left out of the import, and counted, so that
`rulesqa import` can say on stderr what it left out and a person can check it in the PDF.

- tables of contents, with or without dot leaders or page numbers, and lists of tables or figures: runs
  of entries that repeat a heading or a caption printed on another page (section numbers and page
  numbers aside);
- indexes: runs of four entries or more ("Brume, 3, 6-8") in alphabetical order, or a table of them;
- menu paths on their own ("Réglages → Narration → Voix grave"; one followed by its indented definition
  is a term, kept);
- links back ("Retour au sommaire", "Haut de page") and a web manual's navigation bar ("Précédent Niveau
  supérieur Sommaire Suivant");
- a web manual's table of contents of its other pages: three numbered entries or more, each a link;
- copyright and licence boilerplate.
Two passes, each once: `drop_lines` before the blocks are built (entries with dot leaders, menu paths, links
back, index runs: lines that would otherwise join the text around them), `drop_blocks` once they are
(tables of contents and lists of tables, which are told by the headings and captions they repeat).
"""

import re
import unicodedata
from collections import Counter
from typing import NamedTuple

from indexer.pdf.document.blocks import Block
from indexer.pdf.text import CAPTION, LEADER

TOC, LOT, INDEX, MENU, BACK, LEGAL = ("sommaire", "liste des tableaux ou figures", "index", "chemins de menu",
                                      "liens de retour", "mentions légales")
ARROW = "→⇒➔►▸"
MENU_PATH = re.compile(rf"^[^{ARROW}]{{1,60}}(?:\s*[{ARROW}]\s*[^{ARROW}]{{1,60}}){{1,6}}$")
BACK_LINK = re.compile(r"(?i)^\W{0,3}(?:(?:retour|revenir|remonter)\s+(?:au|à\s+la|à\s+l'|en|vers\s+le)\s*"
                       r"(?:sommaire|table\s+des\s+matières|début|haut(?:\s+de\s+(?:la\s+)?page)?|menu|index|accueil)"
                       r"|haut\s+de\s+(?:la\s+)?page|page\s+(?:précédente|suivante))\W{0,3}$")
# A web manual's navigation bar, printed with the page: only its words ("Précédent Niveau supérieur",
# "Sommaire | Suivant", Sphinx's "index modules | suivant |").
NAV_WORD = (r"(?:précédent|suivant|sommaire|niveau\s+supérieur|début|accueil|table\s+des\s+matières|index|modules|"
            r"haut|remonter|page\s+précédente|page\s+suivante)")
# Alone, "Sommaire" or "Index" is the title of one, kept; two words or more, or a lone "Suivant", are a bar.
NAV_BAR = re.compile(rf"(?i)^\W*(?:{NAV_WORD}(?:\s*[|·•»«<>/\s]\s*{NAV_WORD})+|précédent|suivant|niveau\s+supérieur"
                     rf"|accueil|remonter)\W*$")
# An entry of a table of contents that links to another page of a web manual: its section number first.
TOC_LINK = re.compile(r"^(?:(?:chapitre|partie|annexe|section)\s+)?(?:\d+(?:\.\d+)*\.?|[A-Z](?:\.\d+)*\.)\s+\S", re.I)
TOC_RUN = 3
INDEX_ENTRY = re.compile(r"^(?P<term>[^\W\d][^\d:]{0,58}?)\s*,?\s+\d{1,4}(?:\s*(?:[,–-]|et)\s*\d{1,4})*\.?$")
LEGAL_TEXT = re.compile(
    r"(?i)©|\(c\)\s*(?:19|20)\d\d|\bcopyright\b|\btous\s+droits\b.{0,80}?\bréservés\b|\ball\s+rights\s+reserved\b"
    r"|\bcreative\s+commons\b|\bgnu\s+(?:free\s+documentation|fdl|gpl)\b|\blicen[cs]e\s+de\s+documentation\s+libre"
    r"|\blicen[cs]e\s+publique\s+générale|permission\s+(?:vous\s+)?est\s+(?:accordée|donnée)\s+de\s+(?:copier|"
    r"reproduire|distribuer)|\breproduction\s+(?:strictement\s+)?interdite")
NUMBERING = re.compile(r"(?i)^(?:(?:chapitre|partie|section|annexe)\s+)?(?:\d+(?:\.\d+)*\.?|[A-Z]\.|[ivxlc]+\.)\s+")
PAGE_TOKEN = re.compile(r"[.…·]*\d{1,4}(?:[,–-]\d{1,4})*[,.]?|[.…·]+|[,–-]")  # "12", "3–7,", "…"
INDEX_RUN = 4


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in text if not unicodedata.combining(c))


def key(text: str) -> str:
    """An entry's or a heading's words: numbering, dot leaders and page numbers aside."""
    words = NUMBERING.sub("", text.strip()).split()
    while words and PAGE_TOKEN.fullmatch(words[-1]):
        words.pop()
    return " ".join(re.findall(r"\w+", _fold(" ".join(words))))


def drop_lines(stream: list[tuple], counts: Counter) -> list[tuple]:
    """The (page, number, line) stream without entries with dot leaders, menu paths on their own, links back
    and index runs."""
    stream = _without_leaders(stream, counts)
    drop = _links_and_menus(stream, counts)
    drop |= _index_lines(stream, drop, counts)
    return [item for i, item in enumerate(stream) if i not in drop]


def _without_leaders(stream: list[tuple], counts: Counter) -> list[tuple]:
    """Entries with dot leaders ("Fin ....... 12") left out: a table of contents, list of tables or index."""
    out = []
    for item in stream:
        if item[2].table is None and LEADER.search(item[2].text):
            counts[TOC] += 1
        else:
            out.append(item)
    return out


def _links_and_menus(stream: list[tuple], counts: Counter) -> set[int]:
    """The positions of the links back, navigation bars and menu paths on their own (not defined under them)."""
    drop = set()
    for i, (_, _, line) in enumerate(stream):
        if line.table is not None:
            continue
        if BACK_LINK.match(line.text) or NAV_BAR.match(line.text):
            drop.add(i)
            counts[BACK] += 1
        elif (MENU_PATH.match(line.text) and all(len(s.split()) <= 6 for s in re.split(f"[{ARROW}]", line.text))
              and not _defined(stream, i)):
            drop.add(i)
            counts[MENU] += 1
    return drop


def _defined(stream: list[tuple], i: int) -> bool:
    """The next line (a link back aside) starts indented just under the menu path at `i`."""
    page, _, line = stream[i]
    later = [item for item in stream[i + 1:i + 3] if not BACK_LINK.match(item[2].text)]
    nxt = later[0] if later else None
    return (nxt is not None and nxt[0] is page and nxt[2].table is None
            and line.x0 + 0.8 * line.size < nxt[2].x0 < line.x0 + 15 * line.size
            and 0 < nxt[2].top - line.top < 3 * line.size)


def _index_lines(stream: list[tuple], dropped: set[int], counts: Counter) -> set[int]:
    """The positions of the runs of index entries in alphabetical order, among the lines not `dropped`."""
    drop: set[int] = set()
    run: list[int] = []  # consecutive index entries
    terms: list[str] = []

    def close():
        if len(run) >= INDEX_RUN and _sorted(terms):
            drop.update(run)
            counts[INDEX] += len(run)

    for i, (_, _, line) in enumerate(stream):
        match = None if line.table is not None or i in dropped else INDEX_ENTRY.match(line.text)
        if match:
            run.append(i)
            terms.append(_fold(match.group("term")))
            continue
        close()
        run, terms = [], []
    close()
    return drop


def _sorted(terms: list[str]) -> bool:
    """In alphabetical order, but for one entry in five (a sort that puts accented initials last)."""
    inversions = sum(1 for a, b in zip(terms, terms[1:]) if b <= a)
    return inversions <= max(1, len(terms) // 5) and inversions < len(terms) - 1


def _index_table(block: Block) -> bool:
    cells = [c for cells, _, _ in block.rows for c in cells if c] + [c for c in block.header if c]
    return bool(cells) and sum(1 for c in cells if INDEX_ENTRY.match(c)) >= 0.8 * len(cells)


class _Targets(NamedTuple):
    """Where each heading and each caption is printed (key -> pages), and the last block each is (key ->
    position)."""
    headings: dict[str, set[int]]
    captions: dict[str, set[int]]
    last: dict[str, int]


def _targets(blocks: list[Block]) -> _Targets:
    """A caption is a "Tableau 3 : ..." line next to a table or a picture, not one of a list of them."""
    headings: dict[str, set[int]] = {}
    captions: dict[str, set[int]] = {}
    last: dict[str, int] = {}
    for i, b in enumerate(blocks):
        if b.kind == "h":
            headings.setdefault(key(b.text), set()).update(b.pages)
            last[key(b.text)] = i
        elif b.kind == "p" and CAPTION.match(b.text):
            around = [blocks[j] for j in (i - 1, i + 1) if 0 <= j < len(blocks)]
            if not any(x.kind in ("p", "li", "row") and CAPTION.match(x.text) for x in around):
                captions.setdefault(key(b.text), set()).update(b.pages)
                last[key(b.text)] = i
    return _Targets(headings, captions, last)


def _page_number(text: str) -> int | None:
    match = re.search(r"(?:^|\s|[.…·])(\d{1,4})\s*$", text)
    return int(match.group(1)) if match else None


def drop_blocks(blocks: list[Block], counts: Counter) -> list[Block]:
    """Blocks without the tables of contents, lists of tables, indexes and legal boilerplate."""
    targets = _targets(blocks)
    kinds = [_block_kind(b, i, targets) for i, b in enumerate(blocks)]
    _index_runs(blocks, kinds)
    _link_runs(blocks, kinds)
    out = []
    for i, b in enumerate(blocks):
        kind = _final_kind(blocks, kinds, i)
        if kind is None:
            out.append(b)
        else:
            counts[kind] += len(b.rows) if b.kind == "table" else 1
    return out


def _entry(text: str, pages: list[int], at: int, targets: _Targets, strict: bool = False) -> str | None:
    """TOC or LOT for an entry: it names a heading (a caption) printed on another page, on the page
    it gives if it gives one; a heading itself must give it. Without a page number, a heading printed
    further on the same page will do (a web page's table of contents, over the sections it links)."""
    if len(text) > 120:
        return None
    k = key(text)
    if not k:
        return None
    number = _page_number(text)
    for kind, named in ((TOC, targets.headings), (LOT, targets.captions)):
        where = named.get(k, set()) - set(pages)
        if where and (number in where if number is not None else not strict):
            return kind
        if not strict and number is None and k in named and targets.last[k] > at:
            return kind
    return None


def _block_kind(b: Block, at: int, targets: _Targets) -> str | None:
    """The navigation a block is on its own: an entry of a table of contents or of a list of tables (TOC,
    LOT), a table of contents or an index as a table, else None."""
    if b.kind == "table":
        firsts = [_entry(" ".join(cells), [page], at, targets) for cells, page, _ in b.rows]
        return (TOC if sum(1 for f in firsts if f) >= max(2, 0.6 * len(firsts)) else
                INDEX if _index_table(b) else None)
    if b.kind in ("p", "li", "row", "h"):
        return _entry(b.text, b.pages, at, targets, strict=b.kind == "h")
    return None


def _final_kind(blocks: list[Block], kinds: list, i: int) -> str | None:
    """The block's navigation kind with its neighbours': one entry alone must give the page its heading or
    caption is on (a run of them need not); legal boilerplate is no entry."""
    b, kind = blocks[i], kinds[i]
    if kind in (TOC, LOT) and b.kind != "table":
        near = (i > 0 and kinds[i - 1] in (TOC, LOT)) or (i + 1 < len(kinds) and kinds[i + 1] in (TOC, LOT))
        kind = kind if near or _page_number(b.text) is not None else None
    if kind is None and b.kind in ("p", "li", "row") and LEGAL_TEXT.search(b.text):
        kind = LEGAL
    return kind


def _link_runs(blocks: list[Block], kinds: list) -> None:
    """A web manual's table of contents of other pages: runs of numbered entries, each a link of its own."""
    run: list[int] = []

    def close():
        if len(run) >= TOC_RUN:
            for j in run:
                kinds[j] = TOC

    for i, b in enumerate(blocks):
        if kinds[i] is None and b.kind in ("p", "li", "h") and b.link and len(b.text) <= 120 and TOC_LINK.match(b.text):
            run.append(i)
            continue
        close()
        run = []
    close()


def _index_runs(blocks: list[Block], kinds: list) -> None:
    """Index entries left as blocks (around an index table, over a page break): runs in alphabetical
    order, with the index tables next to them."""
    run: list[int] = []
    terms: list[str] = []

    def close():
        entries = sum(len(blocks[j].rows) if blocks[j].kind == "table" else 1 for j in run)
        if entries >= INDEX_RUN and _sorted(terms):
            for j in run:
                kinds[j] = INDEX

    for i, b in enumerate(blocks):
        match = INDEX_ENTRY.match(b.text) if b.kind in ("p", "li", "row") and kinds[i] is None else None
        if kinds[i] == INDEX or match:
            run.append(i)
            if match:
                terms.append(_fold(match.group("term")))
            continue
        close()
        run, terms = [], []
    close()
