"""The questions log off the request path: a bounded queue and one background writer thread.

`submit` never blocks the answer: it puts the record in the queue or, when the queue is full, drops it.
The thread writes in batches; a database that is down, locked or full is retried for `retry_s` seconds,
then the batch is dropped. A failure episode logs ONE warning (and one line when writing works again),
and `status` says "degraded" until a write succeeds.
"""

from __future__ import annotations

import logging
import queue
import threading
import time

from service.questions_log.errors import LogStoreError
from service.questions_log.store import AskRecord, Store

log = logging.getLogger("rulesqa.log")

MAX_QUEUE = 1000  # ~10 s of answers at full speed on 2 cores: a short outage loses nothing
BATCH = 200
RETRY_S = 2.0  # the bounded wait before a batch is dropped
PURGE_EVERY_S = 3600.0
_STOP = object()


class LogWriter:
    def __init__(self, store: Store, retention_days: int, *, max_queue: int = MAX_QUEUE, retry_s: float = RETRY_S):
        self.store = store
        self.retention_days = retention_days
        self.retry_s = retry_s
        self.queue: queue.Queue = queue.Queue(maxsize=max_queue)
        self.written = 0
        self.dropped = 0
        self._opened = False
        self._failing: str | None = None  # the reason of the current failure episode, if any
        self._pending: set[str] = set()  # submitted, neither written nor dropped yet
        self._changed = threading.Condition()
        self._thread = threading.Thread(target=self._run, name="rulesqa-log-writer", daemon=True)
        self._last_purge = 0.0

    # ---- request side (never blocks)

    @property
    def status(self) -> str:
        return "degraded" if self._failing is not None else "ok"

    def start(self) -> LogWriter:
        self._thread.start()
        return self

    def ready(self) -> None:
        """Open the database if the writer has not yet (LogStoreError if it cannot): for readers."""
        if not self._opened:
            self.store.open()
            self._opened = True

    def submit(self, record: AskRecord) -> bool:
        with self._changed:
            self._pending.add(record.ask_id)
        try:
            self.queue.put_nowait(record)
            return True
        except queue.Full:
            self._done([record], ok=False, reason="file d'attente pleine")
            return False

    def wait_for(self, ask_id: str, timeout: float) -> None:
        """Until `ask_id` is written or dropped, at most `timeout` s (feedback right after an answer)."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while ask_id in self._pending and (left := deadline - time.monotonic()) > 0:
                self._changed.wait(left)

    def flush(self, timeout: float) -> bool:
        """Until everything submitted is written or dropped, at most `timeout` s; whether it was."""
        deadline = time.monotonic() + timeout
        with self._changed:
            while self._pending and (left := deadline - time.monotonic()) > 0:
                self._changed.wait(left)
            return not self._pending

    def close(self, timeout: float = 3.0) -> None:
        """Write what is queued (bounded by `timeout`), stop the thread, close the database."""
        if self._thread.is_alive():
            try:
                self.queue.put(_STOP, timeout=timeout)
            except queue.Full:
                pass
            self._thread.join(timeout)
        self.store.close()

    # ---- writer thread

    def _run(self) -> None:
        try:
            self.ready()  # early, so that a broken database shows in /health before the first question
        except LogStoreError as exc:
            with self._changed:
                self._trouble(str(exc))
        while True:
            try:
                first = self.queue.get(timeout=60)
            except queue.Empty:
                self._maybe_purge()
                continue
            batch = [first]
            while len(batch) < BATCH:
                try:
                    batch.append(self.queue.get_nowait())
                except queue.Empty:
                    break
            stop = any(item is _STOP for item in batch)
            records = [item for item in batch if item is not _STOP]
            if records:
                self._write(records)
            self._maybe_purge()
            if stop:
                return

    def _write(self, records: list[AskRecord]) -> None:
        deadline = time.monotonic() + self.retry_s
        pause = 0.05
        while True:
            try:
                self.ready()
                self.store.record_many(records)
            except LogStoreError as exc:
                left = deadline - time.monotonic()
                if left <= 0:
                    self._done(records, ok=False, reason=str(exc))
                    return
                time.sleep(min(pause, left))
                pause *= 2
                continue
            self._done(records, ok=True)
            return

    def _done(self, records: list[AskRecord], ok: bool, reason: str = "") -> None:
        with self._changed:
            if ok:
                self.written += len(records)
                self._recovered()
            else:
                self.dropped += len(records)
                self._trouble(f"questions non enregistrées : {reason}")
            self._pending.difference_update(r.ask_id for r in records)
            self._changed.notify_all()

    def _trouble(self, reason: str) -> None:
        if self._failing is None:  # one warning per failure episode, not one per question
            log.warning("journal des questions indisponible, %s", reason)
        self._failing = reason

    def _recovered(self) -> None:
        if self._failing is not None:
            log.warning("journal des questions rétabli (%d questions perdues en tout)", self.dropped)
        self._failing = None

    def _maybe_purge(self) -> None:
        if not self._opened or time.monotonic() - self._last_purge < PURGE_EVERY_S:
            return
        self._last_purge = time.monotonic()
        try:
            removed = self.store.purge(self.retention_days)
        except LogStoreError as exc:
            with self._changed:
                self._trouble(f"purge des anciennes questions : {exc}")
            return
        if removed:
            log.info("journal des questions : %d questions de plus de %d jours supprimées", removed,
                     self.retention_days)
