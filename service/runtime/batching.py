"""Micro-batching: questions that arrive together are encoded in one inference.

One short question keeps the CPU's matrix units half idle (about 20 tokens per product); eight questions in
one batch cost far less than eight runs. The batcher has one encoder thread: a question waits for it, and
while it encodes a batch, the questions that arrive meanwhile queue up and go together in the next one.
A lone question therefore waits for nothing (`max_wait_ms` 0, the default); a positive wait lets a batch
fill a little longer under load. Results are per row: batching never changes a question's vector
(padding is masked, and the int8 activations are quantized row by row).
"""

from __future__ import annotations

import logging
import queue
import threading
import time
from concurrent.futures import Future

import numpy as np

log = logging.getLogger("rulesqa")
_STOP = object()


class QueryBatcher:
    """An Embedder whose single-question `encode_queries` calls, from any threads, share inferences."""

    def __init__(self, embedder, max_batch: int = 16, max_wait_ms: float = 0.0):
        if max_batch < 1 or max_wait_ms < 0:
            raise ValueError("max_batch >= 1 and max_wait_ms >= 0")
        self.inner = embedder
        self.max_batch, self.max_wait = max_batch, max_wait_ms / 1000
        self._queue: queue.SimpleQueue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._thread: threading.Thread | None = None
        self._closed = False
        self.batches = 0  # inferences run, and questions encoded: the mean batch size is their ratio
        self.questions = 0

    def __getattr__(self, name):  # model_id, dim, fingerprint, encode_passages, token_count, backend...
        return getattr(self.inner, name)

    def encode_queries(self, texts: list[str]) -> np.ndarray:
        texts = list(texts)
        if len(texts) == 1:
            future: Future = Future()
            with self._lock:  # so that no question is queued behind the stop mark
                queued = not self._closed
                if queued:
                    if self._thread is None:
                        self._thread = threading.Thread(target=self._loop, name="rulesqa-batcher", daemon=True)
                        self._thread.start()
                    self._queue.put((texts[0], future))
            if queued:
                return future.result()[None, :]
        return self.inner.encode_queries(texts)  # already a batch, or shutting down

    def close(self) -> None:
        """Stop the encoder thread once the queued questions are answered."""
        with self._lock:
            self._closed = True
            thread, self._thread = self._thread, None
            if thread is not None:
                self._queue.put(_STOP)
        if thread is not None:
            thread.join()

    def _loop(self) -> None:
        while True:
            item = self._queue.get()
            if item is _STOP:
                return
            batch = [item]
            stop = self._fill(batch)
            self._encode(batch)
            if stop:
                return

    def _fill(self, batch: list) -> bool:
        """Add what is queued (waiting up to max_wait for more); True when a stop came in."""
        deadline = time.monotonic() + self.max_wait
        while len(batch) < self.max_batch:
            try:
                remaining = deadline - time.monotonic()
                item = self._queue.get(timeout=remaining) if remaining > 0 else self._queue.get_nowait()
            except queue.Empty:
                return False
            if item is _STOP:
                return True
            batch.append(item)
        return False

    def _encode(self, batch: list) -> None:
        try:
            vectors = self.inner.encode_queries([text for text, _ in batch])
        except BaseException as exc:  # noqa: BLE001 - every waiting question gets the error, none hangs
            for _, future in batch:
                future.set_exception(exc)
            return
        self.batches += 1
        self.questions += len(batch)
        for (_, future), vector in zip(batch, vectors):
            future.set_result(vector)
