"""The tables of the questions log, and the engine that opens them.

Migrations: the schema is created if missing and stamped with SCHEMA_VERSION in `schema_version`. A
database stamped with an older version is upgraded by the steps in UPGRADES; one stamped with a
newer version (written by a newer rulesqa) is refused with a clear message rather than written blindly.
For two tables that only ever gain nullable columns this gives what Alembic would (a recorded version,
ordered upgrade steps, refusal of the unknown) without a migrations folder and env.py to keep in step.
"""

from __future__ import annotations

from sqlalchemy import (JSON, Boolean, Column, DateTime, Float, Integer, MetaData, String, Table, Text, create_engine,
                        event, inspect, select)
from sqlalchemy.engine import Engine
from sqlalchemy.exc import SQLAlchemyError

from service.questions_log.errors import LogStoreError

SCHEMA_VERSION = 2
# version -> the statements that bring a database from that version to the next one. Column types that
# SQLite and PostgreSQL both read the same way.
UPGRADES: dict[int, list[str]] = {
    # 2: "Tu parles de… ?" choices offered, and the one the player tapped (a confirmed question-passage pair).
    1: [
        "ALTER TABLE asks ADD COLUMN sure BOOLEAN",
        "ALTER TABLE asks ADD COLUMN choices JSON",
        "ALTER TABLE asks ADD COLUMN chosen_passage_id VARCHAR(64)",
        "ALTER TABLE asks ADD COLUMN chosen_at TIMESTAMP",
    ],
}

metadata = MetaData()

schema_version = Table("schema_version", metadata, Column("version", Integer, nullable=False))

# One row per question answered. Nothing that identifies the player: no IP address, no user agent, no cookie.
asks = Table(
    "asks", metadata,
    Column("ask_id", String(32), primary_key=True),
    Column("asked_at", DateTime, nullable=False, index=True),  # naive UTC
    Column("question", Text, nullable=False),
    Column("game_asked", String(64)),
    Column("game_routed", String(64)),
    Column("found", Boolean, nullable=False),
    Column("refusal_reason", String(32)),
    Column("passage_id", String(64)),  # the quoted passage
    Column("pages", JSON),  # its booklet pages
    Column("answer_set", JSON),  # the answer-set passage ids
    Column("latency_ms", Float, nullable=False),
    Column("client", String(16), nullable=False),  # page, widget, api, cli
    # Feedback, at most once per answer.
    Column("helpful", Boolean),
    Column("comment", Text),
    Column("feedback_at", DateTime),
    # Version 2: whether the answer was shown as sure, the choices offered when it was not, and the one the
    # player tapped (the last tap counts): what a later adaptation or judge can learn from.
    Column("sure", Boolean),
    Column("choices", JSON),
    Column("chosen_passage_id", String(64)),
    Column("chosen_at", DateTime),
)


def _sqlite_pragmas(dbapi_connection, _record) -> None:
    cursor = dbapi_connection.cursor()
    # WAL: readers (report, /admin) never block the writer. busy_timeout bounds the wait on a lock, so
    # the writer thread gives up and the batch is dropped rather than queued forever.
    cursor.execute("PRAGMA journal_mode=WAL")
    cursor.execute("PRAGMA busy_timeout=1000")
    cursor.execute("PRAGMA synchronous=NORMAL")
    cursor.close()


def make_engine(url: str) -> Engine:
    """An engine for `url` (sqlite:///path or postgresql+psycopg://...); the SQLite folder is created."""
    if url.startswith("sqlite"):
        from sqlalchemy.engine import make_url

        database = make_url(url).database
        if database and database != ":memory:":
            from pathlib import Path

            try:
                Path(database).expanduser().parent.mkdir(parents=True, exist_ok=True)
            except OSError:
                pass  # the first connection fails with the reason, as a LogStoreError, off the request path
        engine = create_engine(url, connect_args={"timeout": 1, "check_same_thread": False})
        event.listen(engine, "connect", _sqlite_pragmas)
        return engine
    if url.startswith("postgresql://"):
        url = "postgresql+psycopg://" + url[len("postgresql://"):]  # the driver we ship (psycopg 3)
    # A PostgreSQL that does not answer must not hold the writer for long.
    return create_engine(url, pool_pre_ping=True, connect_args={"connect_timeout": 2})


def ensure_schema(engine: Engine) -> None:
    """Create the tables if missing, upgrade an older schema, refuse a newer one (LogStoreError)."""
    try:
        with engine.begin() as conn:
            if not inspect(conn).has_table("schema_version"):
                metadata.create_all(conn)
                conn.execute(schema_version.insert().values(version=SCHEMA_VERSION))
                return
            found = conn.execute(select(schema_version.c.version)).scalar()
            if found is None:
                metadata.create_all(conn)
                conn.execute(schema_version.insert().values(version=SCHEMA_VERSION))
                return
            if found > SCHEMA_VERSION:
                raise LogStoreError(f"la base du journal est au schéma {found}, plus récent que ce rulesqa "
                                    f"(schéma {SCHEMA_VERSION}) : mettez rulesqa à jour")
            if found == SCHEMA_VERSION:
                return  # nothing written: a read-only database can still be read
            while found < SCHEMA_VERSION:
                for statement in UPGRADES.get(found, []):
                    conn.exec_driver_sql(statement)
                found += 1
            conn.execute(schema_version.update().values(version=SCHEMA_VERSION))
    except SQLAlchemyError as exc:
        raise LogStoreError(f"base du journal inaccessible : {_short(exc)}") from None


def _short(exc: BaseException) -> str:
    text = str(getattr(exc, "orig", None) or exc).strip().splitlines()
    return text[0] if text else type(exc).__name__
