"""The one way the faces (HTTP API, CLI) log an answer: a record for the writer, and the answer with its id."""

from __future__ import annotations

from dataclasses import replace

from service.questions_log.store import AskRecord, Store, new_ask_id
from service.questions_log.writer import LogWriter


def open_writer(settings) -> LogWriter | None:
    """The started writer of the configured log, or None when RULESQA_LOG_QUESTIONS=false. Never raises on a
    database that is down: the writer opens it in its own thread and reports "degraded"."""
    if not settings.log_questions:
        return None
    return LogWriter(Store(settings.database_url), settings.retention_days).start()


def record(writer: LogWriter | None, answer, game_asked: str | None, latency_ms: float, client: str):
    """`answer` with its ask_id once queued for the log; unchanged when nothing is logged."""
    if writer is None:
        return answer
    ask_id = new_ask_id()
    writer.submit(AskRecord.of(answer, game_asked, latency_ms, client, ask_id))
    return replace(answer, ask_id=ask_id)
