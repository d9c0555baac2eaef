"""The block, what the import's stages hand on: built from the lines (structure.py), grouped into units
(units.py), left out when it is navigation (navigation.py), given its role (kinds.py), written (writer.py)."""

from dataclasses import dataclass, field

from indexer.pdf.page.lines import TextLine


@dataclass(slots=True)  # tens of thousands on a long manual: no dict each
class Block:
    kind: str  # "h", "p", "li", "row", "table"; units.py adds "term" and "qa"
    text: str
    level: int = 0  # headings: 1..3
    pages: list[int] = field(default_factory=list)
    # Where the block's lines are printed: (printed page, x0, top, x1, bottom) as fractions of the page.
    boxes: list[tuple] = field(default_factory=list)
    title: str = ""  # term: the term (text: its definition); qa: the question (text: the answer); table: its caption
    header: list[str] | tuple = ()  # table: the header's cells, empty when it has none
    rows: list[tuple] | tuple = ()  # table: (cells, printed page, box) per row
    bold: bool = False  # its first line mostly bold
    numbered: bool = False  # a list item that starts with its number
    link: bool = False  # its first line is a link of its own
    mono: bool = False  # its first line is in a monospace font (code)
    ruled: bool = False  # table: drawn with rules (else found from aligned pieces)
    title_pages: list[int] | tuple = ()  # term, qa, a captioned table: the pages of the title's lines
    role: str | None = None  # what the passage is when its form does not say it (kinds.py): example, meta, …
    text_pages: list[int] | tuple = ()  # term, qa: the pages of the text's lines
    _first: TextLine | None = None
    _last: TextLine | None = None
    _last_page: int = -1
    _x0: float = 0.0
    _size: float = 0.0
