"""ask(question, game, k, mode) -> the answer object served by the CLI, the HTTP API and the eval.

The answer is extractive: the best sentence(s) of the top passage, in the rulebook's own words, with a
citation. When the evidence is weak the answer abstains (found=false) and still lists the nearest
passages, so the player can judge.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

from indexer.analysis import analyze
from indexer.errors import QuestionError
from indexer.passages import Passage
from service.fusion import MODES
from service import calibration
from service.calibration import AbstentionPolicy
from service.retrieval import FusionConfig, Hit, Retriever, Scores
from service.routing import GameNames, Route

if TYPE_CHECKING:
    from indexer.embed import Embedder

MAX_QUESTION_CHARS = 1000
MAX_K = 20
SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[«\"A-ZÀ-ÖØ-Þ0-9])")
# A first sentence this short ("Non.", "Oui : …") needs the next one to make sense on its own.
SHORT_SENTENCE = 60


def validate(question, k, mode) -> str:
    if not isinstance(question, str):
        raise QuestionError("la question doit être un texte")
    question = question.strip()
    if not question:
        raise QuestionError("la question est vide")
    if len(question) > MAX_QUESTION_CHARS:
        raise QuestionError(f"la question est trop longue ({len(question)} caractères, maximum {MAX_QUESTION_CHARS})")
    if isinstance(k, bool) or not isinstance(k, int) or not 1 <= k <= MAX_K:
        raise QuestionError(f"k doit être un entier entre 1 et {MAX_K} (reçu : {k!r})")
    if mode not in MODES:
        raise QuestionError(f"mode inconnu « {mode} » (modes : {', '.join(MODES)})")
    return question


def format_pages(pages) -> str:
    return ", ".join(str(p) for p in pages)


def citation(passage: Passage, game_title: str) -> str:
    if passage.pages:
        return f"{game_title}, livret p. {format_pages(passage.pages)}"
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
        embedder: Embedder | None = None,
        fusion: FusionConfig | None = None,
        policy: AbstentionPolicy | None = None,
    ) -> Answerer:
        if embedder is None:
            from indexer.embed import load_embedder

            embedder = load_embedder()
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

    def ask(self, question, game: str | None = None, k: int = 5, mode: str = "hybrid") -> dict:
        question = validate(question, k, mode)
        scores = self.retriever.score(question)
        route = self.route(question, game, scores, mode)
        hits = self.retriever.rank(scores, route.game, k, mode)
        found = bool(hits) and route.game is not None and self.confident(scores, hits[0])
        game_obj = self.retriever.game(route.game) if route.game else None
        answer = None
        if found:
            top = hits[0].passage
            answer = {"text": extract_answer(top, question), "citation": citation(top, game_obj.title), "passage_id": top.id}
        return {
            "question": question,
            "game": {"id": game_obj.id, "title": game_obj.title} if game_obj else None,
            "game_detected": route.how in ("name", "retrieval"),
            "found": found,
            "answer": answer,
            "message": message(found, game_obj.title if game_obj else None, answer),
            "passages": [
                {
                    "id": h.passage.id,
                    "game": h.passage.game,
                    "section": h.passage.section,
                    "pages": list(h.passage.pages),
                    "text": h.passage.text,
                    "score": round(h.score, 4),
                }
                for h in hits
            ],
        }


def message(found: bool, game_title: str | None, answer: dict | None) -> str:
    if found:
        return f"Réponse trouvée : {answer['citation']}."
    where = f"les règles de {game_title}" if game_title else "les règles des jeux que je connais"
    return f"Je ne trouve pas de réponse à cette question dans {where}. Voici les passages les plus proches."
