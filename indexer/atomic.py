"""Replacing a whole folder (an index, a model) so that readers never see it half-written, and scratch
folders whose names say which process made them (indexer/locks.py removes those of dead processes)."""

import ctypes
import os
import shutil
import tempfile
from contextlib import contextmanager
from pathlib import Path

# renameat2(2) flag: swap two paths in one step (Linux 3.15+, most local file systems).
_RENAME_EXCHANGE = 2
_AT_FDCWD = -100


def scratch_prefix(label: str) -> str:
    """The name prefix of a scratch folder: hidden, and carrying the process id, so that a later build
    knows a leftover of a killed process from the folder of one still running."""
    return f".{label}-{os.getpid()}-"


def scratch_dir(parent: Path, label: str) -> Path:
    """A new empty scratch folder `.LABEL-PID-XXXX` in `parent`, readable by the service user."""
    Path(parent).mkdir(parents=True, exist_ok=True)
    folder = Path(tempfile.mkdtemp(prefix=scratch_prefix(label), dir=parent))
    folder.chmod(0o755)  # mkdtemp makes it private; the service user must read what is built here
    return folder


@contextmanager
def folder_replaced(target: Path):
    """Yield an empty temporary folder beside `target` (`.NAME.tmp-PID-XXXX`); when the block ends without
    error, it becomes `target`. On any error or interruption the temporary folder is removed and `target`
    is untouched; a process killed outright leaves it behind, for the next build to remove."""
    target = Path(target)
    tmp = scratch_dir(target.parent, f"{target.name}.tmp")
    try:
        yield tmp
        _swap(tmp, target)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def _exchange(a: Path, b: Path) -> bool:
    """Swap two existing paths atomically; False where the system cannot (then nothing happened)."""
    try:
        renameat2 = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):
        return False
    renameat2.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    if renameat2(_AT_FDCWD, os.fsencode(a), _AT_FDCWD, os.fsencode(b), _RENAME_EXCHANGE) == 0:
        return True
    return False


def _swap(tmp: Path, target: Path) -> None:
    # One atomic exchange where the system has it: `target` is never missing, and a kill at any point
    # leaves either version in `target` and at most the other one in the temporary folder.
    if target.exists() and _exchange(tmp, target):
        _discard(tmp)
        return
    # rename() cannot replace a non-empty folder: the old one is moved aside only once the new one is
    # complete, so the window without a folder is two syscalls long instead of a whole build.
    old = None
    if target.exists():
        old = scratch_dir(target.parent, f"{target.name}.old")
        os.rmdir(old)
        os.replace(target, old)
    os.replace(tmp, target)
    if old is not None:
        _discard(old)


def _discard(folder: Path) -> None:
    """Remove a replaced version (readers that opened its files keep them until they close them)."""
    shutil.rmtree(folder, ignore_errors=True)


def write_text_atomic(path: Path, text: str) -> Path:
    """Write `text` to `path` so that a reader sees the old file or the whole new one, never a part."""
    return write_bytes_atomic(path, text.encode("utf-8"))


def write_bytes_atomic(path: Path, data: bytes) -> Path:
    """Write `data` beside `path` and rename it there: a reader sees the old file or the whole new one."""
    path = Path(path)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.chmod(tmp, 0o644)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path
