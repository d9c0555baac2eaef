"""Calibration: measured settings per model family, and conservative defaults that never turn abstention off."""

import json
import math
import subprocess
import sys
import zipfile

import pytest

from service.engine import calibration
from service.engine.compose.answer_set import AnswerSetPolicy
from service.engine.calibration import DEFAULT, Calibration
from service.engine.decide.abstention import AbstentionPolicy
from service.engine.decide.refusal import RefusalPolicy
from service.engine.retrieval.protocol import FusionConfig
from service.engine.routing.router import RoutingPolicy
from tests.fakes import REPO


def test_saved_calibration_round_trips_with_infinite_thresholds(tmp_path):
    chosen = Calibration(FusionConfig("weighted", 0.8), AbstentionPolicy(0.02, "lift"),
                         RefusalPolicy(off_topic_margin=0.01, names=True), AnswerSetPolicy(0.1, 3, "dense"),
                         routing=RoutingPolicy(ambiguity_margin=0.004, lexical_dominance=3.0))
    path = calibration.save("modele-x", chosen, {"hit@1": 0.5}, tmp_path)
    assert path == tmp_path / "calibration.json" and not list(tmp_path.glob(".*.tmp"))  # written whole, in place
    loaded = calibration.load("modele-x", tmp_path)
    assert loaded == chosen and loaded.source == "calibrated"
    assert math.isinf(loaded.refusal.beyond_rules_margin) and math.isinf(loaded.common_mistake.min_cosine)


def test_a_calibration_saved_before_a_part_was_renamed_still_reads(tmp_path):
    """"warning" was the common-mistake part's name: an index calibrated then keeps its threshold."""
    (tmp_path / "calibration.json").write_text(json.dumps({"modele-x": {"warning": {"min_cosine": 0.83}}}), "utf-8")
    assert calibration.load("modele-x", tmp_path).common_mistake.min_cosine == 0.83


def test_an_index_s_calibration_comes_before_the_package_defaults(tmp_path):
    shipped = calibration.load("multilingual-e5-small")  # the package's default for the family
    assert shipped.source == "calibrated"
    own = Calibration(abstention=AbstentionPolicy(0.5, "lift"))
    calibration.save("multilingual-e5-small", own, {}, tmp_path)
    assert calibration.load("multilingual-e5-small", tmp_path) == own != shipped
    assert calibration.load("multilingual-e5-small", tmp_path / "elsewhere") == shipped  # no file there
    # Another model's entry in the index does not stand for this one's.
    other = tmp_path / "other"
    other.mkdir()
    calibration.save("autre-modele", own, {}, other)
    assert calibration.load("multilingual-e5-small", other) == shipped


def test_a_rebuild_keeps_the_index_s_calibration(tmp_path):
    from indexer.build import build_index
    from tests.fakes import CORPUS, FakeEmbedder

    index = tmp_path / "index"
    build_index(CORPUS, index, FakeEmbedder(), progress=False)
    own = Calibration(abstention=AbstentionPolicy(0.4, "lift"))
    calibration.save("fake-hashing", own, {}, index)
    build_index(CORPUS, index, FakeEmbedder(salt="autre"), progress=False)  # a new version of the folder
    assert calibration.load("fake-hashing", index) == own


def test_an_adapted_model_uses_its_family_calibration(tmp_path):
    chosen = Calibration(abstention=AbstentionPolicy(0.03, "lift"))
    path = calibration.save("multilingual-e5-small-adapted-0123456789ab", chosen, {}, tmp_path)
    assert calibration.load("multilingual-e5-small-adapted-fedcba987654", tmp_path) == chosen
    assert list(json.loads(path.read_text())) == ["multilingual-e5-small-adapted"]


@pytest.mark.parametrize("content", [None, "{pas du json", '{"autre-modele": {}}', '{"m": {"abstention": {"seuil": 1}}}'])
def test_missing_foreign_or_broken_calibration_falls_back_to_refusing_defaults(tmp_path, caplog, content):
    path = tmp_path / "calibration.json"  # an index's
    if content is not None:
        path.write_text(content)
    loaded = calibration.load("m", tmp_path, defaults=tmp_path / "absent.json")
    assert loaded == DEFAULT and loaded.source == "default"
    assert math.isfinite(loaded.abstention.threshold) and loaded.abstention.threshold > 0  # it still refuses
    assert len([r for r in caplog.records if r.levelname == "WARNING"]) == 1


def test_the_shipped_calibration_covers_the_default_model():
    loaded = calibration.load("multilingual-e5-small")
    assert loaded.source == "calibrated" and math.isfinite(loaded.abstention.threshold)


def test_an_installed_wheel_ships_and_reads_its_calibration(tmp_path):
    # A wheel install used to lack calibration.json and silently never refuse.
    subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
                    "-w", str(tmp_path), str(REPO)], check=True, capture_output=True, timeout=300)
    (wheel,) = tmp_path.glob("rulesqa-*.whl")
    site = tmp_path / "site"
    with zipfile.ZipFile(wheel) as zf:
        zf.extractall(site)
    assert (site / "service" / "engine" / "data" / "calibration.json").is_file()
    assert (site / "service" / "engine" / "data" / "reference_questions.json").is_file()
    assert (site / "service" / "web" / "static" / "widget.js").is_file()
    code = ("import service.engine.calibration as c, service.engine.decide.signals as r; "
            f"assert c.DEFAULTS_FILE.is_relative_to(r'{site}'), c.DEFAULTS_FILE; "
            "k = c.load('multilingual-e5-small'); r.reference_questions(); print(k.source)")
    # Run from the extracted wheel only: PYTHONPATH puts it before the editable checkout.
    out = subprocess.run([sys.executable, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=60,
                         env={"PYTHONPATH": str(site), "PATH": "/usr/bin:/bin"})
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "calibrated"
