"""`rulesqa eval` through the command line, with the fake embedder standing in for the index's model: the
measure on a few questions, and what is refused in one line with exit code 2 before anything loads."""

import json

import pytest
from typer.testing import CliRunner

from rulesqa.cli import app
from service.runtime.settings import Settings
from tests.fakes import FakeEmbedder

QUESTIONS = [
    {"id": "d1", "question": "Une pépite d'or ça rapporte combien ?", "game": "karuba", "gold_game": "karuba",
     "answerable": True, "gold_spans": ["2 points par pépite d'or"], "gold_pages": [6], "lang": "fr"},
    {"id": "d2", "question": "la recette des crêpes ?", "game": None, "gold_game": None, "answerable": False,
     "gold_spans": [], "gold_pages": [], "lang": "fr", "refusal": "off_topic"},
]


def test_measure_prints_the_metrics_and_writes_each_answer(fake_index, tmp_path, monkeypatch):
    monkeypatch.setattr(Settings, "index_embedder", lambda self: FakeEmbedder())
    monkeypatch.delenv("RULESQA_RERANKER", raising=False)
    questions = tmp_path / "dev.jsonl"
    questions.write_text("".join(json.dumps(q, ensure_ascii=False) + "\n" for q in QUESTIONS), "utf-8")
    outcomes = tmp_path / "outcomes.jsonl"
    result = CliRunner().invoke(app, ["eval", "--questions", str(questions), "--mode", "lexical", "--json",
                                      "--outcomes", str(outcomes), "--index", str(fake_index)])
    assert result.exit_code == 0, result.output
    assert result.stderr.strip() == f"réponses : {outcomes}" and len(outcomes.read_text().splitlines()) == 2
    printed = json.loads(result.stdout)
    assert printed["modes"] == ["lexical"] and "records" not in printed


@pytest.mark.parametrize("args, message", [
    (["--split", "pooled"], "--split pooled (test et new-games ensemble) ne vaut qu'avec --compare-index"),
    (["--compare-adapt", "--calibrate"], "--compare-adapt compare les deux modèles e5"),
    (["--split", "test", "--calibrate"], "dev"),
])
def test_refused_in_one_line_with_exit_2(args, message):
    result = CliRunner().invoke(app, ["eval", *args])
    assert result.exit_code == 2, result.output
    errors = result.stderr.strip().splitlines()
    assert len(errors) == 1 and errors[0].startswith("rulesqa: erreur : ") and message in errors[0]
