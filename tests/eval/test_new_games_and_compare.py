"""The new-games split (the training corpus's validation games) and the paired comparison of two systems."""

import json

from eval.compare_models import compare, format_report
from eval.gold import load_questions
from eval.new_games import materialize
from eval.training_set import load


def test_the_new_games_are_the_validation_games_with_their_checked_questions(tmp_path):
    corpus, questions = materialize(tmp_path)
    validation = {g.entry.id: g for g in load(split="validation")}
    assert sorted(p.stem for p in corpus.glob("*.md")) == sorted(validation)
    asked = load_questions(questions, split="new-games")
    assert {q.split for q in asked} == {"new-games"} and {q.gold_game for q in asked} <= set(validation)
    refused = {qid for g in validation.values() for qid, v in g.verdicts.items() if v != "ok"}
    kept = {q.id for q in asked}
    assert refused and not kept & refused
    assert all(q.previous in kept for q in asked if q.previous)  # a follow-up keeps its first turn
    total = sum(len(g.questions) for g in validation.values())
    assert total - len(refused) - 5 <= len(kept) <= total - len(refused)
    assert materialize(tmp_path) == (corpus, questions)  # rewritten in place, the same


def test_a_split_without_games_is_refused(tmp_path):
    import pytest

    with pytest.raises(ValueError, match="aucun jeu"):
        materialize(tmp_path, split="entrainement")
    assert not (tmp_path / "corpus").exists()


def test_two_systems_compared_paired(fake_index):
    from service.engine.calibration import Calibration
    from service.engine.decide.abstention import AbstentionPolicy
    from service.engine.retrieval.protocol import FusionConfig
    from tests.fakes import fake_answerer

    dev = load_questions("dev")[:40]
    a = fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.2)))
    b = fake_answerer(fake_index, Calibration(FusionConfig(dense_weight=0.0), AbstentionPolicy(threshold=0.2)))
    same = compare({"a": a, "a bis": a}, dev)
    for mode in ("dense", "hybrid"):
        part = same["modes"][mode]
        assert part["metrics"]["a"] == part["metrics"]["a bis"]
        assert all(t["score_a"] == t["score_b"] for t in part["tests"])
    other = compare({"a": a, "b": b}, dev)
    hybrid = other["modes"]["hybrid"]
    # b ranks by BM25 alone in hybrid mode: its hybrid hit@1 is a's lexical one, a's stays its own.
    assert {t["metric"] for t in hybrid["tests"]} >= {"hit@1", "mrr@10", "outcome"}
    assert hybrid["metrics"]["a"]["hit@1"] == same["modes"]["hybrid"]["metrics"]["a"]["hit@1"]
    assert other["modes"]["dense"]["metrics"]["a"] == other["modes"]["dense"]["metrics"]["b"]
    text = format_report(other)
    assert "| hit@1 |" in text and "right for a only / b only" in text
    json.dumps(other)  # what --json prints


def test_two_splits_pooled_are_tested_on_all_their_questions(fake_index):
    """Pooled: the metrics are those of the questions of both splits together (a share of their union, not the
    mean of two shares), each split's comparison kept beside."""
    from eval.compare_models import pooled
    from service.engine.calibration import Calibration
    from service.engine.decide.abstention import AbstentionPolicy
    from service.engine.retrieval.protocol import FusionConfig
    from tests.fakes import fake_answerer

    a = fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.2)))
    b = fake_answerer(fake_index, Calibration(FusionConfig(dense_weight=0.0), AbstentionPolicy(threshold=0.2)))
    dev, test = load_questions("dev")[:30], load_questions("test")[:50]
    parts = [compare({"a": a, "b": b}, dev), compare({"a": a, "b": b}, test)]
    both = pooled(parts)
    assert both["split"] == "dev+test" and [s["split"] for s in both["splits"]] == ["dev", "test"]
    for label in ("a", "b"):
        answerable = [sum(r["answerable"] for r in p["records"][label]["hybrid"]) for p in parts]
        shares = [p["modes"]["hybrid"]["metrics"][label]["hit@1"] for p in parts]
        expected = (shares[0] * answerable[0] + shares[1] * answerable[1]) / sum(answerable)
        assert abs(both["modes"]["hybrid"]["metrics"][label]["hit@1"] - expected) < 1e-9
    outcome = next(t for t in both["modes"]["hybrid"]["tests"] if t["metric"] == "outcome")
    assert 0.0 <= outcome["p_value"] <= 1.0
    assert "split dev+test" in format_report({k: v for k, v in both.items() if k != "records"})


def test_two_indexes_of_one_model_are_told_apart_by_their_folders():
    from pathlib import Path

    from eval.compare_indexes import system_labels

    assert system_labels(["e5", "gemma"], [Path("var/index"), Path("/tmp/other")]) == ["e5", "gemma"]
    assert system_labels(["e5", "e5"], [Path("var/index"), Path("/tmp/no-margin")]) == ["e5 (index)", "e5 (no-margin)"]
    assert system_labels(["e5", "e5"], [Path("var/index"), Path("/tmp/index")]) == ["e5 (var/index)",
                                                                                    "e5 (/tmp/index)"]
