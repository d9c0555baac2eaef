"""The fetch's messages: an error in one line, French amounts (digit groups, decimal units), a log line."""

from __future__ import annotations

import sys

from indexer.errors import ModelError


def fail(message: str) -> ModelError:
    return ModelError(f"EmbeddingGemma : {message}")


def grouped(n: int) -> str:
    """'14 841 609' (French digit groups)."""
    return f"{n:,}".replace(",", " ")


def human(n: int, like: int | None = None, digits: int = 1) -> str:
    """'2,6 Go' (decimal units, French decimal comma), in the unit that suits `like` (default `n`), so that
    two amounts side by side read alike: « il faut 2,6 Go, il en reste 0,3 Go »."""
    scale_of = n if like is None else like
    for unit, scale in (("Go", 10**9), ("Mo", 10**6), ("ko", 10**3)):
        if scale_of >= scale:
            return f"{n / scale:.{digits}f}".replace(".", ",") + f" {unit}"
    return f"{n} o"


def log(message: str) -> None:
    print(f"[rulesqa model] {message}", file=sys.stderr, flush=True)
