"""Gold without source markup, from two text references that read a PDF in ways of their own: poppler's reading
order (`pdftotext`) and pdfium's text in content order (`get_text_range`). What both give is taken as printed.

- sentences: every sentence of five words or more of poppler's page text that pdfium's same page also holds
  (accents, case, whitespace and hyphens folded away);
- words: the words either reference reads, to tell a word cut apart ("Pou r") or two glued ("lajoueuse")
  beyond the references' own.
"""

import re
import subprocess
import unicodedata
from dataclasses import dataclass

MIN_WORDS = 5
_QUOTES = str.maketrans({"\u2019": "'", "\u2018": "'", "\u201c": '"', "\u201d": '"', "\u00ab": '"', "\u00bb": '"',
                         "\u00a0": " ", "\u202f": " ", "\u00ad": "", "\ufffe": "-", "\u2010": "-", "\u2011": "-"})
_NOT_KEY = re.compile(r"[^0-9a-z]+")
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[\"'(«]?[A-ZÀ-Ý0-9•])|\n\s*\n|\s*•\s*")
_WORD = re.compile(r"[^\W_]+(?:['’][^\W_]+)*")


def fold(text: str) -> str:
    """Compatibility forms (ligatures) split, accents dropped, lowercase."""
    text = unicodedata.normalize("NFKD", text.translate(_QUOTES))
    return "".join(c for c in text if not unicodedata.combining(c)).lower()


def key(text: str) -> str:
    """Letters and digits only: what stays of a sentence whatever the line breaks, hyphens and spaces."""
    return _NOT_KEY.sub("", fold(text))


def words(text: str) -> list[str]:
    return [w for w in _WORD.findall(fold(text)) if w]


def poppler_pages(pdf) -> list[str]:
    out = subprocess.run(["pdftotext", "-q", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, check=True).stdout
    pages = out.decode("utf-8", "replace").split("\f")
    return pages[:-1] if pages and not pages[-1].strip() else pages


def pdfium_pages(pdf) -> list[str]:
    import pypdfium2 as pdfium

    doc = pdfium.PdfDocument(str(pdf))
    try:
        out = []
        for i in range(len(doc)):
            page = doc[i]
            text = page.get_textpage()
            out.append(text.get_text_range())
            text.close()
            page.close()
        return out
    finally:
        doc.close()


@dataclass
class Sentence:
    text: str
    key: str
    page: int  # 0-based PDF page
    half: int = 0  # on a spread: 1 left, 2 right (0: a single page)


def sentences(poppler: list[str], pdfium: list[str]) -> list[Sentence]:
    """The sentences of five words or more that both references give, with their PDF page."""
    out = []
    for i, text in enumerate(poppler):
        other = key(pdfium[i]) if i < len(pdfium) else ""
        # A line-end hyphen is the line's, not the word's: "dé-\nfausse" reads "défausse" in both.
        text = re.sub(r"-\n(?=[a-zà-ÿ])", "", text)
        seen = set()
        for piece in _SENTENCE_END.split(text):
            piece = " ".join(piece.split())
            k = key(piece)
            if len(words(piece)) >= MIN_WORDS and k in other and k not in seen:
                seen.add(k)
                out.append(Sentence(piece, k, i))
    return out


def vocabulary(*references: list[str]) -> set[str]:
    return {w for pages in references for page in pages for w in words(re.sub(r"-\n(?=[a-zà-ÿ])", "", page))}


def cut_and_glued(text: str, vocab: set[str]) -> tuple[list[str], list[str]]:
    """(words cut apart: two neighbours that make a reference word while one alone is none; words glued: one
    that is no reference word but two of them side by side)."""
    tokens = words(text)
    cut, glued = [], []
    for a, b in zip(tokens, tokens[1:]):
        if (a not in vocab or b not in vocab) and a + b in vocab and len(a + b) >= 3:
            cut.append(f"{a} {b}")
    for t in tokens:
        if t not in vocab and len(t) >= 4 and any(t[:k] in vocab and t[k:] in vocab and min(k, len(t) - k) >= 2
                                                  for k in range(1, len(t))):
            glued.append(t)
    return cut, glued
