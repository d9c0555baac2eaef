"""Why not to answer: the signals that a question is not one the rulebooks answer, and the reason given.

Reasons, checked in this order (service/engine/answer.py REFUSAL_REASONS):
- off_topic: not a board-game rules question. It uses a rules word in its everyday sense ("dé à coudre",
  service/engine/decide/everyday.py), or it is closer to generic non-game questions than to generic rules questions
  (service/engine/data/reference_questions.json), or shares almost no word with the corpus.
- other_game: it names a well-known game or uses a word only other games use (service/engine/decide/other_games.py,
  lowercase included: "au poker"), or a proper name the corpus does not know (a capitalised word, not at
  the start of a sentence, found nowhere in the corpus text, titles or aliases).
- not_in_rules: about a known game, but it asks what rulebooks do not say: the box as a product, advice,
  opinions, or a rules topic the game's text does not cover (service/engine/decide/beyond_rules.py: "combien coûte la
  boîte ?", "qui commence ?" where no first player is named); or it is closer to generic "beyond the
  rules" questions than to rules questions, or its focus words appear in none of the passages found.
- weak_evidence: the best passage is not close enough (the abstention policy of service/engine/calibration.py).

Every threshold is measured on the eval's dev split (eval/tune.py) and stored in service/engine/data/calibration.json;
nothing here knows a particular game.
"""

from __future__ import annotations

import hashlib
import json
import math
import os
import re
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from indexer.analysis import analyze, folded_words
from service.engine.decide.beyond_rules import BeyondRules
from service.engine.decide.everyday import EverydaySenses
from service.engine.decide.other_games import OtherGames

REFERENCES = Path(__file__).resolve().parents[1] / "data" / "reference_questions.json"
REFERENCE_KINDS = ("rules", "beyond_rules", "off_topic")
# A capitalised word after one of these starts a sentence or a quote: capitalised for grammar, not as a name.
_SENTENCE_START = re.compile(r"(?:^|[.!?:;«\"“(\n]\s*)$")
_CAPITALISED = re.compile(r"[A-ZÀ-ÖØ-Þ][\w'’-]+")
FOCUS_PASSAGES = 3


@dataclass(frozen=True)
class Signals:
    """What the refusal decision reads, for one question."""

    unknown_names: tuple[str, ...]  # capitalised words the corpus does not know
    off_topic: float  # max cosine to off-topic references minus max cosine to rules references or passages
    beyond_rules: float  # max cosine to "beyond the rules" references minus max cosine to rules references
    coverage: float  # share of the question's terms found anywhere in the corpus
    focus: float  # share of the question's terms (game names aside) found in the passages shown first
    other_games: tuple[str, ...] = ()  # well-known games' names or terms the corpus does not use ("poker")
    everyday: tuple[str, ...] = ()  # rules words in their everyday sense ("carte bancaire")
    beyond: tuple[str, ...] = ()  # what no rulebook answers, or a topic the game's text lacks ("qui commence")


@dataclass(frozen=True)
class RefusalPolicy:
    """Thresholds of the refusal signals; the defaults refuse nothing on these signals."""

    off_topic_margin: float = math.inf  # off_topic when Signals.off_topic >= this
    min_coverage: float = 0.0  # off_topic when coverage < this
    names: bool = False  # other_game when the question has an unknown proper name
    beyond_rules_margin: float = math.inf  # not_in_rules when Signals.beyond_rules >= this
    min_focus: float = 0.0  # not_in_rules when focus < this
    # Data, not thresholds (service/engine/data/): on for every model, switchable to measure what they bring.
    other_games: bool = True  # other_game when the question names a well-known game the corpus lacks
    everyday_senses: bool = True  # off_topic when a rules word is used in its everyday sense
    beyond_cues: bool = True  # not_in_rules when the question asks what the game's rules cannot answer

    def reason(self, signals: Signals, game_known: bool) -> str | None:
        if self.everyday_senses and signals.everyday:
            return "off_topic"
        if self.other_games and signals.other_games:
            return "other_game"
        if signals.off_topic >= self.off_topic_margin or signals.coverage < self.min_coverage:
            return "off_topic"
        if self.names and signals.unknown_names:
            # A name the corpus does not know, in a question that reads like a non-game one, is a place
            # or a person ("à Lyon") rather than a game.
            return "off_topic" if signals.off_topic > 0 else "other_game"
        if game_known and self.beyond_cues and signals.beyond:
            return "not_in_rules"
        if game_known and (signals.beyond_rules >= self.beyond_rules_margin or signals.focus < self.min_focus):
            return "not_in_rules"
        return None


@lru_cache(maxsize=1)
def reference_questions() -> dict[str, tuple[str, ...]]:
    data = json.loads(REFERENCES.read_text("utf-8"))
    return {kind: tuple(data[kind]) for kind in REFERENCE_KINDS}


def reference_vectors(embedder, cache_dir: Path | None = None) -> dict[str, np.ndarray]:
    """The reference questions' vectors. With `cache_dir`, they are kept there, keyed by the model's
    fingerprint and the questions, so a restart reads them instead of encoding them again (about a second)."""
    refs = reference_questions()
    if cache_dir is None:
        return {kind: embedder.encode_queries(list(texts)) for kind, texts in refs.items()}
    key = hashlib.sha256(json.dumps([embedder.fingerprint(), refs], ensure_ascii=False).encode()).hexdigest()
    path = Path(cache_dir) / f"reference-questions-{key[:20]}.npz"
    try:
        with np.load(path) as cached:
            vectors = {kind: cached[kind] for kind in refs}
        if all(v.shape == (len(refs[kind]), embedder.dim) for kind, v in vectors.items()):
            return vectors
    except (OSError, ValueError, KeyError):
        pass  # absent or unreadable: encode and rewrite it
    vectors = {kind: embedder.encode_queries(list(texts)) for kind, texts in refs.items()}
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(prefix=".refs-", suffix=".npz", dir=path.parent)
        with os.fdopen(fd, "wb") as f:
            np.savez(f, **vectors)
        os.replace(tmp, path)  # atomic: a reader sees the old file or the whole new one
    except OSError:
        pass  # a read-only disk only costs the encoding at the next start
    return vectors


class Signaller:
    """Computes Signals; built once per loaded index (it embeds the reference questions once)."""

    def __init__(self, embedder, words: frozenset[str], games, cache_dir: Path | None = None):
        """`words`: the corpus's folded words, texts, sections and game names (the index's words.txt)."""
        self._refs = reference_vectors(embedder, cache_dir)
        self.vocabulary = words  # the router never reads a corpus word as a misspelt title
        self._game_terms = {g.id: set(analyze(" ".join([g.title, g.id, *g.aliases]))) for g in games}
        self._other_games = OtherGames(games)
        self._everyday = EverydaySenses()
        self._beyond = BeyondRules()
        self._names = {g.id: (g.title, g.id.replace("-", " "), *g.aliases) for g in games}

    def signals(self, question: str, vector: np.ndarray, coverage: float, top_cosine: float,
                passage_texts: list[str], game: str | None, game_text: str = "") -> Signals:
        """`game_text`: the routed game's text, folded (Retriever.game_text), which says what it covers."""
        sims = {kind: float((refs @ vector).max()) for kind, refs in self._refs.items()}
        return Signals(
            unknown_names=self.unknown_names(question),
            off_topic=sims["off_topic"] - max(sims["rules"], top_cosine),
            beyond_rules=sims["beyond_rules"] - sims["rules"],
            coverage=coverage,
            focus=self._focus(question, passage_texts[:FOCUS_PASSAGES], game),
            other_games=self._other_games.found(question, passage_texts),
            everyday=self._everyday.found(question, passage_texts),
            beyond=self._beyond.found(question, game_text, self._names.get(game, ())) if game else (),
        )

    def unknown_names(self, question: str) -> tuple[str, ...]:
        names = []
        for match in _CAPITALISED.finditer(question):
            if _SENTENCE_START.search(question[: match.start()]):
                continue
            words = folded_words([match.group(0)])
            if words and not words <= self.vocabulary:
                names.append(match.group(0))
        return tuple(names)

    def _focus(self, question: str, passage_texts: list[str], game: str | None) -> float:
        asked = set(analyze(question)) - self._game_terms.get(game, set())
        if not asked or not passage_texts:
            return 1.0
        found = set().union(*(_terms(text) for text in passage_texts))
        return len(asked & found) / len(asked)


@lru_cache(maxsize=4096)
def _terms(text: str) -> frozenset[str]:
    return frozenset(analyze(text))


MESSAGES = {
    "off_topic": "Je réponds aux questions sur les règles des jeux de société ; celle-ci n'en est pas une.",
    "other_game": "Cette question semble porter sur un jeu que je ne connais pas ({names}). Je connais : {known}.",
    "not_in_rules": "Les règles de {game} ne répondent pas à cette question : le livret n'en parle pas.",
    "ambiguous_game": "Précisez le jeu : {choices} ?",
    "weak_evidence": "Je ne trouve pas de réponse à cette question dans {where}. Voici les passages les plus proches.",
}


def message(reason: str, game_title: str | None, names: tuple[str, ...], known_titles: list[str]) -> str:
    where = f"les règles de {game_title}" if game_title else "les règles des jeux que je connais"
    known = ", ".join(known_titles[:8]) + (" …" if len(known_titles) > 8 else "")
    choices = ", ".join(known_titles[:-1]) + " ou " + known_titles[-1] if len(known_titles) > 1 else known
    return MESSAGES[reason].format(game=game_title or "ce jeu", where=where, names=", ".join(names) or "?",
                                   known=known, choices=choices)
