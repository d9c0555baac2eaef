"""The publishers' splits (eval/publishers): the questions as written, their gold pages taken from the corpus the
rulebooks were read into, and a cache without the publishers' files refused in one line."""

import json

import pytest

from eval import publishers
from eval.errors import EvalError
from eval.gold import parse_line


def test_every_question_is_valid_gold_once_its_pdf_pages_are_printed_pages():
    books = {b.name: b for b in publishers.load_manifest()}
    count = {"dev": 0, "test": 0}
    for path in sorted(publishers.QUESTIONS.glob("*.jsonl")):
        assert path.stem in books, f"{path.name} : livret absent du manifeste"
        questions = publishers.source_questions(path.stem)
        assert len(questions) >= 10 and sum(not q["answerable"] for q in questions) >= 2, path.name
        for n, q in enumerate(questions, 1):
            assert q["game"] == q["gold_game"] == path.stem
            assert not q["answerable"] or q["pdf_pages"], (path.name, q["id"])
            line = publishers.gold_line(q, {i: [i + 1] for i in range(40)})
            parse_line(json.dumps(line, ensure_ascii=False), path, n, None)
        count[books[path.stem].split] += len(questions)
    assert count["test"] >= count["dev"] > 0


def test_the_gold_pages_are_the_printed_pages_the_corpus_cites_for_the_pdf_page():
    q = {"id": "x-01", "question": "?", "game": "x", "gold_game": "x", "answerable": True, "gold_spans": ["a b c d e"],
         "pdf_pages": [2, 3], "printed_pages": [1, 2], "lang": "fr"}
    # A cover first (PDF page 1, no number), then a spread printing pages 2 and 3 on PDF page 2.
    line = publishers.gold_line(q, {1: [2, 3], 2: [4]})
    assert line["gold_pages"] == [2, 3, 4] and "pdf_pages" not in line and "printed_pages" not in line


def test_a_missing_cache_is_refused_in_one_line(tmp_path):
    with pytest.raises(EvalError, match="livrets des éditeurs absents de .* python -m benchmarks.publishers.cache"):
        publishers.materialize(tmp_path / "out", "publishers-test", cache=tmp_path / "vide")
    with pytest.raises(EvalError, match="split inconnu"):
        publishers.materialize(tmp_path / "out", "publishers", cache=tmp_path)


def test_the_reference_reading_cuts_each_page_at_its_blank_lines(tmp_path, monkeypatch):
    import subprocess

    class Run:
        returncode = 0
        stdout = "# Mise en place\nChaque joueur\npioche (p. 3).\n\nQ: et après ?\n\f| Fin\n\f".encode()

    monkeypatch.setattr(subprocess, "run", lambda *a, **k: Run())
    book = publishers.load_manifest()[0]
    printed = publishers.reference_markdown(tmp_path / "x.pdf", tmp_path, book)
    text = (tmp_path / f"{book.name}.md").read_text("utf-8")
    assert text.split("---\n", 2)[2].strip().splitlines() == [
        "Mise en place Chaque joueur pioche (p 3). (p. 1)", "", "Q : et après ? (p. 1)", "", "Fin (p. 2)"]
    assert printed == {0: [1], 1: [2], 2: [3]}


def test_sources_lists_every_rulebook_of_the_manifest_with_where_it_was_found():
    sources = (publishers.HERE / "SOURCES.md").read_text("utf-8")
    for book in publishers.load_manifest():
        assert f"| {book.name} |" in sources and f"{book.repo} @ {book.commit[:10]}" in sources, book.name
        assert len(book.sha256) == 64 and len(book.commit) == 40 and book.tool
