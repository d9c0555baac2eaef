"""The French analyzer shared by the lexical index and the queries.

Order matters: elisions are split and stopwords dropped on the accented form, the Snowball French
stemmer runs on the accented form (it was written for it), and accents are folded last so that a
player typing "pepites" matches "pépites".
"""

import re
import unicodedata
from collections.abc import Iterable
from functools import lru_cache

from bm25s.stopwords import STOPWORDS_FRENCH

APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'", "´": "'", "ʼ": "'"})
# l' d' qu' j' n' s' c' m' t' jusqu' lorsqu' puisqu' quoiqu': the article or pronoun is a stopword.
ELISION = re.compile(r"\b(?:[ldjnsctm]|qu|jusqu|lorsqu|puisqu|quoiqu)'(?=\w)", re.IGNORECASE)
TOKEN = re.compile(r"\w+")
# Bump when analyze() changes: the lexical index must then be rebuilt.
ANALYZER_VERSION = 1
# Question words say nothing about which rule is asked; "combien" or "quand" must not pull passages
# that happen to contain them.
QUESTION_WORDS = {"comment", "combien", "quand", "pourquoi", "quel", "quelle", "quels", "quelles", "quoi", "peut", "faut"}
STOPWORDS = frozenset(STOPWORDS_FRENCH) | QUESTION_WORDS


def fold(text: str) -> str:
    """Lowercase without diacritics: "Arrêt" -> "arret"."""
    decomposed = unicodedata.normalize("NFKD", text.lower())
    return "".join(c for c in decomposed if not unicodedata.combining(c)).replace("œ", "oe").replace("æ", "ae")


def folded_words(tokens: Iterable[str]) -> frozenset[str]:
    """The folded words of whitespace-separated tokens ("Arrêt," -> "arret"): a corpus's vocabulary as a
    player types it, which tells a name the corpus does not know from one of its words (service/engine/decide/refusal.py).
    Folding is per character, so folding each distinct token gives the words of the whole text."""
    return frozenset(w for token in set(tokens) for w in TOKEN.findall(fold(token)))


@lru_cache(maxsize=1)
def _stemmer():
    import Stemmer

    return Stemmer.Stemmer("french")


def words(text: str) -> list[str]:
    """Lowercased words with elided articles and pronouns removed, accents kept."""
    text = ELISION.sub(" ", text.translate(APOSTROPHES).lower())
    return TOKEN.findall(text.replace("_", " "))


def word_stems(words: Iterable[str]) -> list[str]:
    """Each word's stem, stopwords kept: the folded words of a vocabulary and of a name compared by stem
    ("Calmes" and "calme" alike)."""
    return _stemmer().stemWords(list(words))


def analyze(text: str) -> list[str]:
    """Text -> index terms: words, minus stopwords, stemmed, accent-folded. Digits are kept ("2 points")."""
    return [term for term, _, _ in analyze_spans(text)]


_WORD_OR_UNDERSCORE = re.compile(r"[^\W_]+")
_ELIDED = frozenset({"l", "d", "j", "n", "s", "c", "t", "m", "qu", "jusqu", "lorsqu", "puisqu", "quoiqu"})


def analyze_spans(text: str) -> list[tuple[str, int, int]]:
    """Text -> index terms with their character offsets in `text` (the players' words are replaced where they
    stand in the question, service/engine/routing/players_words.py). Words are lowercased one at a time, so
    that offsets hold: the few letters whose lowercase is longer (Turkish İ) no longer split their word, as
    lowercasing the whole text first did; no corpus or gold text holds one, and the index's terms are unchanged.
    Stopwords are matched accented: folding first would drop "dés" (dice) as "des"."""
    text = text.translate(APOSTROPHES)  # one character for one: offsets stay those of `text`
    kept = []
    for m in _WORD_OR_UNDERSCORE.finditer(text):
        word = m.group().lower()
        starts_word = m.start() == 0 or not (text[m.start() - 1].isalnum() or text[m.start() - 1] == "_")
        elided = (word in _ELIDED and starts_word and text[m.end(): m.end() + 1] == "'"
                  and (text[m.end() + 1: m.end() + 2].isalnum() or text[m.end() + 1: m.end() + 2] == "_"))
        if not elided and word not in STOPWORDS:
            kept.append((word, m.start(), m.end()))
    stems = _stemmer().stemWords([w for w, _, _ in kept])
    return [(fold(stem), a, b) for stem, (_, a, b) in zip(stems, kept)]
