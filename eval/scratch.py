"""The eval's temporary models and indexes (about 100 MB a model folder) go into a scratch folder beside the
models, removed once measured; a killed run's is removed by the next build (indexer/locks.py)."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def scratch_beside_models(models_dir: Path, label: str) -> Iterator[Path]:
    from indexer.atomic import scratch_dir

    work = scratch_dir(models_dir, label)
    try:
        yield work
    finally:
        shutil.rmtree(work, ignore_errors=True)
