"""Micro-batching (service/runtime/batching.py): concurrent questions share inferences and get their own vectors."""

import threading
import time
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from fastapi.testclient import TestClient

from service.runtime.batching import QueryBatcher
from tests.fakes import FakeEmbedder, fake_answerer

QUESTIONS = [f"Combien de dés au tour {i} ?" for i in range(24)]


class SlowEmbedder(FakeEmbedder):
    """Records each inference's batch; a slow inference lets the next questions queue up meanwhile."""

    def __init__(self, delay: float = 0.02, fail_on: str | None = None):
        super().__init__()
        self.delay, self.fail_on = delay, fail_on
        self.query_batches: list[list[str]] = []
        self._lock = threading.Lock()

    def encode_queries(self, texts):
        with self._lock:
            self.query_batches.append(list(texts))
        time.sleep(self.delay)
        if self.fail_on and self.fail_on in texts:
            raise RuntimeError("inference failed")
        return super().encode_queries(texts)


def test_a_lone_question_is_encoded_alone_and_unchanged():
    inner = SlowEmbedder(delay=0)
    batcher = QueryBatcher(inner, max_batch=8)
    try:
        out = batcher.encode_queries(["Qui commence ?"])
        np.testing.assert_array_equal(out, FakeEmbedder().encode_queries(["Qui commence ?"]))
        assert out.shape == (1, inner.dim) and inner.query_batches == [["Qui commence ?"]]
        # The Embedder attributes are the model's own.
        assert (batcher.model_id, batcher.dim, batcher.fingerprint()) == (inner.model_id, inner.dim, inner.fingerprint())
    finally:
        batcher.close()


def test_concurrent_questions_share_inferences_and_each_gets_its_own_vector():
    inner = SlowEmbedder(delay=0.02)
    batcher = QueryBatcher(inner, max_batch=8)
    try:
        with ThreadPoolExecutor(max_workers=len(QUESTIONS)) as pool:
            results = list(pool.map(lambda q: batcher.encode_queries([q]), QUESTIONS))
    finally:
        batcher.close()
    expected = FakeEmbedder().encode_queries(QUESTIONS)
    for question, got, want in zip(QUESTIONS, results, expected):
        np.testing.assert_array_equal(got[0], want, err_msg=question)
    sizes = [len(b) for b in inner.query_batches]
    assert sum(sizes) == len(QUESTIONS) and max(sizes) <= 8
    assert len(sizes) < len(QUESTIONS)  # some questions went together
    assert (batcher.batches, batcher.questions) == (len(sizes), len(QUESTIONS))


def test_an_inference_error_reaches_every_question_of_its_batch_and_none_hangs():
    inner = SlowEmbedder(delay=0.02, fail_on=QUESTIONS[3])
    batcher = QueryBatcher(inner, max_batch=len(QUESTIONS))
    outcomes = []

    def ask(q):
        try:
            batcher.encode_queries([q])
            outcomes.append("ok")
        except RuntimeError:
            outcomes.append("error")

    try:
        with ThreadPoolExecutor(max_workers=len(QUESTIONS)) as pool:
            list(pool.map(ask, QUESTIONS))
    finally:
        batcher.close()
    failed_batch = next(b for b in inner.query_batches if QUESTIONS[3] in b)
    assert outcomes.count("error") == len(failed_batch) and len(outcomes) == len(QUESTIONS)
    assert batcher.encode_queries(["Et après ?"]).shape == (1, inner.dim)  # closed: encodes directly


def test_batches_of_several_texts_and_questions_after_close_go_straight_through():
    inner = SlowEmbedder(delay=0)
    batcher = QueryBatcher(inner, max_batch=4)
    assert batcher.encode_queries(QUESTIONS[:3]).shape == (3, inner.dim)
    batcher.close()
    assert batcher.encode_queries([QUESTIONS[0]]).shape == (1, inner.dim)
    assert [len(b) for b in inner.query_batches] == [3, 1]
    assert not any(t.name == "rulesqa-batcher" for t in threading.enumerate())


@pytest.mark.parametrize("bad", [{"max_batch": 0}, {"max_wait_ms": -1}])
def test_bad_limits_are_refused(bad):
    with pytest.raises(ValueError):
        QueryBatcher(FakeEmbedder(), **bad)


def test_the_api_batches_questions_unless_told_not_to(fake_index):
    from service.web.app import create_app
    from service.runtime.settings import Settings

    answerer = fake_answerer(fake_index)
    body = {"question": "Les pépites d'or rapportent combien ?", "game": "karuba", "k": 3}
    with TestClient(create_app(Settings(index_dir=fake_index), answerer)) as client:
        served = client.app.state.answerer
        assert isinstance(served.retriever.embedder, QueryBatcher) and served is not answerer
        assert client.post("/api/ask", json=body).json() == answerer.ask(body["question"], "karuba", 3).to_dict()
        assert served.retriever.embedder.questions == 1
    assert answerer.retriever.embedder.__class__ is FakeEmbedder  # the given answerer is left as it was
    with TestClient(create_app(Settings(index_dir=fake_index, batch_max=1), answerer)) as client:
        assert client.app.state.answerer is answerer
