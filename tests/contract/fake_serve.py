"""`rulesqa serve` with the fake embedder: the real command (settings, start-up, app, uvicorn) with only the
model swapped for tests/fakes.py's, so a contract test gets a real server in a second without e5.

    python -m tests.contract.fake_serve --port 8123 --index DIR
"""

import sys

from service.runtime.settings import Settings
from tests.fakes import FakeEmbedder


def main(argv: list[str]) -> None:
    Settings.index_embedder = lambda self: FakeEmbedder()
    Settings.corpus_embedder = lambda self, **_: FakeEmbedder()
    from rulesqa.cli import app

    app(["serve", *argv], prog_name="rulesqa")


if __name__ == "__main__":
    main(sys.argv[1:])
