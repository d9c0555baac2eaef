"""Default locations, overridable by environment variables (documented in README.md)."""

import os
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def corpus_dir() -> Path:
    return Path(os.environ.get("RULESQA_CORPUS_DIR") or REPO / "corpus")


def index_dir() -> Path:
    return Path(os.environ.get("RULESQA_INDEX_DIR") or REPO / "var" / "index")
