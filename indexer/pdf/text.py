"""Character normalisation shared by every imported line, so PDF text reads like the hand-written corpus:
ligatures split, no-break and thin spaces made plain, curly quotes straightened."""

import re
import unicodedata

_LIGATURES = {"\ufb00": "ff", "\ufb01": "fi", "\ufb02": "fl", "\ufb03": "ffi", "\ufb04": "ffl", "\ufb05": "st",
              "\ufb06": "st", "\u0152": "Œ", "\u0153": "œ"}
_SPACES = dict.fromkeys(map(ord, "\u00a0\u202f\u2007\u2009\u200a\u2002\u2003\u2004\u2005\u2006"), " ")
_QUOTES = {"\u2019": "'", "\u2018": "'", "\u201b": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"', "\u201e": '"'}
_TABLE = {**{ord(k): v for k, v in _LIGATURES.items()}, **_SPACES, **{ord(k): v for k, v in _QUOTES.items()},
          ord("\u200b"): "", ord("\ufeff"): ""}
_BLANKS = re.compile(r"\s+")
# pdfminer writes a glyph without a Unicode mapping as "(cid:N)": at a line start it is a dingbat bullet.
_CID_BULLET = re.compile(r"^\(cid:\d+\)\s+")
_CID = re.compile(r"\(cid:\d+\)")


def normalise(text: str) -> str:
    """One line of PDF text as corpus text. NFC first: some producers emit "e" + combining accent."""
    text = unicodedata.normalize("NFC", text).translate(_TABLE)
    text = _CID.sub("", _CID_BULLET.sub("• ", text.strip()))
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
