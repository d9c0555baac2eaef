"""An index folder's calibrations through calibration_file.py: entries set one at a time and read back, the
others kept, written whole (no temporary file left); none when absent; an unreadable file raises on reading and is
replaced on writing (tiny files, no build)."""

import math

import pytest

from indexer import calibration_file


def test_entries_round_trip_and_keep_each_other(tmp_path):
    assert calibration_file.read_calibrations(tmp_path) == {}
    path = calibration_file.save_calibration_entry(tmp_path, "modele-a", {"abstention": {"threshold": math.inf}})
    calibration_file.save_calibration_entry(tmp_path, "modele-b", {"measured": {"hit@1": 0.5}})
    calibration_file.save_calibration_entry(tmp_path, "modele-b", {"measured": {"hit@1": 0.75}})
    assert path == tmp_path / calibration_file.CALIBRATION
    assert calibration_file.read_calibrations(tmp_path) == {"modele-a": {"abstention": {"threshold": math.inf}},
                                                 "modele-b": {"measured": {"hit@1": 0.75}}}
    assert [p.name for p in tmp_path.iterdir()] == [calibration_file.CALIBRATION]


def test_an_unreadable_file_raises_on_reading_and_is_replaced_on_writing(tmp_path):
    (tmp_path / calibration_file.CALIBRATION).write_text("{pas du json", "utf-8")
    with pytest.raises(ValueError):
        calibration_file.read_calibrations(tmp_path)
    calibration_file.save_calibration_entry(tmp_path, "modele-a", {"x": 1})
    assert calibration_file.read_calibrations(tmp_path) == {"modele-a": {"x": 1}}
