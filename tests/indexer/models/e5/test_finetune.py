"""Index-time adaptation of e5: the pairs a corpus gives, the folder's identity, reuse and atomicity.

Most tests replace the training and the ONNX export with fakes that write small files; the tests
marked `model` fine-tune the real folder once per session on two games for one epoch.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import numpy as np
import pytest

from indexer.corpus import Game
from indexer.models.e5 import finetune as adapt
from indexer.corpus_pairs import training_pairs
from indexer.models.e5.finetune import (MIN_PAIRS, RECIPE, Pair, Recipe, adapt_model, adapted_dir, adapted_fingerprint)
from indexer.errors import ModelError
from indexer.passages import Passage, load_passages
from indexer.models.embedders import load_folder_embedder
from indexer.passage_text import embedding_text
from tests.fakes import CORPUS

ALPHA = Game("alpha", "Alpha")
BETA = Game("beta", "Beta")


def passage(game: str, section: str | None, title: str | None, text: str, n: int) -> Passage:
    return Passage(f"{game}-{n}", game, section, title, (), text, n)


TINY = [
    passage("alpha", "Les règles en questions", "Combien de cartes ?", "Combien de cartes ?\nCinq cartes chacun.", 1),
    passage("alpha", "Comment on gagne", "Aux points", "Aux points\nLe plus haut total gagne.", 2),
    passage("alpha", "Mise en place", None, "Chacun prend une île.", 3),
    passage("alpha", "Mise en place", None, "Les temples vont sur la jungle.", 4),
    passage("beta", "Comment on gagne", None, "Le premier à trois voies gagne.", 5),
    passage("beta", "Envolée", "Envolée obligatoire ?", "Envolée obligatoire ?\nNon.", 6),
    passage("beta", None, None, "Beta est un jeu de dés.", 7),
    passage("beta", "Les règles en questions", "Peut-on passer ?", "Peut-on passer ?\nJamais.", 8),
]


def test_training_pairs_of_a_tiny_corpus_by_hand():
    assert training_pairs(TINY, [ALPHA, BETA]) == [
        Pair("Combien de cartes ?", "Alpha · Les règles en questions\nCinq cartes chacun.", "alpha", "qa"),
        Pair("Aux points", "Alpha · Comment on gagne\nAux points\nLe plus haut total gagne.", "alpha", "bullet"),
        Pair("Mise en place", "Alpha · Mise en place\nChacun prend une île.", "alpha", "section"),
        Pair("Mise en place", "Alpha · Mise en place\nLes temples vont sur la jungle.", "alpha", "section"),
        # "Comment on gagne" is used by both games: it names no passage in particular.
        Pair("Envolée obligatoire ?", "Beta · Envolée\nNon.", "beta", "qa"),
        # A heading only beta uses points to every passage under it, as indexed (question included).
        Pair("Envolée", "Beta · Envolée\nEnvolée obligatoire ?\nNon.", "beta", "section"),
        Pair("Peut-on passer ?", "Beta · Les règles en questions\nJamais.", "beta", "qa"),
    ]


def test_excluding_a_game_drops_its_pairs_and_changes_no_other():
    everything = training_pairs(TINY, [ALPHA, BETA])
    without_beta = training_pairs(TINY, [ALPHA, BETA], exclude_games={"beta"})
    assert without_beta == [p for p in everything if p.game == "alpha"]
    # Without beta's passages at all, "Comment on gagne" would be alpha's alone; excluding beta's pairs
    # must not make it so (a left-out game still shares its headings).
    assert all(p.query != "Comment on gagne" for p in without_beta)
    assert training_pairs(TINY, [ALPHA, BETA], exclude_games={"alpha", "beta"}) == []


def test_real_corpus_pairs_are_embedded_texts_and_questions_are_not_in_their_answer():
    docs, passages = load_passages(CORPUS)
    games = {d.game.id: d.game for d in docs}
    pairs = training_pairs(passages, list(games.values()))
    indexed = {embedding_text(p, games[p.game]) for p in passages}
    assert len(pairs) >= MIN_PAIRS
    assert {p.source for p in pairs} == {"qa", "bullet", "section"}
    assert {p.game for p in pairs} == set(games)
    for p in pairs:
        if p.source == "qa":
            assert p.query.endswith("?") and p.query not in p.passage
            assert any(t.endswith(p.passage.split("\n", 1)[1]) for t in indexed)
        else:
            assert p.passage in indexed
    assert len(set(pairs)) == len(pairs)


def test_fingerprint_follows_base_pairs_recipe_and_seed():
    pairs = training_pairs(TINY, [ALPHA, BETA])
    fp = adapted_fingerprint("base", pairs)
    assert fp == adapted_fingerprint("base", list(pairs))
    assert len({fp, adapted_fingerprint("other-base", pairs), adapted_fingerprint("base", pairs[:-1]),
                adapted_fingerprint("base", pairs, recipe=Recipe(epochs=1)), adapted_fingerprint("base", pairs, seed=1),
                adapted_fingerprint("base", [*pairs[:-1], Pair("Autre ?", pairs[-1].passage, "beta", "qa")])}) == 6


def test_adapted_dir_is_keyed_by_base_and_corpus_and_named_in_the_calibration_family(tmp_path):
    from service.engine.calibration import family

    d = adapted_dir(tmp_path, "base", "corpus")
    assert d.parent == tmp_path and d == adapted_dir(tmp_path, "base", "corpus")
    assert d != adapted_dir(tmp_path, "base2", "corpus") != adapted_dir(tmp_path, "base", "corpus2")
    assert re.fullmatch(r"multilingual-e5-small-adapted-[0-9a-f]{12}", d.name)
    assert family(d.name) == "multilingual-e5-small-adapted"


# --- adapt_model with fake training ---------------------------------------------------------------


@pytest.fixture
def base_dir(tmp_path) -> Path:
    base = tmp_path / "base"
    base.mkdir()
    from indexer.models.description import write_description
    from indexer.models.e5.folder import description

    write_description(base, description("fake source"), fingerprint="b" * 64)
    return base


@pytest.fixture
def fake_training(monkeypatch, tmp_path):
    calls = []

    def float32_twin(base_dir, target):
        target.mkdir(parents=True, exist_ok=True)
        (target / "model.safetensors").write_bytes(b"float32 weights")
        return target

    def train(float32_dir, pairs, *, seed, recipe, progress, threads, scratch):
        assert (float32_dir / "model.safetensors").is_file()  # trains from the float32 twin
        # The twin is the model cache's, beside the base and kept; the trainer writes in a scratch folder
        # (.float32-PID-*) beside the adapted folder, removed after training.
        assert float32_dir.name == "base.float32" and float32_dir.parent == tmp_path
        assert scratch.parent.name.startswith(".float32-")
        calls.append(len(pairs))
        return {"steps": 1, "train_loss": 0.5}, {"layer": b"trained"}

    def write_lean(base_dir, state, folder):
        assert state == {"layer": b"trained"}
        (folder / "onnx").mkdir()
        (folder / "onnx" / "model.onnx").write_bytes(b"graph")

    monkeypatch.setattr(adapt, "build_float32_folder", float32_twin)
    monkeypatch.setattr(adapt, "_train", train)
    monkeypatch.setattr(adapt, "_write_lean", write_lean)
    return calls


def many_pairs(n: int = MIN_PAIRS) -> list[Pair]:
    return [Pair(f"question {i} ?", f"Alpha · Q\nréponse {i}", "alpha", "qa") for i in range(n)]


def test_adapt_writes_a_manifest_covering_base_pairs_and_recipe(base_dir, tmp_path, fake_training):
    pairs = many_pairs()
    out = adapt_model(base_dir, pairs, tmp_path / "adapted", progress=False)
    manifest = json.loads((out / "rulesqa_build.json").read_text())
    assert manifest["fingerprint"] == adapted_fingerprint("b" * 64, pairs, 0, RECIPE)
    assert manifest["model_id"] == "multilingual-e5-small-adapted-" + manifest["fingerprint"][:12]
    # It describes itself as its base does (same family, runtime, tokenizer, prompts), plus what adapted it.
    assert manifest["family"] == "e5-small" and manifest["runtime"] == "onnx" and manifest["tokenizer"] == "e5-unigram"
    details = manifest["details"]
    assert details["base_fingerprint"] == "b" * 64
    assert details["pairs"] == MIN_PAIRS and details["pairs_by_source"] == {"qa": MIN_PAIRS}
    assert details["recipe_version"] == adapt.RECIPE_VERSION and details["recipe"]["epochs"] == RECIPE.epochs
    assert details["training"]["steps"] == 1
    # The float32 twin was only for training: the adapted folder holds the graph, not safetensors.
    assert set(manifest["files"]) == {"onnx/model.onnx"}
    assert details["weights"] == f"q4 matrices + rank-{adapt.UPDATE_RANK} float32 updates of the trained ones"
    # No scratch folder left; the float32 twin stays in the cache beside its base, for the next adaptation.
    assert sorted(p.name for p in tmp_path.iterdir()) == ["adapted", "base", "base.float32"]


def test_same_fingerprint_is_reused_without_training_and_new_pairs_retrain(base_dir, tmp_path, fake_training):
    pairs = many_pairs()
    out = tmp_path / "adapted"
    adapt_model(base_dir, pairs, out, progress=False)
    assert adapt_model(base_dir, pairs, out, progress=False) == out
    assert fake_training == [MIN_PAIRS]
    adapt_model(base_dir, many_pairs(MIN_PAIRS + 1), out, progress=False)
    assert fake_training == [MIN_PAIRS, MIN_PAIRS + 1]
    # A build with a file missing is not complete: it is redone.
    (out / "onnx" / "model.onnx").unlink()
    adapt_model(base_dir, many_pairs(MIN_PAIRS + 1), out, progress=False)
    assert len(fake_training) == 3


def test_a_failure_mid_training_leaves_no_folder_and_the_previous_build_intact(base_dir, tmp_path, monkeypatch,
                                                                                fake_training):
    out = tmp_path / "models" / "adapted"
    adapt_model(base_dir, many_pairs(), out, progress=False)
    before = (out / "rulesqa_build.json").read_text()

    def crash(float32_dir, pairs, **kwargs):
        raise RuntimeError("interrupted")

    monkeypatch.setattr(adapt, "_train", crash)
    with pytest.raises(RuntimeError):
        adapt_model(base_dir, many_pairs(MIN_PAIRS + 2), out, progress=False)
    assert (out / "rulesqa_build.json").read_text() == before
    assert sorted(p.name for p in out.parent.iterdir()) == ["adapted"]
    with pytest.raises(RuntimeError):
        adapt_model(base_dir, many_pairs(), tmp_path / "models" / "fresh", progress=False)
    assert not (tmp_path / "models" / "fresh").exists()


def test_too_few_pairs_is_a_signal_to_keep_the_base_model(base_dir, tmp_path, fake_training):
    with pytest.raises(adapt.NotEnoughPairsError, match=str(MIN_PAIRS)) as info:
        adapt_model(base_dir, many_pairs(MIN_PAIRS - 1), tmp_path / "adapted", progress=False)
    assert isinstance(info.value, ModelError)
    assert fake_training == [] and not (tmp_path / "adapted").exists()


def test_a_base_folder_without_manifest_is_refused(tmp_path, fake_training):
    with pytest.raises(ModelError, match="rulesqa model build"):
        adapt_model(tmp_path, many_pairs(), tmp_path / "adapted", progress=False)


def test_import_stays_cheap():
    import subprocess
    import sys

    code = ("import sys, indexer.models.e5.finetune, eval.leave_one_game_out; print([m for m in ('torch', 'datasets', "
            "'sentence_transformers', 'transformers') if m in sys.modules])")
    out = subprocess.run([sys.executable, "-c", code], cwd=CORPUS.parent, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"


# --- the real model ---------------------------------------------------------------------------------

SMALL = Recipe(epochs=1)


def small_pairs() -> list[Pair]:
    docs, passages = load_passages(CORPUS)
    games = [d.game for d in docs]
    return training_pairs(passages, games, exclude_games={g.id for g in games} - {"karuba", "sans-arret"})


@pytest.fixture(scope="session")
def adapted_small(tmp_path_factory, e5_model_dir) -> Path:
    """e5 adapted on two games' pairs for one epoch: once per session."""
    out = tmp_path_factory.mktemp("adapted") / "model"
    return adapt_model(e5_model_dir, small_pairs(), out, progress=False, recipe=SMALL, threads=2)


TEXTS = ["Karuba · Comment on gagne\nAux points\nAdditionne tes trésors de temple.",
         "Sans Arrêt · Un tour, en bref\nLance les quatre dés et forme deux paires."]


@pytest.mark.model
def test_adapted_folder_loads_with_onnx_and_moves_the_vectors(adapted_small, real_embedder):
    from indexer.models.embedders import OnnxEmbedder, load_folder_embedder

    emb = load_folder_embedder(adapted_small, threads=2)
    assert isinstance(emb, OnnxEmbedder) and emb.dim == 384
    assert emb.model_id.startswith("multilingual-e5-small-adapted-")
    assert emb.fingerprint() != real_embedder.fingerprint()
    for encode in ("encode_queries", "encode_passages"):
        new, old = getattr(emb, encode)(TEXTS), getattr(real_embedder, encode)(TEXTS)
        assert new.shape == old.shape == (2, 384)
        assert np.allclose(np.linalg.norm(new, axis=1), 1.0, atol=1e-5)
        cosines = np.sum(new * old, axis=1)
        assert np.all(cosines < 0.99999) and np.all(cosines > 0.8)  # moved, not destroyed


@pytest.mark.model
def test_adapted_graph_keeps_every_matrix_in_4bit(adapted_small, e5_model_dir):
    """Each linear layer is the base's MatMulNBits plus two thin float32 products, nothing wider."""
    import onnx

    graph = onnx.load(str(adapted_small / "onnx" / "model.onnx")).graph
    base = onnx.load(str(e5_model_dir / "onnx" / "model.onnx")).graph
    ops = [n.op_type for n in graph.node]
    assert ops.count("MatMulNBits") == [n.op_type for n in base.node].count("MatMulNBits") == 12 * 4
    matrices = [i for i in graph.initializer if len(i.dims) == 2 and i.data_type == onnx.TensorProto.FLOAT
                and not i.name.startswith("pos_table")]
    rank = adapt.UPDATE_RANK
    assert len(matrices) == 12 * 4 * 2  # a down and an up per product (Q, K and V fused)
    assert all({rank, 3 * rank} & set(m.dims) for m in matrices)  # thin: no float32 [in, out] matrix
    size = (adapted_small / "onnx" / "model.onnx").stat().st_size
    # Rank-64 updates add about 40 % to the 4-bit graph; float32 trained layers doubled it.
    assert size < 1.5 * (e5_model_dir / "onnx" / "model.onnx").stat().st_size


@pytest.mark.model
def test_same_pairs_and_seed_give_the_same_vectors(adapted_small, e5_model_dir, tmp_path):
    again = adapt_model(e5_model_dir, small_pairs(), tmp_path / "again", progress=False, recipe=SMALL, threads=2)
    a = load_folder_embedder(adapted_small, threads=2).encode_passages(TEXTS)
    b = load_folder_embedder(again, threads=2).encode_passages(TEXTS)
    assert np.abs(a - b).max() < 1e-4



class StemModel:
    """Stands in for SentenceTransformer.encode in the negative mining: FakeEmbedder's stem vectors."""

    def encode(self, texts, normalize_embeddings=True, show_progress_bar=False):
        from tests.fakes import FakeEmbedder

        return FakeEmbedder().encode_passages([t.split(": ", 1)[1] for t in texts])


PROMPTS = {"query": "query: ", "passage": "passage: "}


def test_hard_negatives_are_the_closest_passages_of_the_same_game_that_answer_something_else():
    pairs = [
        Pair("Mise en place", "Alpha · Mise en place\nChacun prend une île.", "alpha", "section"),
        Pair("Mise en place", "Alpha · Mise en place\nLes temples vont sur la jungle.", "alpha", "section"),
        Pair("Où vont les temples ?", "Alpha · Q\nSur la jungle, loin des temples voisins.", "alpha", "qa"),
        Pair("Aux points", "Alpha · Fin\nAux points\nLe plus haut total gagne.", "alpha", "bullet"),
        Pair("Envolée", "Beta · Envolée\nUne envolée de temples.", "beta", "section"),
    ]
    negatives = adapt._same_game_negatives(StemModel(), pairs, PROMPTS)
    assert len(negatives) == len(pairs)
    for pair, negative in zip(pairs[:4], negatives):
        assert negative.startswith("Alpha") and negative != pair.passage
    # Another passage of the same section is an answer to "Mise en place", never its negative.
    assert set(negatives[:2]) <= {pairs[2].passage, pairs[3].passage}
    # The temples question's negative is the alpha passage sharing its words.
    assert negatives[2] == pairs[1].passage
    # A game whose every passage answers the query borrows a negative from another game.
    assert negatives[4].startswith("Alpha")
    # One query answered by every passage: no negative at all, training goes on without them.
    assert adapt._same_game_negatives(StemModel(), pairs[:2], PROMPTS) is None
