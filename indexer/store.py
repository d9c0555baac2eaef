"""The only code that knows the index folder's files.

    manifest.json   format version, embedding model id/fingerprint/dimension, FAISS type, analyzer,
                    corpus hash, passage counts per game, build time
    passages.jsonl  the passages, in vector order
    games.json      the games' metadata
    vectors.npy     float32 L2-normalised passage embeddings (kept for reuse and exact rescoring)
    dense.faiss     the FAISS index over those vectors (inner product = cosine)
    lexical/        the bm25s index (its own plain files)

A save writes a sibling temporary folder and renames it into place, so an interrupted build leaves
the previous index as it was.
"""

import json
from dataclasses import asdict, dataclass
from pathlib import Path

import numpy as np

from indexer.atomic import folder_replaced
from indexer.corpus import Game
from indexer.errors import IndexMismatchError
from indexer.passages import Passage

FORMAT_VERSION = 1
FILES = ("manifest.json", "passages.jsonl", "games.json", "vectors.npy", "dense.faiss", "lexical")
REBUILD_HINT = "lancez « rulesqa index » pour le reconstruire"


@dataclass
class IndexData:
    manifest: dict
    passages: list[Passage]
    games: list[Game]
    vectors: np.ndarray
    dense: object  # faiss.Index
    lexical: object  # bm25s.BM25


def save(index: IndexData, target: Path) -> Path:
    import faiss

    with folder_replaced(target) as tmp:
        (tmp / "manifest.json").write_text(json.dumps(index.manifest, ensure_ascii=False, indent=2), "utf-8")
        with open(tmp / "passages.jsonl", "w", encoding="utf-8") as out:
            for p in index.passages:
                out.write(json.dumps(p.to_dict(), ensure_ascii=False) + "\n")
        games = [asdict(g) for g in index.games]
        (tmp / "games.json").write_text(json.dumps(games, ensure_ascii=False, indent=2), "utf-8")
        np.save(tmp / "vectors.npy", index.vectors.astype(np.float32), allow_pickle=False)
        faiss.write_index(index.dense, str(tmp / "dense.faiss"))
        index.lexical.save(str(tmp / "lexical"), show_progress=False)
    return Path(target)


def read_manifest(folder: Path) -> dict:
    folder = Path(folder)
    path = folder / "manifest.json"
    if not path.is_file():
        raise IndexMismatchError(f"aucun index dans {folder} : {REBUILD_HINT}")
    try:
        manifest = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise IndexMismatchError(f"manifeste illisible ({exc}) dans {folder} : {REBUILD_HINT}") from None
    if manifest.get("format_version") != FORMAT_VERSION:
        raise IndexMismatchError(
            f"index au format {manifest.get('format_version')!r}, ce code attend le format {FORMAT_VERSION} : "
            f"{REBUILD_HINT}"
        )
    missing = [name for name in FILES if not (folder / name).exists()]
    if missing:
        raise IndexMismatchError(f"index incomplet dans {folder} (manque {', '.join(missing)}) : {REBUILD_HINT}")
    return manifest


def load(folder: Path) -> IndexData:
    import bm25s
    import faiss

    folder = Path(folder)
    manifest = read_manifest(folder)
    try:
        passages = [_passage(json.loads(line)) for line in (folder / "passages.jsonl").read_text("utf-8").splitlines()]
        games = [Game(**{**g, "aliases": tuple(g["aliases"])}) for g in json.loads((folder / "games.json").read_text("utf-8"))]
        vectors = np.load(folder / "vectors.npy", allow_pickle=False)
        dense = faiss.read_index(str(folder / "dense.faiss"))
        lexical = bm25s.BM25.load(str(folder / "lexical"), show_progress=False)
    except Exception as exc:  # any unreadable file means the same thing to the user
        raise IndexMismatchError(f"index illisible dans {folder} ({exc}) : {REBUILD_HINT}") from None
    if not (len(passages) == vectors.shape[0] == dense.ntotal):
        raise IndexMismatchError(f"index incohérent dans {folder} (tailles différentes) : {REBUILD_HINT}")
    return IndexData(manifest, passages, games, vectors, dense, lexical)


def load_vectors_for_reuse(folder: Path, embedding: dict) -> dict[str, np.ndarray]:
    """Passage id -> vector from a previous index whose manifest "embedding" entry equals `embedding`
    (same model, same passage template), or {} if there is none."""
    try:
        manifest = read_manifest(folder)
    except IndexMismatchError:
        return {}
    if manifest.get("embedding") != embedding:
        return {}
    try:
        ids = [json.loads(line)["id"] for line in (Path(folder) / "passages.jsonl").read_text("utf-8").splitlines()]
        vectors = np.load(Path(folder) / "vectors.npy", allow_pickle=False)
    except (OSError, ValueError, KeyError):
        return {}
    if len(ids) != len(vectors):
        return {}
    return dict(zip(ids, vectors))


def _passage(data: dict) -> Passage:
    return Passage(**{**data, "pages": tuple(data["pages"])})
