"""The question, first stage of an answer: checked against the limits once (`validate` -> Query) and analysed
once (`Question`): its folded text, its index terms with their offsets, the stems of its folded form. Every
later stage (retrieval, routing, the refusal signals, the quote) reads these instead of analysing it again.
What else the question says by itself is read here too: the game it names (names.py), whether it follows on
from the previous turn (follow_up.py, both read by reading.py), and which card field it asks (card_question.py)."""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, lru_cache

from indexer.analysis import analyze, analyze_spans
from service.engine.errors import QuestionError
from service.engine.limits import DEFAULT_K, DEFAULT_MODE, MAX_K, MAX_QUESTION_CHARS, MIN_K, MODES
from service.engine.phrases import Folded


@dataclass(frozen=True)
class Question:
    """A text analysed once: `terms` are the index's terms (indexer/analysis.py), `spans` the same with their
    character offsets, `folding` the text folded once as the phrase data files are written, with each folded
    character's offset in the text (service/engine/phrases.py), which names, cues and signals all read."""

    text: str
    spans: tuple[tuple[str, int, int], ...]

    @staticmethod
    @lru_cache(maxsize=2048)
    def of(text: str) -> Question:
        return Question(text, tuple(analyze_spans(text)))

    @cached_property
    def terms(self) -> tuple[str, ...]:
        return tuple(term for term, _, _ in self.spans)

    @cached_property
    def folding(self) -> Folded:
        return Folded.of(self.text)

    @property
    def folded(self) -> str:
        return self.folding.text

    @cached_property
    def folded_terms(self) -> frozenset[str]:
        """The terms of the folded text: a player's "regle" and the book's "règle" alike."""
        return frozenset(analyze(self.folded))


@dataclass(frozen=True)
class Turn:
    """The previous question, as the client asked it, and the game its answer was about (None: none)."""

    question: str
    game: str | None = None


@dataclass(frozen=True)
class Query:
    """A question checked against the limits (service/engine/limits.py): what `Answerer.answer` takes."""

    question: str
    game: str | None = None
    k: int = DEFAULT_K
    mode: str = DEFAULT_MODE
    previous: Turn | None = None  # the previous turn of the conversation, for a follow-up

    @property
    def analysed(self) -> Question:
        return Question.of(self.question)


def validate(question, game: str | None = None, k=DEFAULT_K, mode=DEFAULT_MODE, previous: Turn | None = None
             ) -> Query:
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
    if previous is not None:
        text = previous.question.strip() if isinstance(previous.question, str) else ""
        if not text or len(text) > MAX_QUESTION_CHARS:
            raise QuestionError(f"la question précédente doit être un texte de 1 à {MAX_QUESTION_CHARS} caractères")
        previous = Turn(text, previous.game)
    return Query(question, game, k, mode, previous)
