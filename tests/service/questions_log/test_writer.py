"""The background writer: nothing lost when the database is healthy; when it is read-only or locked, the
answer side never waits, the batch is dropped after the bounded wait with ONE warning, and the state shows."""

import logging
import sqlite3
import threading
import time

from service.questions_log.store import Store
from service.questions_log.writer import LogWriter
from tests.service.questions_log.test_store import rec


def test_every_record_from_concurrent_clients_is_written(db_url):
    writer = LogWriter(Store(db_url), retention_days=90).start()
    records = [rec(f"question {i} ?") for i in range(400)]

    def client(part):
        for r in part:
            assert writer.submit(r)

    threads = [threading.Thread(target=client, args=(records[i::8],)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert writer.flush(timeout=20)
    assert (writer.written, writer.dropped, writer.status) == (400, 0, "ok")
    assert writer.store.count() == 400
    writer.close()


def test_a_read_only_database_drops_with_one_warning_and_never_blocks(tmp_path, caplog):
    path = tmp_path / "rulesqa.db"
    Store(f"sqlite:///{path}").open().close()
    # The database file opened read-only: every write fails as on a read-only file or a full disk.
    writer = LogWriter(Store(f"sqlite:///file:{path}?mode=ro&uri=true"), 90, retry_s=0.3).start()
    caplog.set_level(logging.WARNING, logger="rulesqa.log")
    slowest = 0.0
    for i in range(50):
        started = time.perf_counter()
        writer.submit(rec(f"q{i}"))
        slowest = max(slowest, time.perf_counter() - started)
    assert slowest < 0.05  # the request side only puts in a queue
    assert writer.flush(timeout=10)
    assert (writer.written, writer.dropped, writer.status) == (0, 50, "degraded")
    warnings = [r for r in caplog.records if r.name == "rulesqa.log"]
    assert len(warnings) == 1 and "journal des questions indisponible" in warnings[0].getMessage()
    writer.close()


def test_a_locked_database_is_waited_for_a_bounded_time_then_recovers(tmp_path, caplog):
    path = tmp_path / "rulesqa.db"
    writer = LogWriter(Store(f"sqlite:///{path}"), 90, retry_s=0.5).start()
    writer.submit(rec("avant ?"))
    assert writer.flush(timeout=10) and writer.written == 1
    caplog.set_level(logging.WARNING, logger="rulesqa.log")
    # Waits out the writer's own short transactions (its start-up retention pass may still be running).
    locker = sqlite3.connect(path, timeout=10, isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")
    started = time.monotonic()
    writer.submit(rec("pendant ?"))
    assert writer.flush(timeout=10)
    assert time.monotonic() - started < 5  # busy_timeout (1 s) + retry window, not forever
    assert writer.dropped == 1 and writer.status == "degraded"
    locker.execute("ROLLBACK")
    locker.close()
    writer.submit(rec("après ?"))
    assert writer.flush(timeout=10)
    assert writer.status == "ok" and writer.written == 2
    assert [r["question"] for r in writer.store.rows()] == ["après ?", "avant ?"]
    messages = [r.getMessage() for r in caplog.records if r.name == "rulesqa.log"]
    assert len(messages) == 2 and "rétabli" in messages[1]
    writer.close()


def test_a_full_queue_drops_instead_of_waiting(tmp_path):
    path = tmp_path / "rulesqa.db"
    Store(f"sqlite:///{path}").open().close()
    locker = sqlite3.connect(path, timeout=0, isolation_level=None)
    locker.execute("BEGIN EXCLUSIVE")  # the writer is stuck on its first batch
    writer = LogWriter(Store(f"sqlite:///{path}"), 90, max_queue=2, retry_s=1.0).start()
    results = [writer.submit(rec(f"q{i}")) for i in range(10)]
    # Accepted: at most a full queue (2) plus the batch the writer already took from it (at most 2).
    assert results.count(False) >= 6 and writer.status == "degraded"
    locker.execute("ROLLBACK")
    locker.close()
    assert writer.flush(timeout=10)
    assert writer.written + writer.dropped == 10
    writer.close()
