"""ask(question, game, k, mode) -> Answer, served by the CLI, the HTTP API and the eval.

The answer is extractive: the best sentence(s) of the top passage, in the rulebook's own words, with a
citation. When the evidence is weak the answer abstains (found=false) and still lists the nearest
passages, so the player can judge.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.analysis import analyze
from indexer.errors import QuestionError
from indexer.passages import Passage
from service import calibration
from service.calibration import AbstentionPolicy
from service.limits import DEFAULT_K, DEFAULT_MODE, MAX_K, MAX_QUESTION_CHARS, MIN_K, MODES
from service.results import Answer, CitedPassage, GameRef, Quote, Refusal
from service.retrieval import Evidence, FusionConfig, Hit, Retriever, Scores
from service.routing import GameNames, Route

if TYPE_CHECKING:
    from indexer.e5 import Embedder

SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[«\"A-ZÀ-ÖØ-Þ0-9])")
# A first sentence this short ("Non.", "Oui : …") needs the next one to make sense on its own.
SHORT_SENTENCE = 60


@dataclass(frozen=True)
class Query:
    """A question checked against the limits (service/limits.py): what `Answerer.answer` takes."""

    question: str
    game: str | None = None
    k: int = DEFAULT_K
    mode: str = DEFAULT_MODE


def validate(question, game: str | None = None, k=DEFAULT_K, mode=DEFAULT_MODE) -> Query:
    if not isinstance(question, str):
        raise QuestionError("la question doit être un texte")
    question = question.strip()
    if not question:
        raise QuestionError("la question est vide")
    if len(question) > MAX_QUESTION_CHARS:
        raise QuestionError(f"la question est trop longue ({len(question)} caractères, maximum {MAX_QUESTION_CHARS})")
    if isinstance(k, bool) or not isinstance(k, int) or not MIN_K <= k <= MAX_K:
        raise QuestionError(f"k doit être un entier entre {MIN_K} et {MAX_K} (reçu : {k!r})")
    if mode not in MODES:
        raise QuestionError(f"mode inconnu « {mode} » (modes : {', '.join(MODES)})")
    return Query(question, game, k, mode)


def short_citation(passage: Passage) -> str:
    """What a citation chip shows: the pages, else the section."""
    if passage.pages:
        return "p. " + ", ".join(str(p) for p in passage.pages)
    return passage.section or ""


def citation(passage: Passage, game_title: str) -> str:
    if passage.pages:
        return f"{game_title}, livret {short_citation(passage)}"
    if passage.section:
        return f"{game_title}, section {passage.section}"
    return game_title


def _body(passage: Passage) -> str:
    """The passage without its title line (a question or a bullet title)."""
    if passage.title and passage.text.startswith(passage.title + "\n"):
        return passage.text[len(passage.title) + 1 :]
    return passage.text


def extract_answer(passage: Passage, question: str) -> str:
    """The sentence(s) of the passage that answer the question, verbatim.

    A rules Q&A puts its direct answer first, so its first sentence is taken. Elsewhere the sentence
    sharing the most terms with the question is taken (the first one on a tie).
    """
    sentences = [s for line in _body(passage).split("\n") for s in SENTENCE_END.split(line.strip()) if s]
    if not sentences:
        return passage.text
    best = 0
    if not (passage.title or "").endswith("?"):
        wanted = set(analyze(question))
        overlaps = [len(wanted & set(analyze(s))) for s in sentences]
        best = max(range(len(sentences)), key=lambda i: (overlaps[i], -i))
    chosen = sentences[best]
    if len(chosen) < SHORT_SENTENCE and best + 1 < len(sentences):
        chosen = f"{chosen} {sentences[best + 1]}"
    return chosen


class Answerer:
    def __init__(self, retriever: Retriever, policy: AbstentionPolicy | None = None):
        self.retriever = retriever
        self.policy = policy or AbstentionPolicy()
        self.names = GameNames(retriever.games)

    @classmethod
    def load(
        cls,
        index_dir: Path,
        embedder: Embedder,
        fusion: FusionConfig | None = None,
        policy: AbstentionPolicy | None = None,
    ) -> Answerer:
        measured = calibration.load(embedder.model_id)
        retriever = Retriever.load(index_dir, embedder, fusion or measured.fusion)
        return cls(retriever, policy or measured.abstention)

    def route(self, question: str, game: str | None, scores: Scores, mode: str) -> Route:
        if game is not None:
            self.retriever.game(game)  # raises UnknownGameError with the known ids
            return Route(game, "given")
        named = self.names.find(question)
        if named:
            return Route(named, "name")
        # Two independent retrievers must point to the same game: a question about something else
        # gets nearest passages scattered over games, or no shared word at all.
        dense = self.retriever.rank(scores, None, 1, "dense")
        lexical = self.retriever.rank(scores, None, 1, "lexical")
        if not dense or not lexical or lexical[0].lexical <= 0:
            return Route(None, "none")
        game = dense[0].passage.game
        if lexical[0].passage.game != game:
            return Route(None, "none")
        top = self.retriever.rank(scores, game, 1, mode)
        if top and self.confident(scores, top[0]):
            return Route(game, "retrieval")
        return Route(None, "none")

    def confident(self, scores: Scores, hit: Hit) -> bool:
        return self.policy.accepts(self.retriever.evidence(scores, hit))

    def reconfigured(self, fusion: FusionConfig | None = None, policy: AbstentionPolicy | None = None) -> Answerer:
        """Another answerer over the same loaded index and model (for calibration); this one is unchanged."""
        retriever = self.retriever.with_fusion(fusion) if fusion is not None else self.retriever
        return Answerer(retriever, policy if policy is not None else self.policy)

    def ask(self, question, game: str | None = None, k: int = DEFAULT_K, mode: str = DEFAULT_MODE) -> Answer:
        return self.answer(validate(question, game, k, mode))

    def answer(self, query: Query, scores: Scores | None = None) -> Answer:
        """The answer to an already validated query; `scores` may be given when computed before
        (calibration asks the same question under many settings)."""
        scores = scores if scores is not None else self.retriever.score(query.question)
        route, hits, evidence = self._retrieve(query, scores)
        found = evidence is not None and self.policy.accepts(evidence)
        game = self.retriever.game(route.game) if route.game else None
        quote = None
        if found:
            top = hits[0].passage
            quote = Quote(extract_answer(top, query.question), citation(top, game.title), top.id, [top.id])
        return Answer(
            question=query.question,
            game=GameRef(game.id, game.title) if game else None,
            game_detected=route.how in ("name", "retrieval"),
            found=found,
            answer=quote,
            message=message(game.title if game else None, quote),
            passages=[self._cited(h) for h in hits],
            refusal=None if found else Refusal("weak_evidence", message(game.title if game else None, None)),
            warning=None,
        )

    def evidence(self, query: Query, scores: Scores) -> Evidence | None:
        """How strongly the corpus supports the answer's top passage; None when there is no game or passage."""
        return self._retrieve(query, scores)[2]

    def _retrieve(self, query: Query, scores: Scores) -> tuple[Route, list[Hit], Evidence | None]:
        route = self.route(query.question, query.game, scores, query.mode)
        hits = self.retriever.rank(scores, route.game, query.k, query.mode)
        evidence = self.retriever.evidence(scores, hits[0]) if hits and route.game is not None else None
        return route, hits, evidence

    def _cited(self, hit: Hit) -> CitedPassage:
        p = hit.passage
        title = self.retriever.game(p.game).title
        return CitedPassage(p.id, p.game, p.section, list(p.pages), p.text, round(hit.score, 4),
                            citation(p, title), short_citation(p))


def message(game_title: str | None, quote: Quote | None) -> str:
    if quote is not None:
        return f"Réponse trouvée : {quote.citation}."
    where = f"les règles de {game_title}" if game_title else "les règles des jeux que je connais"
    return f"Je ne trouve pas de réponse à cette question dans {where}. Voici les passages les plus proches."
