"""An index's passages, read from their JSON-lines file when asked for.

A shelf of a million passages would take about a gigabyte as Python objects, and seconds to parse at
every start, while a question reads the handful it shows. Only each line's byte offset stays in memory
(8 bytes a passage); a passage is parsed when it is indexed. The file is read with pread rather than
memory-mapped: its pages stay in the kernel's page cache instead of counting in the server's memory, and
one read is one system call (microseconds), safe from any thread.
"""

from __future__ import annotations

import json
import operator
import os
import weakref
from collections.abc import Iterator, Sequence
from pathlib import Path

import numpy as np

from indexer.passages import Passage

# Passages parsed together when iterating: one JSON array parse instead of one per line.
CHUNK = 4096


class PassageFile(Sequence[Passage]):
    """The passages of `path` (one JSON object a line, in row order); `offsets[i]` is where line i starts
    and `offsets[-1]` the file's size."""

    def __init__(self, path: Path, offsets: np.ndarray):
        self._offsets = np.asarray(offsets, dtype=np.int64)
        self._fd = os.open(path, os.O_RDONLY)
        # Closed with the last reference: a reloaded index's old passages go when no request holds them.
        weakref.finalize(self, os.close, self._fd)
        if os.fstat(self._fd).st_size != int(self._offsets[-1]):
            raise ValueError(f"{path} : {os.fstat(self._fd).st_size} octets, {int(self._offsets[-1])} attendus")

    def __len__(self) -> int:
        return len(self._offsets) - 1

    def _read(self, start: int, stop: int) -> bytes:
        """Lines start .. stop - 1, as the file's bytes."""
        first, end = int(self._offsets[start]), int(self._offsets[stop])
        return os.pread(self._fd, end - first, first)

    def __getitem__(self, index):
        if isinstance(index, slice):
            return [self[i] for i in range(*index.indices(len(self)))]
        i = operator.index(index)  # numpy integers too: rows come from numpy arrays
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"passage {index} hors de l'index ({len(self)} passages)")
        return Passage.from_dict(json.loads(self._read(i, i + 1)))

    def __iter__(self) -> Iterator[Passage]:
        for start in range(0, len(self), CHUNK):
            block = self._read(start, min(start + CHUNK, len(self)))
            # A line never holds a raw newline (JSON escapes it), so lines become an array's items.
            yield from map(Passage.from_dict, json.loads(b"[" + block.rstrip(b"\n").replace(b"\n", b",") + b"]"))
