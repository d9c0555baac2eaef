"""An index's passages read from their JSON-lines file when asked for: each read is the line's passage, parsed
once while it stays among the PARSED kept, and the kept ones never grow past PARSED."""

import json

import numpy as np
import pytest

import indexer.passage_file as passage_file
from indexer.passage_file import PassageFile
from indexer.passages import Passage


def passage(n: int) -> Passage:
    return Passage(f"p{n}", "alpha", "Règles", None, (n,), f"texte {n}", n)


@pytest.fixture
def three(tmp_path):
    lines = [(json.dumps(passage(n).to_dict(), ensure_ascii=False) + "\n").encode() for n in range(3)]
    path = tmp_path / "passages.jsonl"
    path.write_bytes(b"".join(lines))
    return PassageFile(path, np.cumsum([0, *map(len, lines)]))


def test_rows_read_their_own_line_and_a_second_read_is_not_parsed_again(three, monkeypatch):
    assert [three[i] for i in (0, 2, 1)] == [passage(0), passage(2), passage(1)]
    assert three[np.int64(-1)] == passage(2) and list(three) == [passage(n) for n in range(3)]
    monkeypatch.setattr(passage_file.Passage, "from_dict", lambda data: pytest.fail("parsed again"))
    assert three[1] is three[1] and three[0].pages == (0,)


def test_the_parsed_passages_kept_never_exceed_parsed(three, monkeypatch):
    monkeypatch.setattr(passage_file, "PARSED", 2)
    for i in (0, 1, 2, 0, 2, 1):
        assert three[i] == passage(i)
        assert len(three._parsed) <= 2
    with pytest.raises(IndexError):
        three[3]
