"""Blocks -> the units a rulebook is made of, kept whole: a term and its definition, a step's title and its
text, a question and its answer. Each becomes one passage in the corpus (a bullet with the term as its title,
a `Q:` block); without this, the term or the question is a passage of its own and its explanation another.

- A question: a line ending with "?" that is a heading, bold, numbered ("6.2", "Q3.") or under a heading
  of questions ("Questions fréquentes", "FAQ"), followed by its answer (the next paragraph, and the list
  its last line announces with ":").
- A term: a short line that ends no sentence (a glossary's "Brume", "Rivière (5 cartes)", a step's
  "1. Le talon", a menu's "Partie → Pause"), followed by a paragraph that is indented under it (a
  definition list), or that is its only paragraph while the term stands out (bold, numbered).
- A two-column table without rules or header whose second column is prose is a list of terms
  (groff's and troff's hanging paragraphs, a short term on the line of its definition).
"""

import re
from collections import Counter

from indexer.pdf.document.blocks import Block
from indexer.pdf.text import CAPTION

TERM_CHARS, TERM_WORDS = 60, 10
QUESTION_CHARS = 220
NUMBER = re.compile(r"^(?:Q\s?\d+|\d+(?:\.\d+)*)[.)]?\s")
FAQ = re.compile(r"(?i)\b(?:questions?|faq|foire aux questions)\b")
ENDS = re.compile(r"[.:;,!?…]$")
SENTENCE = re.compile(r"[.!?…](?:\s|$)")


def _body(blocks: list[Block]) -> float:
    sizes = Counter()
    for b in blocks:
        if b.kind in ("p", "li"):
            sizes[round(b._size * 2) / 2] += len(b.text)
    return sizes.most_common(1)[0][0] if sizes else 10.0


def _same_page(a: Block, b: Block) -> bool:
    return bool(set(a.pages) & set(b.pages))


def _question(block: Block, faq: bool, body: float) -> bool:
    text = block.text
    if block.kind not in ("h", "p", "li") or not text.endswith("?") or len(text) > QUESTION_CHARS:
        return False
    if len(SENTENCE.findall(text[:-1])) > 1:  # an answer with a question in it, not a question
        return False
    return block.kind == "h" or block.bold or bool(NUMBER.match(text)) or faq


def _term_like(block: Block) -> bool:
    text = block.text
    return ((block.kind in ("h", "p") or block.kind == "li" and block.numbered) and len(text) <= TERM_CHARS
            and len(text.split()) <= TERM_WORDS and not ENDS.search(text) and bool(re.search(r"\w", text))
            and not CAPTION.match(text))


def _under(term: Block, text: Block) -> bool:
    """The text starts right under the term (on its page, not left of it)."""
    a, b = term._last, text._first
    return (a is not None and b is not None and term._last_page == text._last_page and b.x0 > a.x0 - b.size
            and -0.3 * b.size <= b.top - a.bottom < 1.5 * max(b.size, 1))


def _is_term(blocks: list[Block], i: int, body: float, sibling: Block | None = None) -> bool:
    """`sibling`: the term just made before this block's previous one, whose style a next step shares."""
    term, text = blocks[i], blocks[i + 1]
    if not _plain_pair(term, text) or _section_title(term, body) or not _under(term, text):
        return False
    if _indented_definition(term, text):
        return True
    stands_out = term.bold or term.numbered
    after = blocks[i + 2] if i + 2 < len(blocks) else None
    only = after is None or after.kind != "p" or after.bold or not _same_page(text, after)
    return stands_out and (only or _next_step(term, sibling))


def _plain_pair(term: Block, text: Block) -> bool:
    """A line that may be a term, over a paragraph of its page; not both in bold (nothing sets the term
    apart then), no link and no code in either."""
    return (_term_like(term) and text.kind == "p" and _same_page(term, text) and not (term.bold and text.bold)
            and not (term.link or text.link or term.mono or text.mono))


def _section_title(term: Block, body: float) -> bool:
    """A heading larger than the text (or not bold) is a section's title, not a term."""
    return term.kind == "h" and not (term.bold and abs(term._size - body) < 0.6)


def _indented_definition(term: Block, text: Block) -> bool:
    """A definition list: the definition indented under its term, all its lines (not a paragraph's indented
    first line)."""
    return text._x0 > term._x0 + 0.8 * max(text._size, 1) and all(b[1] > term.boxes[0][1] + 0.01 for b in text.boxes)


def _next_step(term: Block, sibling: Block | None) -> bool:
    """The next of a series of steps (each a title and a paragraph), which may be followed by more text: in
    the style of the term made just before, and aligned with it."""
    return (sibling is not None and (sibling.kind, sibling.bold, sibling._size) == ("term", term.bold, term._size)
            and abs(sibling._x0 - term._x0) < 1)


def _terms_from_table(block: Block) -> list[Block] | None:
    if block.header or not block.rows or len(block.rows[0][0]) != 2 or block.ruled:
        return None
    firsts = sorted(len(cells[0]) for cells, _, _ in block.rows)
    seconds = sorted(len(cells[1]) for cells, _, _ in block.rows)
    if firsts[len(firsts) // 2] > TERM_CHARS / 2 or seconds[len(seconds) // 2] < 40:
        return None
    out = []
    for (term, text), page, box in block.rows:
        if not term or not text:
            return None
        out.append(Block("term", text, title=term, pages=[page], boxes=[box], title_pages=[page], text_pages=[page]))
    return out


def group_units(blocks: list[Block]) -> list[Block]:
    body = _body(blocks)
    out: list[Block] = []
    faq, faq_level = False, 0
    i = 0
    while i < len(blocks):
        block = blocks[i]
        if block.kind == "h" and not block.text.endswith("?"):
            if FAQ.search(block.text):
                faq, faq_level = True, block.level
            elif faq and block.level <= faq_level:
                faq = False
        nxt = blocks[i + 1] if i + 1 < len(blocks) else None
        if nxt is not None and nxt.kind in ("p", "li") and _question(block, faq, body):
            answer = [nxt]
            while (answer[-1].text.endswith(":") and i + len(answer) + 1 < len(blocks)
                   and blocks[i + len(answer) + 1].kind == "li"):
                answer.append(blocks[i + len(answer) + 1])
            out.append(_joined("qa", block, answer))
            i += 1 + len(answer)
            continue
        sibling = out[-1] if out and out[-1].kind == "term" else None
        if nxt is not None and _is_term(blocks, i, body, sibling):
            out.append(_joined("term", block, [nxt]))
            i += 2
            continue
        if block.kind == "table":
            terms = _terms_from_table(block)
            if terms:
                out += terms
                i += 1
                continue
        out.append(block)
        i += 1
    return out


def _joined(kind: str, head: Block, rest: list[Block]) -> Block:
    text = " ".join(b.text if b.kind != "li" or b.numbered else f"– {b.text}" for b in rest)
    pages = list(dict.fromkeys(head.pages + [p for b in rest for p in b.pages]))
    return Block(kind, text, title=head.text, pages=pages, boxes=head.boxes + [x for b in rest for x in b.boxes],
                 bold=head.bold, title_pages=list(head.pages),
                 text_pages=list(dict.fromkeys(p for b in rest for p in b.pages)), _x0=head._x0, _size=head._size)
