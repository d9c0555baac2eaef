"""The features of a (question, passage) pair, what the learned judge reads (issue 35, build item 1).

Why these: the refusal was a threshold on similarity, and a passage about the same things is always similar to
a question it does not answer; the ranking's misses had the right passage 2nd to 5th behind a heading, a menu
entry, a settings reference, a neighbouring sentence or a passage sharing the question's words but not its
point. So the judge gets, beside retrieval's own scores, their ranks and gaps (how sure retrieval was), what
the passage is (its kind from the import, its length: a heading is short), how much of the question's content
it holds (in its text, in its section's title), whether a number asked meets a number given, how close a
rulebook's own question (a `Q:` passage) is to the player's, and the question's form (a "quand" wants a
moment, a "combien" a number). Each is cheap, computed once per question from what retrieval already made,
and named, so that `rulesqa ask --explain` shows why (explain()). No model and no threshold here: the ranker
and the answerability judge are trained on these columns, and their files list FEATURES in this order.
"""

from __future__ import annotations

import math
import re
from functools import lru_cache

import numpy as np

from indexer.analysis import analyze
from indexer.corpus import Game
from indexer.passages import KINDS
from service.engine.findings import Hit
from service.engine.phrases import Folded, folded_passage
from service.engine.question import Question

# The question's forms, in the order a tie between two cues at the same place is broken.
FORMS = ("quand", "combien", "qui", "peut", "comment", "quoi", "ou", "pourquoi", "other")

RETRIEVAL = ("dense", "lexical", "lexical_share", "fused", "position", "dense_rank", "lexical_rank",
             "dense_gap_top", "fused_gap_next", "fused_gap_top")
PASSAGE = (*(f"kind_{k}" for k in KINDS), "log_length")
OVERLAP = ("stems_in_passage", "stems_in_section", "stems_missing")
NUMBERS = ("asks_number", "passage_has_number", "number_match")
QA = ("qa_overlap",)
FORM = tuple(f"form_{f}" for f in FORMS)
FEATURES: tuple[str, ...] = (*RETRIEVAL, *PASSAGE, *OVERLAP, *NUMBERS, *QA, *FORM)
_COLUMN = {name: i for i, name in enumerate(FEATURES)}

# A number or an age asked, on the folded question ("à partir de quel âge" -> "a partir de quel age").
_ASKS_NUMBER = re.compile(r"\b(?:combien|nombre (?:de|d'|max|min)|quel nombre|quel age|quelle age|a quel age"
                          r"|a partir de quel|jusqu'a quel|how many|how much|how old)")
# A digit, or a French number word, in a passage's folded text; not "un" or "une", the article of almost
# every passage.
_NUMBER = re.compile(r"\d|\b(?:deux|trois|quatre|cinq|six|sept|huit|neuf|dix|onze|douze|treize|quatorze"
                     r"|quinze|seize|vingt|trente|quarante|cinquante|cent)\b")
# The cues of each form, on the folded question where "où" is written "ou_" (_where_marked): folding drops its
# accent, and "ou" (or) is everywhere. The form is the one whose cue comes first in the question ("Comment
# peut-on…" asks how, "Quand peut-on…" when); cues at the same place go by FORMS' order ("how many" is a
# combien, not a comment). "que" counts only opening the question: "est-ce que je peux" asks whether one may.
# No cue: "other" ("Quelle carte…", "Le marchand rapporte des points ?").
_FORM_CUES = {
    "quand": r"\bquand\b|\blorsque\b|\ba quel moment\b|\bwhen\b",
    "combien": r"\bcombien\b|\bhow (?:many|much)\b",
    "qui": r"\bqui\b|\bwho\b",
    "peut": (r"\bpeu[tx]\b|\bpeuvent\b|\bpouvons\b|\bpouvez\b|\bpuis[- ]je\b|\ble droit\b|\bpossible\b"
             r"|\bautorise|\bcan (?:i|we|you|one)\b"),
    "comment": r"\bcomment\b|\bhow\b|\bde quelle (?:facon|maniere)\b",
    "quoi": r"^que\b|\bqu'est[- ]ce\b|\bquoi\b|\bwhat\b",
    "ou": r"\bou_|^ou\b|\bwhere\b|\ba quel endroit\b",
    "pourquoi": r"\bpourquoi\b|\bpour quelle raison\b|\bwhy\b",
}
_OU = re.compile("ou")
_FORM_PATTERNS = tuple((form, re.compile(_FORM_CUES[form])) for form in FORMS if form in _FORM_CUES)


def feature_rows(question: Question, hits: list[Hit], game: Game | None = None) -> np.ndarray:
    """One row per hit, in the given order (hits[0] first), one column per name of FEATURES."""
    out = np.zeros((len(hits), len(FEATURES)), dtype=np.float64)
    if not hits:
        return out
    _retrieval(out, hits)
    content = _content_stems(question, game)
    asks = bool(_ASKS_NUMBER.search(question.folded))
    out[:, _COLUMN["asks_number"]] = float(asks)
    out[:, _COLUMN[f"form_{form_of(question)}"]] = 1.0
    for i, hit in enumerate(hits):
        _passage(out[i], hit, content, asks)
    return out


def explain(row: np.ndarray) -> dict[str, float]:
    """A row of feature_rows() by name, for `rulesqa ask --explain`."""
    values = np.asarray(row, dtype=np.float64).reshape(-1)
    if values.shape[0] != len(FEATURES):
        raise ValueError(f"{values.shape[0]} valeurs pour {len(FEATURES)} caractéristiques")
    return {name: float(v) for name, v in zip(FEATURES, values)}


def form_of(question: Question) -> str:
    """The question's form, one of FORMS (the cues above _FORM_CUES say how)."""
    return _form(question.folding)


def _where_marked(folding: Folded) -> str:
    """The folded question with "où" written "ou_": its "ou" whose u was a ù, precomposed or not."""
    text, where, original = folding.text, folding.where, folding.original
    out, last = [], 0
    for m in _OU.finditer(text):
        u = where[m.start() + 1]
        o = where[m.start()]
        if original[o] in "oO" and o + 1 == u and (original[u] in "ùÙ" or original[u + 1: u + 2] == "\u0300"):
            out += [text[last: m.end()], "_"]
            last = m.end()
    out.append(text[last:])
    return "".join(out)


@lru_cache(maxsize=2048)
def _form(folding: Folded) -> str:
    marked = _where_marked(folding)
    best: tuple[int, int, str] | None = None
    for order, (form, pattern) in enumerate(_FORM_PATTERNS):
        found = pattern.search(marked)
        if found and (best is None or (found.start(), order) < best[:2]):
            best = (found.start(), order, form)
    return best[2] if best else "other"


def _retrieval(out: np.ndarray, hits: list[Hit]) -> None:
    dense = np.array([h.dense for h in hits], dtype=np.float64)
    lexical = np.array([h.lexical for h in hits], dtype=np.float64)
    fused = np.array([h.score for h in hits], dtype=np.float64)
    best_lexical = lexical.max()
    out[:, _COLUMN["dense"]] = dense
    out[:, _COLUMN["lexical"]] = lexical
    out[:, _COLUMN["lexical_share"]] = lexical / best_lexical if best_lexical > 0 else 0.0
    out[:, _COLUMN["fused"]] = fused
    out[:, _COLUMN["position"]] = np.arange(len(hits))
    out[:, _COLUMN["dense_rank"]] = _rank(dense)
    out[:, _COLUMN["lexical_rank"]] = _rank(lexical)
    out[:, _COLUMN["dense_gap_top"]] = dense.max() - dense
    out[:-1, _COLUMN["fused_gap_next"]] = fused[:-1] - fused[1:]
    out[:, _COLUMN["fused_gap_top"]] = fused.max() - fused


def _rank(values: np.ndarray) -> np.ndarray:
    """0-based rank, highest first; equal values share the better rank (how many are strictly higher)."""
    return (values[None, :] > values[:, None]).sum(axis=1).astype(np.float64)


def _passage(row: np.ndarray, hit: Hit, content: frozenset[str], asks: bool) -> None:
    passage = hit.passage
    if passage.kind in KINDS:
        row[_COLUMN[f"kind_{passage.kind}"]] = 1.0
    row[_COLUMN["log_length"]] = math.log1p(len(passage.text))
    in_text = _stems(passage.text)
    found = len(content & in_text)
    row[_COLUMN["stems_in_passage"]] = _share(found, content)
    row[_COLUMN["stems_in_section"]] = _share(len(content & _heading_stems(passage.section, passage.title)),
                                              content)
    row[_COLUMN["stems_missing"]] = len(content) - found
    has_number = _has_number(passage.text)
    row[_COLUMN["passage_has_number"]] = float(has_number)
    row[_COLUMN["number_match"]] = float(asks and has_number)
    if passage.kind == "question" and passage.title:
        row[_COLUMN["qa_overlap"]] = _share(len(content & _stems(passage.title)), content)


def _share(found: int, content: frozenset[str]) -> float:
    return found / len(content) if content else 0.0


def _content_stems(question: Question, game: Game | None) -> frozenset[str]:
    """The question's stems that say what it asks: its terms, less the stems of the game's names."""
    terms = frozenset(question.terms)
    return terms - _name_stems(game) if game is not None else terms


@lru_cache(maxsize=1024)
def _name_stems(game: Game) -> frozenset[str]:
    return _stems(" ".join([game.title, game.id.replace("-", " "), *game.aliases]))


# The same passages come back for question after question: each is analysed once.
@lru_cache(maxsize=8192)
def _stems(text: str) -> frozenset[str]:
    return frozenset(analyze(text))


@lru_cache(maxsize=8192)
def _heading_stems(section: str | None, title: str | None) -> frozenset[str]:
    return _stems(f"{section or ''}\n{title or ''}")


@lru_cache(maxsize=8192)
def _has_number(text: str) -> bool:
    return bool(_NUMBER.search(folded_passage(text)))
