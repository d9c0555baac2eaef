"""Phrases found in a question as a player types it: case, accents, apostrophes and spacing ignored.

The data files of service/engine/data/ (card questions, other games, everyday senses) list phrases or regular
expressions written on folded text ("a partir de quel age"); this module folds the question the same way
and finds them on word boundaries, with their character offsets in the folded text.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections.abc import Iterable
from functools import lru_cache
from dataclasses import dataclass

from indexer.analysis import APOSTROPHES, TOKEN, fold

_SPACES = re.compile(r"[\s\u00a0]+")


def folded(text: str) -> str:
    """The text as the patterns are written: lowercase, no accents, straight apostrophes, single spaces."""
    return _SPACES.sub(" ", fold(text.translate(APOSTROPHES))).strip()


@lru_cache(maxsize=1024)
def name_words(game) -> frozenset[str]:
    """The folded words of a game's title, id and aliases (indexer.corpus.Game)."""
    return frozenset(TOKEN.findall(fold(" ".join([game.title, game.id.replace("-", " "), *game.aliases]))))


@lru_cache(maxsize=4096)
def folded_passage(text: str) -> str:
    """folded(text), kept for the passages that questions bring back again and again."""
    return folded(text)


@lru_cache(maxsize=256)
def _folded_with_offsets(text: str) -> tuple[str, tuple[int, ...]]:
    """folded(text), and for each of its characters the offset of the character of `text` it comes from."""
    out, where = [], []
    for i, char in enumerate(text.translate(APOSTROPHES)):
        if _SPACES.fullmatch(char):
            if out and out[-1] != " ":
                out.append(" ")
                where.append(i)
            continue
        for c in fold(char):
            out.append(c)
            where.append(i)
    while out and out[-1] == " ":
        out.pop()
        where.pop()
    return "".join(out), tuple(where)


@dataclass(frozen=True)
class Folded:
    """A text folded once (folded()'s form), with the offset in `original` of each of its characters: what
    every stage reads of a question as a player types it (service/engine/question: Question.folding)."""

    text: str
    where: tuple[int, ...]
    original: str

    @staticmethod
    def of(text: str) -> Folded:
        folded_text, where = _folded_with_offsets(text)
        return Folded(folded_text, where, text)

    def source(self, start: int, end: int) -> tuple[int, int]:
        """The offsets in `original` of the folded characters start:end (end > start)."""
        return self.where[start], self.where[end - 1] + 1

    def part(self, start: int, end: int) -> str:
        """The folded form of original[start:end], cut at character boundaries."""
        return self.text[bisect_left(self.where, start): bisect_left(self.where, end)]


@dataclass(frozen=True)
class Found:
    phrase: str  # the pattern that matched, as written in the data file
    start: int  # offsets in folded(question)
    end: int
    text: str  # what it matched, folded (its `name` group when the pattern has one: "au go" -> "go")
    typed: str  # the same words as the question has them ("Catan")


class PhraseMatcher:
    """Any of `patterns` (regular expressions over folded text) as whole words."""

    def __init__(self, patterns: Iterable[str]):
        self.patterns = tuple(patterns)
        self._compiled = [(p, re.compile(rf"(?<![\w+]){p}(?![\w])")) for p in self.patterns]
        # All of them at once first: most questions hold none, and one search says so (no group names, which
        # several patterns may share).
        either = "|".join(f"(?:{p.replace('(?P<name>', '(')})" for p in self.patterns)
        self._any = re.compile(rf"(?<![\w+])(?:{either})(?![\w])") if self.patterns else None

    def find(self, text: str | Folded, already_folded: bool = False) -> list[Found]:
        """Every match, in order of position; overlapping matches of different patterns are all kept. `text`: a
        Folded (a question's, folded once), a folded string (`already_folded`), or a text to fold."""
        if isinstance(text, Folded):
            haystack, where, text = text.text, text.where, text.original
        else:
            haystack, where = (text, range(len(text))) if already_folded else _folded_with_offsets(text)
        if self._any is None or not self._any.search(haystack):
            return []
        out = []
        for p, rx in self._compiled:
            for m in rx.finditer(haystack):
                group = "name" if "name" in rx.groupindex else 0
                a, b = m.span(group)
                out.append(Found(p, m.start(), m.end(), m.group(group), text[where[a]: where[b - 1] + 1]))
        return sorted(out, key=lambda f: (f.start, -f.end))

    def __bool__(self) -> bool:
        return bool(self.patterns)
