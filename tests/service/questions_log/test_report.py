"""What the rules don't answer: near-duplicate grouping with the (fake) embedder, thumbs down, per-game
rates, gold-set candidates; and `rulesqa report` / `rulesqa ask` logging through the command line."""

import json

import pytest
from typer.testing import CliRunner

from eval.gold import parse_line
from rulesqa.cli import app
from service.questions_log.report import build_report, candidates, group_questions, render_report
from tests.fakes import FakeEmbedder
from tests.service.questions_log.test_store import rec

PRICE = "Combien coûte le jeu Karuba ?"


def test_near_duplicates_group_and_different_questions_do_not():
    questions = [PRICE, "combien coute le jeu karuba", "Combien coûte-t-il, le jeu Karuba ?",
                 "Qui a dessiné les cartes ?"]
    groups = group_questions(questions, FakeEmbedder())
    assert sorted(map(sorted, groups)) == [[0, 1, 2], [3]]
    # Without a model: only the same folded text groups.
    assert sorted(map(sorted, group_questions(questions, None))) == [[0, 1], [2], [3]]


def test_report_lists_refused_groups_thumbs_down_and_rates(store):
    down, good = rec("Combien de dés au départ ?"), rec("Comment on gagne ?", game="karuba")
    store.record_many([
        rec(PRICE, found=False, game="karuba"), rec("combien coute le jeu karuba", found=False, game="karuba"),
        rec("Quelle est la météo demain ?", found=False, game=None),
        down, rec("Qui commence ?", game="cubitos"), good,
    ])
    store.feedback(down.ask_id, False, "Mauvaise page")
    store.feedback(good.ask_id, True)
    report = build_report(store, FakeEmbedder())
    assert report["questions"] == 6
    assert report["refused"][0]["count"] == 2 and report["refused"][0]["games"] == ["karuba"]
    assert set(report["refused"][0]["variants"]) == {PRICE, "combien coute le jeu karuba"}
    assert [g["count"] for g in report["refused"]] == [2, 1]
    assert [(t["question"], t["comment"], t["pages"]) for t in report["thumbs_down"]] == [
        ("Combien de dés au départ ?", "Mauvaise page", [11, 13])]
    per_game = {g["game"]: g for g in report["per_game"]}
    assert per_game["karuba"] == {"game": "karuba", "questions": 3, "found_rate": 0.333, "feedback": 1,
                                  "helpful_rate": 1.0}
    assert per_game["cubitos"]["helpful_rate"] == 0.0 and per_game["(aucun)"]["found_rate"] == 0.0
    text = render_report(report)
    assert "   2 × " in text and "Mauvaise page" in text
    only = build_report(store, FakeEmbedder(), game="cubitos")
    assert only["questions"] == 2 and only["refused"] == []


def test_candidates_are_in_the_gold_format_and_need_review(store, tmp_path):
    helpful, down, refused = rec("Qui commence ?"), rec("Combien de dés ?"), rec(PRICE, found=False, game="karuba")
    store.record_many([helpful, down, refused])
    store.feedback(helpful.ask_id, True)
    store.feedback(down.ask_id, False, "faux")
    items = {c["question"]: c for c in candidates(store)}
    assert set(items) == {"Combien de dés ?", PRICE}  # a helpful answer teaches the eval nothing new
    assert all(c["needs_review"] is True for c in items.values())
    assert items[PRICE]["answerable"] is False and items[PRICE]["refusal"] == "not_in_rules"
    assert items["Combien de dés ?"]["feedback"] == {"helpful": False, "comment": "faux"}
    assert items["Combien de dés ?"]["top_passage"]["pages"] == [11, 13]
    # Once reviewed (the review fields dropped), a line loads as a gold question.
    gold_fields = ("id", "question", "game", "gold_game", "answerable", "refusal", "gold_spans", "gold_pages", "lang")
    line = json.dumps({k: items[PRICE][k] for k in gold_fields}, ensure_ascii=False)
    assert parse_line(line, "candidates.jsonl", 1, None).question == PRICE


# ---------------------------------------------------------------- command line

runner = CliRunner()


@pytest.fixture
def cli_env(monkeypatch, tmp_path, fake_index):
    from service.runtime.settings import Settings

    url = f"sqlite:///{tmp_path / 'cli.db'}"
    monkeypatch.setenv("RULESQA_DATABASE_URL", url)
    monkeypatch.setenv("RULESQA_LOG_QUESTIONS", "true")
    monkeypatch.setenv("RULESQA_INDEX_DIR", str(fake_index))
    monkeypatch.setattr(Settings, "index_embedder", lambda self: FakeEmbedder())
    return url


def test_cli_ask_logs_unless_no_log_and_report_json_lists_it(cli_env):
    out = runner.invoke(app, ["ask", "Les pépites d'or rapportent combien à la fin ?", "--game", "karuba", "--json"])
    assert out.exit_code == 0, out.output
    ask_id = json.loads(out.stdout)["ask_id"]
    assert ask_id
    quiet = runner.invoke(app, ["ask", "Et les cristaux ?", "--game", "karuba", "--json", "--no-log"])
    assert quiet.exit_code == 0 and json.loads(quiet.stdout)["ask_id"] is None
    out = runner.invoke(app, ["report", "--json"])
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert report["questions"] == 1 and report["per_game"][0]["game"] == "karuba"


def test_cli_report_candidates_and_bad_options(cli_env, tmp_path):
    runner.invoke(app, ["ask", "Quelle est la météo demain ?", "--json"])
    target = tmp_path / "candidats.jsonl"
    out = runner.invoke(app, ["report", "--candidates", str(target)])
    assert out.exit_code == 0, out.output
    lines = [json.loads(line) for line in target.read_text(encoding="utf-8").splitlines()]
    assert [c["question"] for c in lines] == ["Quelle est la météo demain ?"] and lines[0]["needs_review"]
    from tests.fakes import REPO

    refused = runner.invoke(app, ["report", "--candidates", str(REPO / "eval" / "questions" / "new.jsonl")])
    assert refused.exit_code == 2 and "relisent avant d'entrer dans eval/questions/" in refused.stderr
    assert not (REPO / "eval" / "questions" / "new.jsonl").exists()
    bad = runner.invoke(app, ["report", "--since", "0"])
    assert bad.exit_code == 2


def test_cli_report_on_a_newer_schema_is_one_line(cli_env):
    from sqlalchemy import create_engine

    from service.questions_log.schema import schema_version
    from service.questions_log.store import Store

    Store(cli_env).open().close()
    with create_engine(cli_env).begin() as conn:
        conn.execute(schema_version.update().values(version=99))
    out = runner.invoke(app, ["report"])
    assert out.exit_code == 2 and "plus récent que ce rulesqa" in out.stderr and "Traceback" not in out.output


def test_cli_ask_answers_even_when_the_log_cannot_be_written(cli_env, monkeypatch, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a folder")
    monkeypatch.setenv("RULESQA_DATABASE_URL", f"sqlite:///{blocker / 'sub' / 'rulesqa.db'}")
    out = runner.invoke(app, ["ask", "Les pépites d'or rapportent combien à la fin ?", "--game", "karuba", "--json"])
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["found"] is True
    warnings = [line for line in out.stderr.splitlines() if "journal des questions indisponible" in line]
    assert len(warnings) == 1 and "Traceback" not in out.stderr


@pytest.mark.model
def test_real_e5_groups_paraphrases_and_keeps_different_questions_apart(adapted_embedder):
    questions = ["Combien coûte le jeu Karuba ?", "Karuba ça coûte combien ?", "Quel est le prix de Karuba ?",
                 "Peut-on jouer à Karuba à 6 ?", "Karuba se joue à 6 joueurs ?", "Qui a illustré Karuba ?"]
    groups = sorted(map(sorted, group_questions(questions, adapted_embedder)))
    assert groups == [[0, 1, 2], [3, 4], [5]]
