"""Reading and writing the questions log: records, feedback, retention, and the rows a report needs.

Every database error leaves here as a LogStoreError with a French message; callers never see SQLAlchemy.
"""

from __future__ import annotations

import secrets
from dataclasses import asdict, dataclass, field
from datetime import UTC, datetime, timedelta

from sqlalchemy import and_, delete, func, select, update
from sqlalchemy.exc import SQLAlchemyError

from service.questions_log.errors import LogStoreError
from service.questions_log.schema import _short, asks, ensure_schema, make_engine

CLIENTS = ("page", "widget", "api", "cli")
MAX_COMMENT_CHARS = 500


def utcnow() -> datetime:
    return datetime.now(UTC).replace(tzinfo=None)


def new_ask_id() -> str:
    # Random, not a sequence: it reveals neither how many questions were asked nor when.
    return secrets.token_hex(12)


@dataclass(frozen=True)
class AskRecord:
    ask_id: str
    question: str
    game_asked: str | None
    game_routed: str | None
    found: bool
    refusal_reason: str | None
    passage_id: str | None
    pages: list[int]
    answer_set: list[str]
    latency_ms: float
    client: str
    asked_at: datetime = field(default_factory=utcnow)
    sure: bool | None = None
    choices: list[str] = field(default_factory=list)  # the passages offered as "Tu parles de… ?"

    @classmethod
    def of(cls, answer, game_asked: str | None, latency_ms: float, client: str, ask_id: str) -> AskRecord:
        """The record of `answer` (a service.engine.answer.Answer)."""
        quote = answer.answer
        pages = []
        if quote is not None:
            pages = next((list(p.pages) for p in answer.passages if p.id == quote.passage_id), [])
        return cls(
            ask_id=ask_id, question=answer.question, game_asked=game_asked,
            game_routed=answer.game.id if answer.game else None, found=answer.found,
            refusal_reason=answer.refusal.reason if answer.refusal else None,
            passage_id=quote.passage_id if quote else None, pages=pages,
            answer_set=list(quote.passage_ids) if quote else [], latency_ms=round(latency_ms, 3), client=client,
            sure=answer.sure, choices=[c.passage_id for c in answer.choices],
        )


class UnknownAskError(LogStoreError):
    def __init__(self, ask_id: str):
        super().__init__(f"réponse inconnue : {ask_id!r} (trop ancienne, ou journal désactivé)")


class LogDisabledError(LogStoreError):
    def __init__(self):
        super().__init__("journal des questions désactivé (RULESQA_LOG_QUESTIONS=false) : rien n'est enregistré")


class NotOfferedError(LogStoreError):
    def __init__(self, ask_id: str, passage_id: str):
        super().__init__(f"le passage {passage_id!r} n'a pas été proposé pour la réponse {ask_id!r}")


class FeedbackExistsError(LogStoreError):
    def __init__(self, ask_id: str):
        super().__init__(f"un avis a déjà été donné pour la réponse {ask_id!r}")


class Store:
    def __init__(self, url: str):
        self.url = url
        self.engine = make_engine(url)

    def open(self) -> Store:
        ensure_schema(self.engine)
        return self

    def close(self) -> None:
        self.engine.dispose()

    def _fail(self, exc: SQLAlchemyError, doing: str) -> LogStoreError:
        return LogStoreError(f"journal des questions : {doing} impossible ({_short(exc)})")

    def record_many(self, records: list[AskRecord]) -> None:
        """One transaction: all the records are written, or none."""
        if not records:
            return
        try:
            with self.engine.begin() as conn:
                conn.execute(asks.insert(), [asdict(r) for r in records])
        except SQLAlchemyError as exc:
            raise self._fail(exc, "écriture") from None

    def feedback(self, ask_id: str, helpful: bool, comment: str | None = None) -> None:
        """The player's verdict on one answer, once: UnknownAskError, FeedbackExistsError otherwise."""
        try:
            with self.engine.begin() as conn:
                done = conn.execute(
                    update(asks).where(and_(asks.c.ask_id == ask_id, asks.c.helpful.is_(None)))
                    .values(helpful=helpful, comment=comment or None, feedback_at=utcnow())
                ).rowcount
                if done:
                    return
                exists = conn.execute(select(asks.c.ask_id).where(asks.c.ask_id == ask_id)).first()
        except SQLAlchemyError as exc:
            raise self._fail(exc, "enregistrement de l'avis") from None
        raise FeedbackExistsError(ask_id) if exists else UnknownAskError(ask_id)

    def choose(self, ask_id: str, passage_id: str) -> None:
        """The passage the player tapped among the choices of one answer (the last tap counts):
        UnknownAskError, or NotOfferedError for a passage that was not offered."""
        try:
            with self.engine.begin() as conn:
                row = conn.execute(select(asks.c.choices).where(asks.c.ask_id == ask_id)).first()
                if row is not None and passage_id in (row.choices or ()):
                    conn.execute(update(asks).where(asks.c.ask_id == ask_id)
                                 .values(chosen_passage_id=passage_id, chosen_at=utcnow()))
                    return
        except SQLAlchemyError as exc:
            raise self._fail(exc, "enregistrement du choix") from None
        raise NotOfferedError(ask_id, passage_id) if row is not None else UnknownAskError(ask_id)

    def purge(self, retention_days: int, now: datetime | None = None) -> int:
        """Delete the rows older than `retention_days`; returns how many."""
        cutoff = (now or utcnow()) - timedelta(days=retention_days)
        try:
            with self.engine.begin() as conn:
                return conn.execute(delete(asks).where(asks.c.asked_at < cutoff)).rowcount
        except SQLAlchemyError as exc:
            raise self._fail(exc, "purge") from None

    def count(self) -> int:
        try:
            with self.engine.connect() as conn:
                return conn.execute(select(func.count()).select_from(asks)).scalar_one()
        except SQLAlchemyError as exc:
            raise self._fail(exc, "lecture") from None

    def rows(self, since_days: int | None = None, game: str | None = None) -> list[dict]:
        """Every logged question (newest first), optionally of the last `since_days` days and of one game
        (the game routed, else the game asked)."""
        query = select(asks).order_by(asks.c.asked_at.desc())
        if since_days is not None:
            query = query.where(asks.c.asked_at >= utcnow() - timedelta(days=since_days))
        if game is not None:
            query = query.where(func.coalesce(asks.c.game_routed, asks.c.game_asked) == game)
        try:
            with self.engine.connect() as conn:
                return [dict(row._mapping) for row in conn.execute(query)]
        except SQLAlchemyError as exc:
            raise self._fail(exc, "lecture") from None
