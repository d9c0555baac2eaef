"""The signals that a question is not one the rulebooks answer (decide/refusal.py turns them into a reason):
its nearness to reference questions of each kind, names the corpus does not know, other games' names, rules
words in their everyday sense, what no rulebook answers, and the share of its words the passages found hold.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import tempfile
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from indexer.analysis import STOPWORDS, TOKEN, analyze, fold, word_stems
from service.engine.decide.beyond_rules import BeyondRules
from service.engine.decide.everyday import EverydaySenses
from service.engine.decide.other_games import OtherGames
from service.engine.findings import Findings
from service.engine.phrases import name_words
from service.engine.question import Question
from service.engine.question.reading import Reading

REFERENCES = Path(__file__).resolve().parents[1] / "data" / "reference_questions.json"
REFERENCE_KINDS = ("rules", "beyond_rules", "off_topic")
# A capitalised word after one of these starts a sentence or a quote: capitalised for grammar, not as a name.
_SENTENCE_START = re.compile(r"(?:^|[.!?:;«\"“(\n]\s*)$")
_CAPITALISED = re.compile(r"[A-ZÀ-ÖØ-Þ][\w'’-]+")
_FOLDED_STOPWORDS = frozenset(fold(w) for w in STOPWORDS)
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
    # Every content word of the question is a word of the asked game's rulebook ("le dé météo a combien de
    # faces nuage ?" in a game of weather dice): a question about that game, however near to off-topic ones.
    in_game_words: bool = False


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
        # A capitalised word is no unknown name when it is an inflection of a corpus word ("les Unes", "Calmes").
        self._vocabulary_stems = frozenset(word_stems(words))
        self._game_terms = {g.id: set(analyze(" ".join([g.title, g.id, *g.aliases]))) for g in games}
        self._other_games = OtherGames(games)
        self._everyday = EverydaySenses()
        self._beyond = BeyondRules()
        self._names = {g.id: (g.title, g.id.replace("-", " "), *g.aliases) for g in games}

    def signals(self, reading: Reading, findings: Findings) -> Signals:
        """The signals of what the question found: its routed game's text says what that game covers."""
        route, game, shelf = findings.route, findings.game, findings.retrieved.shelf
        # A misspelt title ("Karouba") is the game's name, not an unknown one: read as its title.
        question = reading.titled
        vector, coverage = (game.vector, game.coverage) if game is not None else (shelf.vector, shelf.coverage)
        passage_texts = [h.passage.text for h in findings.hits]
        top_cosine = findings.hits[0].dense if findings.hits else 0.0
        sims = {kind: float((refs @ vector).max()) for kind, refs in self._refs.items()}
        return Signals(
            unknown_names=self.unknown_names(question),
            off_topic=sims["off_topic"] - max(sims["rules"], top_cosine),
            beyond_rules=sims["beyond_rules"] - sims["rules"],
            coverage=coverage,
            focus=self._focus(question, passage_texts[:FOCUS_PASSAGES], route.game),
            other_games=self._other_games.detect(question, passage_texts, game.text if game is not None else "",
                                                 game.game if game is not None else None),
            everyday=self._everyday.detect(question, passage_texts, game.text if game is not None else ""),
            beyond=(self._beyond.detect(question, game.text, self._names.get(route.game, ()))
                    if game is not None else ()),
            in_game_words=game is not None and self._in_game_words(question, game.game, game.words),
        )

    @staticmethod
    def _in_game_words(question: Question, game, game_words: frozenset[str]) -> bool:
        names = name_words(game)
        words = {w for w in TOKEN.findall(question.folded) if w not in _FOLDED_STOPWORDS and w not in names}
        return bool(words) and words <= game_words

    def unknown_names(self, question: Question) -> tuple[str, ...]:
        names = []
        text = question.text
        for match in _CAPITALISED.finditer(text):
            if _SENTENCE_START.search(text[: match.start()]):
                continue
            unknown = [w for w in TOKEN.findall(question.folding.part(match.start(), match.end()))
                       if w not in self.vocabulary]
            if unknown and not set(word_stems(unknown)) <= self._vocabulary_stems:
                names.append(match.group(0))
        return tuple(names)

    def _focus(self, question: Question, passage_texts: list[str], game: str | None) -> float:
        asked = set(question.terms) - self._game_terms.get(game, set())
        if not asked or not passage_texts:
            return 1.0
        found = set().union(*(_terms(text) for text in passage_texts))
        return len(asked & found) / len(asked)


@lru_cache(maxsize=4096)
def _terms(text: str) -> frozenset[str]:
    return frozenset(analyze(text))
