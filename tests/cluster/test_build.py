"""`rulesqa index --ray`: the passages encoded by actors of a two-node cluster, the same index folder."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

from indexer import store
from indexer.build import build_index
from indexer.update_game import update_game
from tests.fakes import CORPUS, REPO, FakeEmbedder


def same_folder(a, b) -> None:
    """Two index folders hold the same index: every file equal, the manifest but for its build time."""
    left, right = store.read_manifest(a).to_dict(), store.read_manifest(b).to_dict()
    left.pop("built_at"), right.pop("built_at")
    assert left == right
    for name in ("passages.jsonl", "words.txt", "games.json", "centroid.npy", "vectors.npy"):
        assert (a / name).read_bytes() == (b / name).read_bytes(), name
    for name in ("rows.npz", "tokens.npz"):
        with np.load(a / name) as x, np.load(b / name) as y:
            assert all(np.array_equal(x[k], y[k]) for k in x.files), name


def test_distributed_build_equals_the_local_one(ray_cluster, fake_index, tmp_path):
    from indexer.ray_encode import RayEncoder

    embedder = FakeEmbedder()
    result = build_index(CORPUS, tmp_path / "index", embedder, progress=False, encode=RayEncoder(embedder, actors=2))
    assert result.stats.encoded == result.manifest.corpus.passages
    assert embedder.passage_calls == []  # every passage was encoded by the actors, none here
    same_folder(tmp_path / "index", fake_index)


def test_one_game_on_the_cluster_equals_the_local_update(ray_cluster, fake_index, tmp_path):
    import shutil

    from indexer.ray_encode import RayEncoder

    for name in ("local", "ray"):
        shutil.copytree(fake_index, tmp_path / name)
        update_game(tmp_path / name, FakeEmbedder(), "karuba", remove=True)
    update_game(tmp_path / "local", FakeEmbedder(), "karuba", CORPUS)
    update_game(tmp_path / "ray", FakeEmbedder(), "karuba", CORPUS, encode=RayEncoder(FakeEmbedder()))
    same_folder(tmp_path / "ray", tmp_path / "local")


@pytest.mark.model
def test_e5_vectors_from_the_cluster_are_identical(ray_cluster, real_embedder, real_index, tmp_path):
    from indexer.ray_encode import RayEncoder

    build_index(CORPUS, tmp_path / "index", real_embedder, progress=False,
                encode=RayEncoder(real_embedder, actors=2))
    same_folder(tmp_path / "index", real_index)


@pytest.mark.model
def test_other_batch_boundaries_stay_within_cosine_0_99999(ray_cluster, real_embedder, real_index):
    """Batches of 7 instead of the build's 32: other padding, other last bits, the same vectors."""
    from indexer.ray_encode import RayEncoder
    from indexer.passage_text import embedding_text

    data = store.load(real_index)
    games = {g.id: g for g in data.games}
    texts = [embedding_text(p, games[p.game]) for p in data.passages]
    vectors = RayEncoder(real_embedder, actors=2, batch=7)(texts, lambda n: None)
    stored = np.asarray(data.vectors, dtype=np.float32)
    cosines = np.sum(vectors * stored, axis=1) / np.linalg.norm(stored, axis=1)
    assert cosines.min() >= 0.99999, cosines.min()


@pytest.mark.model
def test_cli_index_on_the_cluster(ray_cluster, real_embedder, real_index, tmp_path):
    """The acceptance command: `rulesqa index --ray ADDRESS` builds the same index as the local build."""
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    run = subprocess.run([sys.executable, "-m", "rulesqa", "index", "--ray", ray_cluster.address, "--quiet",
                          "--out", str(tmp_path / "index"), "--corpus", str(CORPUS)],
                         capture_output=True, text=True, cwd=REPO, env=env, timeout=240)
    assert run.returncode == 0, run.stderr[-2000:]
    assert f"{store.read_manifest(real_index).corpus.passages} passages" in run.stderr
    same_folder(tmp_path / "index", real_index)
    assert json.loads((tmp_path / "index" / "manifest.json").read_text())["embedding"]["model_id"] == real_embedder.model_id


def test_cli_refuses_an_unreachable_cluster(tmp_path, free_port):
    pytest.importorskip("ray", reason="Ray absent")
    run = subprocess.run([sys.executable, "-m", "rulesqa", "index", "--ray", f"127.0.0.2:{free_port()}", "--quiet",
                          "--no-adapt", "--out", str(tmp_path / "index")], capture_output=True, text=True, cwd=REPO,
                         env={**os.environ, "HF_HUB_OFFLINE": "1"}, timeout=120)
    assert run.returncode == 2 and "grappe Ray injoignable" in run.stderr and "Traceback" not in run.stderr
    assert not (tmp_path / "index").exists()
