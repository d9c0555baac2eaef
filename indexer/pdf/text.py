"""Character normalisation shared by every imported line, so PDF text reads like the hand-written corpus:
ligatures split, no-break and thin spaces made plain, curly quotes straightened."""

import re
import unicodedata

_LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st",
              "\ufb06": "st", "\u0152": "Œ", "\u0153": "œ"}
_SPACES = dict.fromkeys(map(ord, "\u00a0\u202f\u2007\u2009\u200a\u2002\u2003\u2004\u2005\u2006"), " ")
_QUOTES = {"\u2019": "'", "\u2018": "'", "\u201b": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"'}
_TABLE = {**{ord(k): v for k, v in _LIGATURES.items()}, **_SPACES, **{ord(k): v for k, v in _QUOTES.items()},
          ord("\u200b"): "", ord("\ufeff"): "", ord("\t"): " ",
          # Control characters: glyphs of a font without a Unicode mapping (TeX guillemets read as \x13).
          **{c: "" for c in (*range(0x00, 0x09), *range(0x0b, 0x20), 0x7f)}}
_BLANKS = re.compile(r"\s+")
# pdfminer writes a glyph without a Unicode mapping as "(cid:N)": at a line start it is a dingbat bullet.
# A list's bullet opening a line ("+": how tesseract often reads one); structure.py and layout.py read it.
BULLET = re.compile(r"^[•▪◦‣●■□➢►✓–—*+-]\s+")
_CID_BULLET = re.compile(r"^\(cid:\d+\)\s+")
# A Symbol or Wingdings bullet that Word documents map to the private use area (U+F0B7 and its kin).
_PUA_BULLET = re.compile(r"^[\uf020-\uf0ff](?=\s|$)")
_CID = re.compile(r"\(cid:\d+\)")


def normalise(text: str) -> str:
    """One line of PDF text as corpus text. NFC first: some producers emit "e" + combining accent."""
    text = unicodedata.normalize("NFC", text).translate(_TABLE)
    text = _CID.sub("", _PUA_BULLET.sub("•", _CID_BULLET.sub("• ", text.strip())))
    return _BLANKS.sub(" ", text).strip()


# Second halves that make a French compound word rather than a word split by the line end.
COMPOUND_TAILS = {"être", "ci", "là", "même", "mêmes", "dessus", "dessous", "dedans", "dehors", "t-il", "t-elle",
                  "t-on", "deux", "trois", "quatre", "cinq", "sept", "huit", "neuf", "dix"}


def join_hyphenated(head: str, tail: str, vocabulary: set[str]) -> str:
    """`head` ends with "-" at a line end and `tail` starts the next line: a word split by hyphenation
    ("dé-" + "fausse" -> "défausse") or a compound that happened to break at its hyphen ("peut-" + "être").
    The document's own words decide when they can; otherwise known French compound tails keep the hyphen."""
    left = re.search(r"(\w+)-$", head)
    right = re.match(r"([\w'-]+)", tail)
    if not left or not right:
        return f"{head} {tail}" if not head.endswith("-") else head + tail
    a, b = left.group(1), right.group(1)
    bare = b.split("'")[0].rstrip(".,;:!?").lower()
    joined, kept = (a + b).lower(), f"{a}-{b}".lower()
    keep = (kept in vocabulary and joined not in vocabulary) or (
        joined not in vocabulary and (bare in COMPOUND_TAILS or b[:1].isupper() or b[:1].isdigit() or "-" in b))
    return head + tail if keep else head[:-1] + tail


# An entry of a table of contents or an index: a dot leader and page numbers ("Fin ....... 12").
LEADER = re.compile(r"(?:\.\s?){4,}|…{2,}|(?:\s\.){3,}")
# A table's or a figure's caption: text to quote (a passage), not a section title.
CAPTION = re.compile(r"(?i)^(?:tableau|table|figure|fig\.|illustration|image|schéma|encadré)\s+[\dIVX]+\b")
_LETTERS = re.compile(r"[^\W\d_]+")
_TOKENS = re.compile(r"\S+")


def _word(token: str) -> bool:
    """Letters a person reads: two different ones or more, no lowercase-then-capital inside ("hP")."""
    letters = "".join(_LETTERS.findall(token))
    return len(set(letters.lower())) > 1 and not re.search(r"[a-zà-ÿ][A-ZÀ-Þ]", letters[:3])


def reads_as_text(text: str, numbers_too: bool = False) -> bool:
    """Words a person reads, not a row of symbols or music glyphs mapped to letters ("h h h ª h h",
    "ª hhhhhh", "4 h h"). `numbers_too`: a row of figures (a table, a score) counts as text."""
    tokens = _TOKENS.findall(text)
    if any(_word(t) for t in tokens):
        return True
    junk = [t for t in tokens if _LETTERS.search(t)]
    return numbers_too and not junk and any(c.isdigit() for c in text)
