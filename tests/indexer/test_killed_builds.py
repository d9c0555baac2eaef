"""Builds in other processes: one killed with SIGKILL at each point of a build leaves nothing once the next
build ran, and two builds of the same index run one after the other, the second saying it waits.

The child is the real `rulesqa index` command with the model replaced by fakes (tests/child_build.py)."""

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from service.engine.retrieval.single import SingleIndexRetriever as Retriever
from tests.fakes import CORPUS, REPO, FakeFolderEmbedder
from service.engine.question import Question

WAITING = "un autre processus construit l'index"


def child_env(tmp_path: Path, adapt: bool) -> dict:
    return {**os.environ, "RULESQA_INDEX_DIR": str(tmp_path / "indexes" / "index"), "RULESQA_CORPUS_DIR": str(CORPUS),
            "RULESQA_MODELS_DIR": str(tmp_path / "models"), "RULESQA_ADAPT": str(adapt).lower(),
            "RULESQA_LOG_QUESTIONS": "false"}


def start(env: dict, pause: str | None = None, marker: Path | None = None) -> subprocess.Popen:
    extra = {"CHILD_PAUSE": pause, "CHILD_MARKER": str(marker)} if pause else {}
    return subprocess.Popen([sys.executable, "-m", "tests.child_build"], cwd=REPO, env={**env, **extra},
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)


def build(env: dict) -> subprocess.CompletedProcess:
    done = subprocess.run([sys.executable, "-m", "tests.child_build"], cwd=REPO, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return done


def wait_for(marker: Path, child: subprocess.Popen) -> None:
    deadline = time.monotonic() + 60
    while not marker.exists():
        assert child.poll() is None, child.stderr.read()
        assert time.monotonic() < deadline, "the child never reached its pause"
        time.sleep(0.05)


def scratch(tmp_path: Path) -> list[str]:
    """Hidden folders beside the index and in the model cache: what a build may leave."""
    return sorted(f"{d.name}/{p.name}" for d in (tmp_path / "indexes", tmp_path / "models") if d.is_dir()
                  for p in d.iterdir() if p.name.startswith(".") and p.is_dir())


def answers(index: Path) -> bool:
    embedder = FakeFolderEmbedder(index / "model")
    retriever = Retriever.load(index, embedder)
    embedder.close()
    return bool(retriever.rank(retriever.score(Question.of("pépites d'or")), "karuba", 1))


@pytest.mark.parametrize("point, adapt", [("model", False), ("float32", True), ("save", False), ("swap", False)])
def test_a_build_killed_at_any_point_leaves_nothing_after_the_next_build(tmp_path, point, adapt):
    env = child_env(tmp_path, adapt)
    index = tmp_path / "indexes" / "index"
    if point == "swap":
        build({**env, "RULESQA_CORPUS_DIR": str(CORPUS)})  # a version for the killed build to replace
    child = start(env, point, tmp_path / "marker")
    wait_for(tmp_path / "marker", child)
    child.send_signal(signal.SIGKILL)
    child.wait(timeout=30)
    left = scratch(tmp_path)
    assert left, "the kill left nothing: it did not happen mid-build"
    if point == "swap":  # killed after the exchange: the new version answers, the old one is the leftover
        assert answers(index) and any(name.startswith("indexes/.index.tmp-") for name in left)
    build(env)
    assert scratch(tmp_path) == [] and answers(index)
    if adapt:
        assert len([p for p in (tmp_path / "models").iterdir() if "-adapted-" in p.name]) == 1


def test_a_second_build_of_the_same_index_waits_for_the_first(tmp_path):
    env = child_env(tmp_path, adapt=False)
    first = start(env, "save", tmp_path / "marker")
    wait_for(tmp_path / "marker", first)
    second = start(env)
    lines = []
    reader = threading.Thread(target=lambda: lines.extend(second.stderr), daemon=True)
    reader.start()
    deadline = time.monotonic() + 60
    while not any(WAITING in line for line in lines):  # it says it waits for the lock the first one holds
        assert second.poll() is None and time.monotonic() < deadline, "".join(lines)
        time.sleep(0.05)
    first.send_signal(signal.SIGKILL)  # the kernel releases a dead process's lock
    first.wait(timeout=30)
    second.wait(timeout=120)
    reader.join(timeout=10)
    err = "".join(lines)
    assert second.returncode == 0, err
    assert [line for line in err.splitlines() if WAITING in line] == [
        f"rulesqa : {WAITING} {tmp_path / 'indexes' / 'index'} ; attente de sa fin…"], err
    assert scratch(tmp_path) == [] and answers(tmp_path / "indexes" / "index")
