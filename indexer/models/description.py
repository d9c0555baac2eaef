"""What a built model folder says of itself, in its `rulesqa_build.json`.

Every folder the model room builds (e5-small, rules-fr, EmbeddingGemma, an e5 adapted to a corpus, a float32
twin for torch) carries a manifest: the family it belongs to, the runtime that runs it, its tokenizer, its
prompts and the form a passage takes before encoding, its dimension and sequence length, its licence, the hashes
of what it was built from, and every file's sha256. Loading a folder reads this and nothing else: no runtime is
guessed by probing files. An index copies the folder in (indexer/store.py) and records its manifest's digest.

The fingerprint identifies what decides the vectors: every file but README and manifest, and the fields of the
description that change a vector (prompts, passage form, sequence length, tokenizer). Equal fingerprints mean
stored vectors can be reused.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import asdict, dataclass, field
from pathlib import Path

from indexer.errors import ModelError

MANIFEST = "rulesqa_build.json"
ONNX_FILE = "onnx/model.onnx"
RUNTIMES = ("onnx", "torch")
# The passage as e5 reads it: its context (game · section) on a first line, then its text.
E5_FORM = "{title}\n{text}"
_NOT_FINGERPRINTED = ("README.md", MANIFEST)
_VECTOR_FIELDS = ("prompts", "passage_form", "max_seq_length", "tokenizer")
_FIELD = re.compile(r"\{(title|text)\}")


@dataclass(frozen=True)
class Description:
    """The self-description of a model folder (its manifest, less the file hashes)."""

    family: str  # the registry's name: e5-small, rules-fr, embeddinggemma (indexer/models/registry.py)
    model_id: str  # what an index and the calibration name it by
    runtime: str  # "onnx": onnx/model.onnx through onnxruntime; "torch": sentence-transformers
    tokenizer: str  # "e5-unigram", "tokenizers" (tokenizer.json), or "" for torch (the folder's own)
    prompts: dict[str, str]  # {"query": ..., "document": ...}, added before a text
    passage_form: str  # how a passage is written before its prompt: {title} (game · section) and {text}
    dimension: int
    max_seq_length: int
    licence: str
    sources: dict[str, str] = field(default_factory=dict)  # what it was built from -> sha256
    details: dict = field(default_factory=dict)  # the family's own facts (weights, deltas, recipe, ...)
    # How the runtime runs it, where the family measured better than the default: {"cpu_mem_arena": false}.
    session: dict = field(default_factory=dict)

    def __post_init__(self):
        if self.runtime not in RUNTIMES:
            raise ModelError(f"runtime inconnu « {self.runtime} » ({', '.join(RUNTIMES)})")

    @property
    def query_prompt(self) -> str:
        return self.prompts.get("query", "")

    @property
    def document_prompt(self) -> str:
        return self.prompts.get("document", "")


def passage_text(form: str, title: str, text: str) -> str:
    """A passage as a model encodes it (before its document prompt): `form` with its title and text, in one
    pass (a title or a text holding "{text}" stays as it is)."""
    values = {"title": title, "text": text}
    return _FIELD.sub(lambda m: values[m.group(1)], form)


def read_model_manifest(folder: Path) -> dict | None:
    """The raw manifest of a folder, None when it has none or it is unreadable."""
    return read_json_object(Path(folder) / MANIFEST)


def read_json_object(path: Path) -> dict | None:
    """A JSON object from a file; None when the file is absent, unreadable or holds anything else."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def describe(folder: Path) -> Description:
    """The description of a built folder; ModelError when it has none or an incomplete one."""
    manifest = read_model_manifest(folder)
    if manifest is None:
        raise ModelError(f"dossier de modèle sans {MANIFEST} lisible : {folder} (lancez « rulesqa model build »)")
    try:
        return Description(**{k: manifest[k] for k in Description.__dataclass_fields__ if k in manifest})
    except TypeError as exc:
        raise ModelError(f"{MANIFEST} incomplet dans {folder} ({exc}) : reconstruisez le modèle "
                         "(« rulesqa model build »)") from None


def is_complete(folder: Path) -> bool:
    """The folder holds its manifest and every file it lists (a few stat calls, no hashing)."""
    manifest = read_model_manifest(folder)
    return bool(manifest and manifest.get("files")) and all(
        (Path(folder) / name).is_file() for name in manifest["files"])


def file_sha256(path: Path) -> str:
    with open(path, "rb") as f:
        return hashlib.file_digest(f, "sha256").hexdigest()


def fingerprint_files(folder: Path, description: Description | None = None) -> tuple[str, dict[str, str]]:
    """(fingerprint, {file: sha256}) of a model folder: the fingerprint covers every file but README and
    manifest and the description's fields that change a vector: what an index was built with."""
    folder = Path(folder)
    files = sorted(p.relative_to(folder).as_posix() for p in folder.rglob("*") if p.is_file())
    hashes = {name: file_sha256(folder / name) for name in files if name != MANIFEST}
    covered = {n: h for n, h in hashes.items() if n not in _NOT_FINGERPRINTED}
    if description is not None:
        covered["description"] = {k: getattr(description, k) for k in _VECTOR_FIELDS}
    fingerprint = hashlib.sha256(json.dumps(covered, sort_keys=True).encode()).hexdigest()
    return fingerprint, hashes


def write_description(folder: Path, description: Description, fingerprint: str | None = None) -> dict:
    """The folder's manifest: its description, its files' hashes and (unless given: a float32 twin carries
    its lean folder's) its fingerprint. Written last, once every other file is in place."""
    own, hashes = fingerprint_files(folder, description)
    manifest = {**asdict(description), "fingerprint": fingerprint or own, "files": hashes}
    write_json(Path(folder) / MANIFEST, manifest)
    return manifest


def make_readable(folder: Path) -> None:
    """safetensors and the ONNX writer create owner-only files; a model folder is shared data."""
    for p in [Path(folder), *Path(folder).rglob("*")]:
        p.chmod(0o755 if p.is_dir() else 0o644)


def write_json(path: Path, obj) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(obj, ensure_ascii=False, indent=1), encoding="utf-8")
