"""The four games shipped in corpus/: counts, citations of known passages, verbatim text."""

import json
import re
from collections import Counter
from pathlib import Path

import pytest
from typer.testing import CliRunner

from tests.fakes import REPO
from indexer.game_card import FIELDS
from indexer.passages import load_passages
from rulesqa.cli import app

CORPUS = REPO / "corpus"


@pytest.fixture(scope="module")
def corpus():
    return load_passages(CORPUS)


def test_games_and_metadata(corpus):
    docs, _ = corpus
    games = {d.game.id: d.game for d in docs}
    assert sorted(games) == ["cubirds", "cubitos", "karuba", "sans-arret"]
    assert "Can't Stop" in games["sans-arret"].aliases
    assert (games["karuba"].author, games["karuba"].publisher, games["karuba"].year) == ("Rüdiger Dorn", "HABA", 2015)
    assert games["cubitos"].players == "2 à 4" and games["cubitos"].age == "10 ans et +"


def test_counts_per_game(corpus):
    _, items = corpus
    assert Counter(p.game for p in items) == {"cubitos": 21, "karuba": 19, "sans-arret": 18, "cubirds": 23}


def test_each_rules_question_is_one_passage_with_its_answer_pages(corpus):
    _, items = corpus
    qa = [p for p in items if p.section == "Les règles en questions"]
    assert len(qa) == 27
    for p in qa:
        question, answer = p.text.split("\n", 1)
        assert question == p.title and question.endswith("?") and answer
        assert p.pages, p.id
    by_question = {p.title: p.pages for p in qa}
    assert by_question["Quand risque-t-on de trébucher ?"] == (10, 13)
    assert by_question["Quelle différence entre les pièces et les crédits ?"] == (9, 11)
    assert by_question["De combien de cases avance un aventurier ?"] == (5,)
    assert by_question["Combien de trésors de temple utilise-t-on selon le nombre de joueurs ?"] == (3,)


def test_known_bullets_and_cubirds_sections(corpus):
    _, items = corpus
    nuggets = next(p for p in items if p.title == "Aux points")
    assert (nuggets.game, nuggets.pages) == ("karuba", (6,)) and "2 points par pépite d'or" in nuggets.text
    cubirds = [p for p in items if p.game == "cubirds"]
    assert all(p.pages == () for p in cubirds)
    end = [p for p in cubirds if p.section == "Fin de partie"]
    assert len(end) == 2 and "7 espèces différentes" in end[0].text
    phases = next(p for p in cubirds if p.text.startswith("Un tour se déroule en 2 phases :"))
    assert phases.text.endswith("- Poser des oiseaux\n- Faire une envolée")
    assert any(p.section == "Une carte de la même espèce dans la rangée" for p in cubirds)


def test_navigation_lines_are_gone(corpus):
    _, items = corpus
    text = "\n".join(p.text for p in items)
    for nav in ("Pose ta question", "Voir les 5 autres parties", "Touche une partie", "Fiches à imprimer"):
        assert nav not in text


def test_every_passage_line_is_verbatim_in_its_file(corpus):
    docs, items = corpus
    sources = {}
    for doc in docs:
        raw = Path(doc.game.path).read_text(encoding="utf-8")
        sources[doc.game.id] = re.sub(r"\s*\(pp?\. [^)]*\)", "", raw)
    for p in items:
        for line in p.text.split("\n"):
            if p.is_card:  # "Âge : 8 ans et +" quotes the header line "age: 8 ans et +"
                label, _, value = line.partition(" : ")
                assert label in FIELDS.values() and f": {value}\n" in sources[p.game], (p.id, line)
            else:
                assert line in sources[p.game], (p.id, line)


def test_cli_passages_json_and_game_filter():
    runner = CliRunner()
    result = runner.invoke(app, ["passages", "--json", "--game", "karuba", "--corpus", str(CORPUS)])
    assert result.exit_code == 0
    data = json.loads(result.stdout)
    assert {p["game"] for p in data["passages"]} == {"karuba"} and len(data["passages"]) == 19
    first = data["passages"][0]
    assert set(first) == {"id", "game", "section", "title", "pages", "text", "line", "kind"}
    assert first["kind"] == "card" and "Âge : 8 ans et +" in first["text"].split("\n")


def test_cli_unknown_game_exits_2_and_lists_games():
    result = CliRunner().invoke(app, ["passages", "--game", "monopoly", "--corpus", str(CORPUS)])
    assert result.exit_code == 2
    assert "monopoly" in result.stderr and "cubirds, cubitos, karuba, sans-arret" in result.stderr


def test_cli_bad_corpus_exits_2_with_file_line(tmp_path):
    (tmp_path / "jeu.md").write_text("---\nid: jeu\ntitle: Jeu\nfoo: bar\n---\nx\n", encoding="utf-8")
    result = CliRunner().invoke(app, ["passages", "--corpus", str(tmp_path)])
    assert result.exit_code == 2
    assert f"{tmp_path / 'jeu.md'}:4: clé inconnue « foo »" in result.stderr
    assert "Traceback" not in result.output
