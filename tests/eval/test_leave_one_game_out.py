"""Leave one game out on the real corpus, with the adaptation and the model replaced by cheap fakes:
the fake "adapted" model is FakeEmbedder salted with the games its pairs came from."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import eval.leave_one_game_out as leave_out
from eval.gold import GoldQuestion
from eval.leave_one_game_out import format_table, leave_one_game_out
from indexer import store
from service.engine.retrieval.protocol import FusionConfig
from tests.fakes import CORPUS, FakeEmbedder

QUESTIONS = [
    GoldQuestion("d1", "Une pépite d'or ça rapporte combien ?", "karuba", "karuba", True,
                 ("2 points par pépite d'or",), (6,), "fr", split="dev"),
    GoldQuestion("d2", "on peut tourner une plaquette ?", None, "karuba", True,
                 ("Le numéro de la plaquette doit rester lisible",), (5,), "fr", split="dev"),
    GoldQuestion("d3", "combien de cartes au milieu au début ?", "cubirds", "cubirds", True,
                 ("rectangle de 3 cartes sur 4",), (), "fr", split="dev"),
    GoldQuestion("d4", "la recette des crêpes ?", None, None, False, (), (), "fr", split="dev",
                 refusal="off_topic"),
]


@pytest.fixture
def fakes(monkeypatch):
    """Records every adaptation (folder name -> games of its pairs) and every model loaded."""
    adapted: dict[str, list[str]] = {}
    loaded: list[str] = []

    def fake_adapt(base_dir, pairs, out, *, seed, progress, threads, salted=True):
        games = sorted({p.game for p in pairs})
        adapted[out.name] = games
        out.mkdir(parents=True)
        (out / "salt").write_text(",".join(games) if salted else "")
        return out

    def fake_embedder(folder, threads):
        loaded.append(Path(folder).name)
        salt = Path(folder, "salt").read_text() if Path(folder, "salt").exists() else ""
        return FakeEmbedder(salt=salt)

    monkeypatch.setattr(leave_out, "adapt_model", fake_adapt)
    monkeypatch.setattr(leave_out, "load_folder_embedder", fake_embedder)
    return adapted, loaded


def run(tmp_path, **kwargs) -> dict:
    base = tmp_path / "base"
    base.mkdir(parents=True, exist_ok=True)
    return leave_one_game_out(base, CORPUS, QUESTIONS, tmp_path / "work", FusionConfig("weighted", 0.7), 2, **kwargs)


def test_each_game_with_questions_is_left_out_of_its_own_adaptation(tmp_path, fakes):
    adapted, loaded = fakes
    report = run(tmp_path)
    assert list(report["games"]) == ["cubirds", "karuba"]  # corpus order; games without a question skipped
    everything = ["cubirds", "cubitos", "karuba", "sans-arret"]
    assert adapted == {"full": everything,
                       "without-cubirds": ["cubitos", "karuba", "sans-arret"],
                       "without-karuba": ["cubirds", "cubitos", "sans-arret"]}
    assert loaded == ["base", "full", "without-cubirds", "without-karuba"]
    # The leave-out index holds the whole corpus, not the games the model was trained on.
    manifest = store.read_manifest(tmp_path / "work" / "indexes" / "without-karuba")
    assert set(manifest.corpus.passages_per_game) == set(everything)
    # Model folders are removed once evaluated; the base folder never is.
    assert not (tmp_path / "work" / "models" / "full").exists() and (tmp_path / "base").is_dir()


def test_report_counts_and_scores_are_json_and_in_range(tmp_path, fakes):
    report = run(tmp_path)
    json.dumps(report)
    karuba, cubirds = report["games"]["karuba"], report["games"]["cubirds"]
    assert (karuba["questions"], karuba["answerable"], cubirds["questions"]) == (2, 2, 1)
    assert report["overall"]["questions"] == 3 and report["overall"]["leave_out_questions"] == 3  # off-topic out
    for row in (karuba, cubirds, report["overall"]):
        for model in ("base", "full", "leave_out"):
            assert set(row[model]) == {"hit@1", "mrr@10"}
            assert 0.0 <= row[model]["hit@1"] <= row[model]["mrr@10"] <= 1.0
    assert karuba["pairs_without"] < report["pairs"]
    table = format_table(report)
    assert "| karuba | 2 (2) |" in table and "| overall | 3 (3) |" in table


def test_the_same_model_everywhere_gives_the_same_figures(tmp_path, fakes, monkeypatch):
    # An adaptation that changes nothing must not change a number: base, full and leave-out agree.
    original = leave_out.adapt_model
    monkeypatch.setattr(leave_out, "adapt_model", lambda *a, **k: original(*a, **k, salted=False))
    report = run(tmp_path)
    for row in [*report["games"].values(), report["overall"]]:
        assert row["base"] == row["full"] == row["leave_out"]


def test_a_game_whose_removal_leaves_too_few_pairs_is_not_adapted(tmp_path, fakes, monkeypatch):
    adapted, _ = fakes
    from indexer.corpus_pairs import training_pairs
    from indexer.passages import load_passages

    docs, passages = load_passages(CORPUS)
    monkeypatch.setattr(leave_out, "MIN_PAIRS", len(training_pairs(passages, [d.game for d in docs])))
    report = run(tmp_path, keep_models=True)
    assert list(adapted) == ["full"]
    assert report["games"]["karuba"]["leave_out"] is None and report["overall"]["leave_out"] is None
    assert report["games"]["karuba"]["full"] is not None
    assert (tmp_path / "work" / "models" / "full").is_dir()
    assert "| karuba | 2 (2) |" in format_table(report)
    monkeypatch.setattr(leave_out, "MIN_PAIRS", 10_000)  # not even the whole corpus: nothing is adapted
    report = run(tmp_path / "again")
    assert list(adapted) == ["full"] and report["overall"]["full"] is None


def test_no_question_on_a_corpus_game_is_an_error(tmp_path, fakes):
    with pytest.raises(ValueError, match="gold_game"):
        leave_one_game_out(tmp_path, CORPUS, QUESTIONS[3:], tmp_path / "work", FusionConfig(), 2)
