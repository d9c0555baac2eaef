"""An index folder's calibrations through store.py: entries set one at a time and read back, the others kept,
written whole (no temporary file left); none when absent; an unreadable file raises on reading and is
replaced on writing (tiny files, no build)."""

import math

import pytest

from indexer import store


def test_entries_round_trip_and_keep_each_other(tmp_path):
    assert store.read_calibrations(tmp_path) == {}
    path = store.save_calibration_entry(tmp_path, "modele-a", {"abstention": {"threshold": math.inf}})
    store.save_calibration_entry(tmp_path, "modele-b", {"measured": {"hit@1": 0.5}})
    store.save_calibration_entry(tmp_path, "modele-b", {"measured": {"hit@1": 0.75}})
    assert path == tmp_path / store.CALIBRATION
    assert store.read_calibrations(tmp_path) == {"modele-a": {"abstention": {"threshold": math.inf}},
                                                 "modele-b": {"measured": {"hit@1": 0.75}}}
    assert [p.name for p in tmp_path.iterdir()] == [store.CALIBRATION]


def test_an_unreadable_file_raises_on_reading_and_is_replaced_on_writing(tmp_path):
    (tmp_path / store.CALIBRATION).write_text("{pas du json", "utf-8")
    with pytest.raises(ValueError):
        store.read_calibrations(tmp_path)
    store.save_calibration_entry(tmp_path, "modele-a", {"x": 1})
    assert store.read_calibrations(tmp_path) == {"modele-a": {"x": 1}}
