"""Replacing a whole folder (an index, a model) so that readers never see it half-written."""

import os
import shutil
import tempfile
import time
from contextlib import contextmanager
from pathlib import Path


@contextmanager
def folder_replaced(target: Path):
    """Yield an empty temporary folder beside `target`; when the block ends without error, it becomes
    `target`. On any error or interruption the temporary folder is removed and `target` is untouched."""
    target = Path(target)
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.tmp-", dir=target.parent))
    tmp.chmod(0o755)  # mkdtemp makes it private; the service user must read what is built here
    try:
        yield tmp
        _swap(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _swap(tmp: Path, target: Path) -> None:
    # rename() cannot replace a non-empty folder: the old one is moved aside only once the new one is
    # complete, so the window without a folder is two syscalls long instead of a whole build.
    old = None
    if target.exists():
        old = target.with_name(f".{target.name}.old-{os.getpid()}-{time.monotonic_ns()}")
        os.replace(target, old)
    os.replace(tmp, target)
    if old is not None:
        shutil.rmtree(old, ignore_errors=True)
