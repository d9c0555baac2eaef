"""An index folder's calibration.json: the thresholds measured for this index by `rulesqa eval --calibrate`
(service/engine/calibration.py), an entry per model family; absent until then, carried over by every rebuild
(store.save)."""

from __future__ import annotations

import json
from pathlib import Path

from indexer.atomic import write_text_atomic

CALIBRATION = "calibration.json"


def read_calibrations(folder: Path) -> dict:
    """The calibrations measured for the index folder (calibration.json: an entry per model family, written by
    `save_calibration_entry`); empty when it has none. Unreadable JSON raises (OSError, ValueError): the reader
    (service/engine/calibration.py) says why it falls back."""
    path = Path(folder) / CALIBRATION
    if not path.is_file():
        return {}
    return json.loads(path.read_text("utf-8"))


def save_calibration_entry(folder: Path, name: str, entry: dict) -> Path:
    """Set the calibration `name` of the index folder, its other entries kept (an unreadable file is replaced),
    written atomically: a reader sees the old file or the whole new one. Returns the file's path."""
    path = Path(folder) / CALIBRATION
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError):
        data = {}
    data[name] = entry
    # An unmeasured threshold is infinite: Python's json writes and reads it as Infinity.
    return write_text_atomic(path, json.dumps(data, ensure_ascii=False, indent=2) + "\n")
