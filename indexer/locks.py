"""Advisory locks around the builds that write a folder, and the removal of what a killed build left.

- An index folder `DIR/NAME` is built under the lock file `DIR/.NAME.lock`; the model cache (the folder
  holding the base e5 folder and the adapted ones) under `MODELS/.lock`. A second process asking for a
  held lock says so in one French line on stderr and waits (fcntl.flock: the kernel releases the lock of
  a process that dies, however it dies). In one process the locks are reentrant, so `build_index` and
  `store.save` can both take the lock of the folder they write. Order, where both are held: the index's
  lock first, then the models' one.
- A model folder a process has loaded holds a shared lock on its manifest (`hold_shared`), so that the
  cache never removes a model in use (`exclusive_if_unused`).
- Under that lock, a build first removes the scratch folders of processes that no longer run: the
  temporary siblings of `folder_replaced` (`.NAME.tmp-PID-*`, `.NAME.old-PID-*`), the float32 twin and
  trainer folders of an adaptation (`.float32-PID-*`) and the work folders of an evaluation. Their names
  carry the id of the process that made them (indexer/atomic.py); one whose process still runs (a build
  that did not take the lock, such as another program calling `store.save`) is left alone. Names
  without a process id (written before these rules) count as dead.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
import sys
import threading
from contextlib import contextmanager
from pathlib import Path

# `.NAME.tmp-PID-XXXX`, `.NAME.old-PID-XXXX`: folder_replaced's siblings. `.LABEL-PID-XXXX`: scratch folders.
_REPLACED = re.compile(r"^\.(?P<name>.+)\.(?:tmp|old)-(?:(?P<pid>\d+)-)?")
SCRATCH_LABELS = ("float32", "logo", "compare")
_SCRATCH = re.compile(rf"^\.(?:{'|'.join(SCRATCH_LABELS)})-(?:(?P<pid>\d+)-)?")


class _Held:
    def __init__(self):
        self.thread_lock = threading.RLock()
        self.depth = 0
        self.fd: int | None = None


_registry: dict[str, _Held] = {}
_registry_lock = threading.Lock()


def index_lock_file(index_dir: Path) -> Path:
    index_dir = Path(index_dir)
    return index_dir.parent / f".{index_dir.name}.lock"


def models_lock_file(models_root: Path) -> Path:
    return Path(models_root) / ".lock"


@contextmanager
def locked(lock_file: Path, what: str):
    """Hold the advisory lock `lock_file` (created if missing) for the block; `what` names the folder in
    the line printed while waiting for another process."""
    lock_file = Path(lock_file)
    lock_file.parent.mkdir(parents=True, exist_ok=True)
    key = os.path.realpath(lock_file)
    with _registry_lock:
        held = _registry.setdefault(key, _Held())
    with held.thread_lock:
        if held.depth == 0:
            fd = os.open(key, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o644)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                print(f"rulesqa : un autre processus construit {what} ; attente de sa fin…", file=sys.stderr,
                      flush=True)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX)
                except BaseException:
                    os.close(fd)
                    raise
            held.fd = fd
        held.depth += 1
        try:
            yield
        finally:
            held.depth -= 1
            if held.depth == 0:
                os.close(held.fd)  # closing the descriptor releases the lock
                held.fd = None


def index_locked(index_dir: Path):
    """The lock of one index folder (builds, updates, saves of it)."""
    return locked(index_lock_file(index_dir), f"l'index {index_dir}")


def models_locked(models_root: Path):
    """The lock of the model cache (base build, adaptation, removal of unused models)."""
    return locked(models_lock_file(models_root), f"les modèles de {models_root}")


def _alive(pid: str | None) -> bool:
    if pid is None:
        return False
    if int(pid) == os.getpid():
        return True
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # another user's process: running
        return True
    return True


def remove_leftovers(folder: Path, name: str | None = None) -> list[Path]:
    """Remove, in `folder`, the scratch folders of processes that no longer run: folder_replaced's
    siblings of `name` (of any name when None) and, when `name` is None, the scratch folders of
    SCRATCH_LABELS. Call it holding the lock of what is built there. Returns what was removed."""
    removed = []
    try:
        entries = list(Path(folder).iterdir())
    except FileNotFoundError:
        return removed
    for entry in entries:
        found = _REPLACED.match(entry.name)
        if found and name is not None and found["name"] != name:
            continue
        if not found and name is None:
            found = _SCRATCH.match(entry.name)
        if not found or _alive(found["pid"]) or not entry.is_dir() or entry.is_symlink():
            continue
        shutil.rmtree(entry, ignore_errors=True)
        removed.append(entry)
    return removed


def hold_shared(path: Path) -> int | None:
    """A shared lock on `path` (a model folder's manifest) for as long as the returned descriptor stays
    open: the folder is in use, and `exclusive_if_unused` will not let it be removed. None if unreadable."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        return None
    try:
        fcntl.flock(fd, fcntl.LOCK_SH)
    except OSError:
        os.close(fd)
        return None
    return fd


@contextmanager
def exclusive_if_unused(path: Path):
    """Yield True, holding an exclusive lock on `path`, when no process holds it shared (`hold_shared`);
    False when one does. A missing file is unused."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_CLOEXEC)
    except OSError:
        yield True
        return
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            yield False
            return
        yield True
    finally:
        os.close(fd)
