"""A real `rulesqa serve` in a subprocess on a free loopback port, for the contract tests: the fake embedder
over the real corpus plus one game imported from a PDF (so the page images answer too), the questions log
on (so an answer's ask_id can be judged), everything under the test's temporary folder."""

import os
import shutil
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from testbed import pdf_fixtures
from tests.fakes import CORPUS, REPO, FakeEmbedder
from testbed.ports import free_port

# Named to sort first among the titles: GET /api/games lists it first, so the OpenAPI links that take
# `games/0` (games -> game -> ask -> page) reach a rulebook whose pages exist.
PDF_GAME = ("abaca", "Abaca")



@pytest.fixture(scope="session")
def contract_corpus(tmp_path_factory) -> tuple[Path, Path]:
    """(corpus folder, index folder): the four games and a PDF-imported one, indexed with the fake embedder."""
    from indexer.build import build_index
    from indexer.pdf import import_pdf

    root = tmp_path_factory.mktemp("contract")
    corpus = root / "corpus"
    corpus.mkdir()
    for game in CORPUS.glob("*.md"):
        if game.name != "README.md":
            shutil.copy(game, corpus)
    pdf = root / "livret.pdf"
    pdf_fixtures.reportlab_rulebook(pdf)
    import_pdf(pdf, corpus, *PDF_GAME)
    build_index(corpus, root / "index", FakeEmbedder(), progress=False)
    return corpus, root / "index"


class Served:
    def __init__(self, url: str, process: subprocess.Popen, log: Path):
        self.url, self.process, self.log = url, process, log


def serve(command: list[str], env: dict, log: Path, port: int) -> Served:
    """Starts `command` (a `rulesqa serve`) and waits until /health says it is loaded."""
    url = f"http://127.0.0.1:{port}"
    with log.open("wb") as out:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=out, stderr=subprocess.STDOUT)
    deadline = time.monotonic() + 120
    while True:
        try:
            with urllib.request.urlopen(url + "/health", timeout=2) as r:
                if r.status == 200:
                    return Served(url, process, log)
        except OSError:
            pass
        if process.poll() is not None or time.monotonic() > deadline:
            process.kill()
            pytest.fail(f"rulesqa serve did not start on {url}:\n{log.read_text(errors='replace')[-3000:]}")
        time.sleep(0.2)


def stop(served: Served) -> None:
    served.process.terminate()
    try:
        served.process.wait(timeout=15)
    except subprocess.TimeoutExpired:
        served.process.kill()
        served.process.wait()


def serve_env(tmp: Path, corpus: Path) -> dict:
    env = dict(os.environ)  # the model folder's location, if set, is the one the suite built
    env.update({
        "HF_HUB_OFFLINE": "1",
        "RULESQA_CORPUS_DIR": str(corpus),
        "RULESQA_CACHE_DIR": str(tmp / "cache"),
        "RULESQA_LOG_QUESTIONS": "true",
        "RULESQA_DATABASE_URL": f"sqlite:///{tmp / 'log.db'}",
        "RULESQA_BUILD_INDEX_IF_MISSING": "false",
    })
    return env


@pytest.fixture(scope="session")
def fake_server(contract_corpus, tmp_path_factory):
    """`rulesqa serve` on the contract corpus, the model swapped for the fake one (tests/contract/fake_serve.py)."""
    corpus, index = contract_corpus
    tmp = tmp_path_factory.mktemp("fake-serve")
    port = free_port()
    command = [sys.executable, "-m", "tests.contract.fake_serve", "--host", "127.0.0.1", "--port", str(port),
               "--index", str(index)]
    served = serve(command, serve_env(tmp, corpus), tmp / "serve.log", port)
    yield served
    stop(served)


@pytest.fixture(scope="session")
def e5_server(real_index, tmp_path_factory):
    """`rulesqa serve` exactly as a user starts it, on the real corpus indexed with the adapted e5."""
    tmp = tmp_path_factory.mktemp("e5-serve")
    port = free_port()
    command = [sys.executable, "-m", "rulesqa", "serve", "--host", "127.0.0.1", "--port", str(port),
               "--index", str(real_index)]
    served = serve(command, serve_env(tmp, CORPUS), tmp / "serve.log", port)
    yield served
    stop(served)
