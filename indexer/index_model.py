"""The model folder inside an index (model/): placed by store.save, large files hard-linked where the file
system allows it, and described in the index's manifest (its own manifest's digest, every file's size, its
family and runtime), so that store.model_folder can check it cheaply."""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
from dataclasses import dataclass
from pathlib import Path

from indexer.errors import IndexMismatchError
from indexer.models.description import MANIFEST as MODEL_MANIFEST
from indexer.models.description import read_model_manifest

# Model files at least this large are hard-linked into the index when they can be; smaller ones are copied.
LINK_MIN_BYTES = 1 << 20


@dataclass(frozen=True)
class ModelInfo:
    """The model folder inside the index (model/), as `save` placed it."""

    digest: str  # sha256 of the folder's own manifest (rulesqa_build.json), which holds every file's sha256
    files: dict[str, int]  # every file of the folder (relative path) and its size in bytes
    # What the folder's description says it is (indexer/models/description.py), for a reader of manifest.json.
    family: str = ""
    runtime: str = ""


def place_model(source: Path, dest: Path) -> ModelInfo:
    """Put the model folder `source` at `dest`: large files hard-linked where the file system allows it,
    copied otherwise; returns what the manifest records of it."""
    manifest = source / MODEL_MANIFEST
    if not manifest.is_file():
        raise IndexMismatchError(f"dossier de modèle sans {MODEL_MANIFEST} : {source}")
    files = sorted(p for p in source.rglob("*") if p.is_file())
    for path in files:
        out = dest / path.relative_to(source)
        out.parent.mkdir(parents=True, exist_ok=True)
        if path.stat().st_size >= LINK_MIN_BYTES:
            try:
                os.link(path, out)
                continue
            except OSError as exc:
                if exc.errno not in (errno.EXDEV, errno.EPERM, errno.EMLINK, errno.ENOTSUP):
                    raise
        shutil.copyfile(path, out)
    for p in [dest, *dest.rglob("*")]:
        if p.is_dir():
            p.chmod(0o755)
    return model_info(dest)


def model_info(folder: Path) -> ModelInfo:
    """Digest of a model folder's manifest, the size of each of its files, its family and runtime."""
    folder = Path(folder)
    raw = (folder / MODEL_MANIFEST).read_bytes()
    files = {p.relative_to(folder).as_posix(): p.stat().st_size for p in sorted(folder.rglob("*")) if p.is_file()}
    described = read_model_manifest(folder) or {}
    return ModelInfo(hashlib.sha256(raw).hexdigest(), files, str(described.get("family", "")),
                     str(described.get("runtime", "")))
