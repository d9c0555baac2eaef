"""e5 taught rulebooks: low-rank deltas written and read back, composed with the 4-bit base into a graph that
computes what the trained model does, and a training that gives the same deltas twice (a tiny one here: a few
examples, two steps; `make train` is the real one)."""

import json

import numpy as np
import pytest

from indexer.models.lora import LoraRecipe
from indexer.models.deltas_file import read_deltas, save_deltas
from indexer.models.e5.taught import compose
from indexer.errors import ModelError

TINY = LoraRecipe(rank=4, alpha=8, learning_rate=1e-3, epochs=1, batch_size=8, max_seq_length=64)


def random_factors(layers=12, rank=4, hidden=384, ffn=1536, seed=0):
    rng = np.random.default_rng(seed)
    shapes = {"q": (hidden, hidden), "k": (hidden, hidden), "v": (hidden, hidden), "attention_out": (hidden, hidden),
              "ffn_in": (ffn, hidden), "ffn_out": (hidden, ffn)}
    return {f"l{i}.{name}": (rng.standard_normal((rank, cols)).astype(np.float32) * 0.01,
                             rng.standard_normal((rows, rank)).astype(np.float32) * 0.01)
            for i in range(layers) for name, (rows, cols) in shapes.items()}


def test_deltas_round_trip_as_float16_and_a_changed_file_is_refused(tmp_path):
    factors = random_factors(layers=2)
    path = save_deltas(factors, {"recipe": {"rank": 4}, "seed": 0}, tmp_path / "d.npz")
    back, info = read_deltas(path)
    assert set(back) == set(factors) and info["seed"] == 0 and len(info["sha256"]) == 64
    for key, (down, up) in factors.items():
        assert np.array_equal(back[key][0], down.astype(np.float16).astype(np.float32))
        assert np.array_equal(back[key][1], up.astype(np.float16).astype(np.float32))
    assert not list(tmp_path.glob(".*"))  # written whole, in place
    data = bytearray(path.read_bytes())
    data[-20] ^= 1
    path.write_bytes(bytes(data))
    with pytest.raises(ModelError, match="ne correspond pas"):
        read_deltas(path)
    with pytest.raises(ModelError, match="make train"):
        read_deltas(tmp_path / "absent.npz")


def test_compose_keeps_the_4_bit_blocks_and_adds_each_update():
    from indexer.models.e5.graph import LowRank, dense, from_e5_file
    from indexer.models.e5.weights import read_e5_file

    base = from_e5_file(read_e5_file())
    factors = random_factors()
    composed = compose(base, factors)
    layer, original = composed.layers[3], base.layers[3]
    assert isinstance(layer.ffn_in, LowRank) and layer.ffn_in.base is original.ffn_in
    down, up = factors["l3.ffn_in"]
    np.testing.assert_allclose(dense(layer.ffn_in), dense(original.ffn_in) + up @ down, rtol=0, atol=1e-6)
    assert composed.word is base.word and layer.biases is original.biases
    with pytest.raises(ModelError, match="incomplets"):
        compose(base, {k: v for k, v in factors.items() if k != "l0.q"})


@pytest.fixture(scope="module")
def tiny_training(e5_model_dir, settings, tmp_path_factory):
    """Sixteen examples of one training game, trained twice with the same seed."""
    from eval.training_set import examples, load
    from indexer.models import get_family
    from indexer.models.e5.taught import E5
    from indexer.models.lora import train_lora
    from indexer.passage_text import embedding_text

    game = next(g for g in load(split="train"))
    items = examples([game])[:16]
    queries, passages = [e.question for e in items], [embedding_text(e.passage, e.game) for e in items]
    float32_dir = get_family("e5-small").reference(e5_model_dir.parent)
    runs = [train_lora(float32_dir, queries, passages, None, recipe=TINY, seed=7, threads=settings.threads,
                       scratch=tmp_path_factory.mktemp("scratch"), progress=False, adapted=E5) for _ in range(2)]
    return float32_dir, queries, runs


@pytest.mark.model
def test_the_same_examples_and_seed_give_the_same_deltas(tiny_training):
    _, _, ((first, figures), (second, _)) = tiny_training
    assert figures["steps"] == 2 and set(first) == set(second) and len(first) == 12 * 6
    for key in first:
        assert np.array_equal(first[key][0], second[key][0]) and np.array_equal(first[key][1], second[key][1]), key
    assert any(np.abs(up).max() > 0 for _, up in first.values())  # it learned something


@pytest.mark.model
def test_the_composed_graph_computes_what_the_trained_model_does(tiny_training, e5_model_dir, settings, tmp_path):
    import torch
    from sentence_transformers import SentenceTransformer

    from indexer.models.e5.graph import LINEARS
    from indexer.models.embedders import load_folder_embedder
    from indexer.models.e5.taught import RULES_MODEL_NAME, build_rules_model

    float32_dir, queries, ((factors, _), _) = tiny_training
    deltas = save_deltas(factors, {"recipe": {"rank": TINY.rank}, "seed": 7}, tmp_path / "d.npz")
    folder = build_rules_model(e5_model_dir, tmp_path / RULES_MODEL_NAME, deltas)
    manifest = json.loads((folder / "rulesqa_build.json").read_text())
    assert manifest["details"]["deltas_sha256"] == read_deltas(deltas)[1]["sha256"]
    assert manifest["model_id"] == RULES_MODEL_NAME and manifest["family"] == "rules-fr"
    assert build_rules_model(e5_model_dir, folder, deltas) == folder  # built once
    taught = load_folder_embedder(folder, settings.threads, RULES_MODEL_NAME).encode_queries(queries[:4])
    base = load_folder_embedder(e5_model_dir, settings.threads).encode_queries(queries[:4])
    # The trained model in torch: the float32 base with the deltas (as stored) added to each linear layer.
    model = SentenceTransformer(str(float32_dir), device="cpu")
    stored, _ = read_deltas(deltas)
    with torch.no_grad():
        for i, layer in enumerate(model[0].model.encoder.layer):
            for name, (_, module) in LINEARS.items():
                down, up = stored[f"l{i}.{name}"]
                layer.get_submodule(module).weight += torch.from_numpy(up @ down)
    reference = model.encode(["query: " + q for q in queries[:4]], normalize_embeddings=True)
    cosines = np.sum(taught * reference, axis=1)
    assert cosines.min() > 0.9995, cosines  # the 4-bit graph's own rounding only (test_fidelity: 0.9999)
    assert np.sum(taught * base, axis=1).max() < np.sort(cosines)[0]  # and it is not the base model
