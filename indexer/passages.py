"""Passages: the units a player wants quoted, each citing exactly the pages its own text comes from."""

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path

from indexer import game_card as card
from indexer.corpus import Block, GameDoc, Line, read_corpus

RULE = "rule"
# What each passage is: rule text, an example, a table row, a term and its definition, a question and its
# answer, a numbered step, a reference (menus, settings, keys), meta text (credits, authors), a caption.
KINDS = (RULE, "example", "row", "term", "question", "step", "reference", "meta", "caption", card.KIND)
STEP = re.compile(r"^(?:\d{1,2}[.)]|étape\s+\d+\b)", re.I)


@dataclass(frozen=True)
class Passage:
    id: str
    game: str
    section: str | None
    title: str | None
    pages: tuple[int, ...]
    text: str
    line: int
    kind: str = RULE  # one of KINDS; "card": the game card made from the header (indexer/game_card.py)

    @property
    def is_card(self) -> bool:
        return self.kind == card.KIND

    def to_dict(self) -> dict:
        # Field by field rather than dataclasses.asdict (a deep copy): 10 times faster on a shelf's
        # few hundred thousand passages, written and hashed at every build.
        return {"id": self.id, "game": self.game, "section": self.section, "title": self.title,
                "pages": list(self.pages), "text": self.text, "line": self.line, "kind": self.kind}

    @classmethod
    def from_dict(cls, data: dict) -> "Passage":
        return cls(**{**data, "pages": tuple(data["pages"])})


FRAGMENT_WORDS = 5


def is_fragment(passage: Passage) -> bool:
    """A passage too short to say anything alone (a heading or a sentence's end cut off): under five words,
    and not a table row, a term or the card, whose few words are whole."""
    return passage.kind not in ("row", "term", card.KIND) and len(passage.text.split()) < FRAGMENT_WORDS


def _pages(lines: tuple[Line, ...]) -> tuple[int, ...]:
    return tuple(sorted({page for line in lines for page in line.pages}))


def _join(title: str | None, lines: tuple[Line, ...]) -> str:
    parts = ([title] if title else []) + [line.text for line in lines]
    return "\n".join(parts)


def _units(block: Block):
    """(title, text, lines, kind) for each passage a block yields."""
    if block.kind == "qa":
        yield block.title, _join(None, block.lines), block.lines, "question"
    elif block.kind == "bullets":
        for title, line in block.items:
            kind = line.kind or ("step" if STEP.match(title or line.text) else "term" if title else RULE)
            yield title, _join(title, (line,)), (line,), kind
    elif block.kind == "table":
        caption = block.caption
        for line in block.lines:  # one row, one passage; the caption over it, like its header, a label that is
            # not cited (the row's own page is)
            if caption is None:
                yield None, line.text, (line,), "row"
            else:
                yield caption.text, _join(caption.text, (line,)), (line,), "row"
    else:
        for unit in _paragraphs(block.lines):
            yield None, _join(None, unit), unit, unit[0].kind or RULE


def _paragraphs(lines: tuple[Line, ...]):
    """Each line is a paragraph; a lead line ending with ":" keeps the list lines that follow it."""
    unit: list[Line] = []
    for line in lines:
        continues_list = unit and unit[0].text.endswith(":") and line.text.startswith("- ")
        if unit and not continues_list:
            yield tuple(unit)
            unit = []
        unit.append(line)
    if unit:
        yield tuple(unit)


def _passage_id(game: str, section: str | None, text: str, seen: set[str]) -> str:
    # Content-addressed so the same text keeps the same id across builds (embedding reuse, links).
    digest = hashlib.sha256(f"{game}\x1f{section or ''}\x1f{text}".encode()).hexdigest()[:12]
    base = candidate = f"{game}-{digest}"
    n = 2
    while candidate in seen:
        candidate, n = f"{base}-{n}", n + 1
    seen.add(candidate)
    return candidate


def card_passage(doc: GameDoc, seen: set[str]) -> Passage | None:
    """The game card as a passage (no page: it is cited as "fiche du jeu"), or None without card fields."""
    text = card.card_text(doc.game)
    if text is None:
        return None
    return Passage(_passage_id(doc.game.id, card.SECTION, text, seen), doc.game.id, card.SECTION, None, (), text,
                   1, card.KIND)  # line 1: the header, which opens the file


def passages_of(doc: GameDoc) -> list[Passage]:
    """The game card first (when the header has one), then the rulebook's passages in file order."""
    seen: set[str] = set()
    first = card_passage(doc, seen)
    out = [first] if first else []
    for block in doc.blocks:
        for title, text, lines, kind in _units(block):
            out.append(
                Passage(
                    id=_passage_id(doc.game.id, block.section, text, seen),
                    game=doc.game.id,
                    section=block.section,
                    title=title,
                    pages=_pages(lines),
                    text=text,
                    line=lines[0].number,
                    kind=kind,
                )
            )
    return out


def load_passages(corpus: Path) -> tuple[list[GameDoc], list[Passage]]:
    docs = read_corpus(corpus)
    return docs, [p for doc in docs for p in passages_of(doc)]
