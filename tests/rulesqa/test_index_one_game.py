"""`rulesqa index --game ID` / `--remove ID` on an existing index, with the fake embedder standing in for
the index's model."""

import shutil

import pytest
from typer.testing import CliRunner

from indexer import store
from indexer.build import build_index
from rulesqa.cli import app
from service.runtime.settings import Settings
from tests.fakes import CORPUS, FakeEmbedder


@pytest.fixture
def folders(tmp_path, monkeypatch):
    corpus, index = tmp_path / "corpus", tmp_path / "index"
    shutil.copytree(CORPUS, corpus)
    build_index(corpus, index, FakeEmbedder(), progress=False)
    monkeypatch.setattr(Settings, "index_embedder", lambda self: FakeEmbedder())
    return corpus, index


def test_remove_then_add_one_game(folders):
    corpus, index = folders
    result = CliRunner().invoke(app, ["index", "--remove", "karuba", "--corpus", str(corpus), "--out", str(index)])
    assert result.exit_code == 0, result.output
    assert "karuba : retiré ; l'index compte 3 jeux" in result.stderr and result.stdout.strip() == str(index)
    assert "karuba" not in store.read_manifest(index).corpus.passages_per_game
    result = CliRunner().invoke(app, ["index", "--game", "karuba", "--corpus", str(corpus), "--out", str(index)])
    assert result.exit_code == 0 and "karuba : 19 passages (19 encodés)" in result.stderr
    assert store.read_manifest(index).corpus.passages_per_game["karuba"] == 19


@pytest.mark.parametrize("args, message", [
    (["--game", "monopoly"], "aucun fichier du corpus ne déclare « id: monopoly »"),
    (["--remove", "monopoly"], "jeu inconnu : 'monopoly'"),
    (["--game", "karuba", "--remove", "cubirds"], "--game et --remove s'excluent"),
])
def test_bad_game_is_one_line_and_exit_2(folders, args, message):
    corpus, index = folders
    result = CliRunner().invoke(app, ["index", *args, "--corpus", str(corpus), "--out", str(index)])
    errors = result.stderr.strip().splitlines()
    assert result.exit_code == 2 and len(errors) == 1 and message in errors[0]
