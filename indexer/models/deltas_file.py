"""The taught deltas' file format, shared by every family (e5's rules-fr, EmbeddingGemma's taught model): low-rank
factors as a float16 .npz and, beside it, a .json of what they were trained on with the npz's digest. Imports
nothing else of the model room, so that the trainer's adapters (lora.py) and each family's taught module read it
without reading one another.
"""

from __future__ import annotations

import hashlib
import io
import json
from pathlib import Path

import numpy as np

from indexer.atomic import write_text_atomic
from indexer.errors import ModelError

# Where the committed deltas lie (package data): {family}.npz and its .json.
DELTAS_DIR = Path(__file__).resolve().parent / "deltas"

# Factors of one linear layer: (down [rank, in], up [out, rank]), keyed by the family's name for that layer
# (e5: "l{layer}.{graph.LINEARS key}"; EmbeddingGemma: the module's name).
Factors = dict[str, tuple[np.ndarray, np.ndarray]]


def save_deltas(factors: Factors, info: dict, path: Path) -> Path:
    """Write the factors as float16 (the .npz) and `info` with the npz's digest (the .json), each atomically."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    buffer = io.BytesIO()
    arrays = {f"{key}.{part}": array.astype(np.float16) for key, pair in sorted(factors.items())
              for part, array in zip(("down", "up"), pair)}
    np.savez(buffer, **arrays)
    data = buffer.getvalue()
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_bytes(data)
    tmp.replace(path)
    digest = hashlib.sha256(data).hexdigest()
    write_text_atomic(path.with_suffix(".json"), json.dumps({**info, "sha256": digest, "file": path.name},
                                                            ensure_ascii=False, indent=1) + "\n")
    return path


def read_deltas(path: Path, remake: str = "make train") -> tuple[Factors, dict]:
    """The factors (float32) and their info; ModelError, saying the command that `remake`s them, when the files
    are missing or do not match."""
    path = Path(path)
    try:
        data = path.read_bytes()
        info = json.loads(path.with_suffix(".json").read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise ModelError(f"deltas du modèle {path.stem} illisibles ({path}) : {exc} ; lancez « {remake} »") from None
    if hashlib.sha256(data).hexdigest() != info.get("sha256"):
        raise ModelError(f"deltas du modèle {path.stem} : {path} ne correspond pas à son .json "
                         f"(refaites « {remake} »)")
    with np.load(io.BytesIO(data)) as arrays:
        keys = sorted({name.rsplit(".", 1)[0] for name in arrays.files})
        factors = {k: (arrays[f"{k}.down"].astype(np.float32), arrays[f"{k}.up"].astype(np.float32)) for k in keys}
    return factors, info
