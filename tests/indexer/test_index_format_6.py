"""Index folders and calibration.json files written before store.py was split stay loadable without a rebuild.

tests/indexer/data/index-format-6 was written once, by the code of commit f286717 (before the split), with the
fake embedder over two games of corpus/: `single` (an index, with a calibration.json saved by
service.engine.calibration.save) and `shelf` (the same games in two shards, with the shelf's catalogue);
expected.json holds what that code read back (passage counts, first passages of three questions, the
calibration entry). This test reads them with today's code and must find the same."""

import json
import shutil
from dataclasses import asdict
from pathlib import Path

import pytest

from indexer import store
from indexer.shelf import read_shelf
from service.engine import calibration
from service.engine.question import Question
from service.engine.retrieval.single import SingleIndexRetriever
from tests.fakes import FakeEmbedder

DATA = Path(__file__).resolve().parent / "data" / "index-format-6"
EXPECTED = json.loads((DATA / "expected.json").read_text("utf-8"))


@pytest.fixture
def copied(tmp_path) -> Path:
    """A copy, so that nothing a reader might leave (a lock file) lands in the committed folder."""
    shutil.copytree(DATA, tmp_path / "data")
    return tmp_path / "data"


def test_an_index_written_before_the_split_loads_and_ranks_as_it_did(copied):
    data = store.load(copied / "single")
    assert data.manifest.format_version == 6 == store.FORMAT_VERSION
    assert len(data.passages) == EXPECTED["passages"] and [g.id for g in data.games] == EXPECTED["games"]
    assert data.manifest.corpus.hash == EXPECTED["corpus_hash"]
    data.manifest.check_compatible(FakeEmbedder())
    retriever = SingleIndexRetriever.load(copied / "single", FakeEmbedder())
    for question, first in EXPECTED["questions"].items():
        hits = retriever.rank(retriever.score(Question.of(question)), None, 3)
        assert [[h.passage.id, h.passage.game] for h in hits] == first, question


def test_its_calibration_reads_as_it_was_written(copied):
    loaded = calibration.load("fake-hashing", copied / "single")
    assert loaded != calibration.DEFAULT
    for part, values in EXPECTED["calibration"].items():
        if part in calibration.PARTS:
            assert asdict(getattr(loaded, part)) == values, part  # Infinity reads back as inf, equal to itself


def test_a_shelf_written_before_the_split_loads(copied):
    info = read_shelf(copied / "shelf")
    assert [s.folder for s in info.shards] == EXPECTED["shards"]
    assert sum(len(store.load(copied / "shelf" / s.folder).passages) for s in info.shards) == EXPECTED["passages"]
    assert sorted(g.id for g in info.games) == EXPECTED["games"]
