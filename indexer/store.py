"""The only code that knows the index folder's files, and its typed manifest.

    manifest.json   format version, embedding (model id, fingerprint, dimension, passage template),
                    FAISS type, analyzer version, corpus hash, passage counts per game, build time
    passages.jsonl  the passages, in vector order
    games.json      the games' metadata
    vectors.npy     float16 L2-normalised passage embeddings (kept for reuse and exact rescoring): half of
                    float32, and the same dev metrics to the last digit (docs/SCALE.md); loaded as float32
                    for an exact index, memory-mapped as they are above it (a shelf of a million passages)
    dense.faiss     the FAISS index over those vectors (inner product = cosine)
    lexical/        the bm25s index (its own plain files, BM25 parameters included)
    tokens.npz      the analysed terms of every passage (vocabulary, term ids, offsets): an update of one
                    game rebuilds the BM25 statistics of the shelf without analysing its text again

A save writes a sibling temporary folder and renames it into place, so an interrupted build leaves
the previous index as it was. `check_compatible` refuses an index whose vectors or terms were made
by another model, passage template or analyzer than the ones asking.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from indexer.analysis import ANALYZER_VERSION
from indexer.atomic import folder_replaced
from indexer.corpus import SOURCE_KEYS, Game
from indexer.errors import IndexMismatchError
from indexer.passages import Passage

FORMAT_VERSION = 4
FILES = ("manifest.json", "passages.jsonl", "games.json", "vectors.npy", "dense.faiss", "lexical", "tokens.npz")
REBUILD_HINT = "lancez « rulesqa index » pour le reconstruire"
# Bump when embedding_text() changes: stored vectors of unchanged passages are then not reused.
PASSAGE_TEMPLATE = 1


def embedding_text(passage: Passage, game: Game) -> str:
    # The game and section give the model context a bare bullet lacks ("Aux points" alone says little).
    header = " · ".join(x for x in (game.title, passage.section) if x)
    return f"{header}\n{passage.text}"


def lexical_text(passage: Passage, game: Game) -> str:
    return f"{game.title} {passage.section or ''}\n{passage.text}"


def corpus_hash(games: list[Game], passages: list[Passage]) -> str:
    # In game id order, whatever the rows' order: an index updated one game at a time (its games appended)
    # and a fresh build of the same corpus have the same hash.
    canonical = json.dumps(
        {
            # The PDF keys only when set: a corpus without imported PDFs keeps the hash (and index) it had.
            "games": [{k: v for k, v in asdict(g).items() if k != "path" and not (k in SOURCE_KEYS and v is None)}
                      for g in sorted(games, key=lambda g: g.id)],
            "passages": [p.to_dict() for p in sorted(passages, key=lambda p: p.game)],
        },
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()


@dataclass(frozen=True)
class EmbeddingInfo:
    """What decided the vectors: equal infos mean stored vectors can be reused."""

    model_id: str
    fingerprint: str
    dim: int
    normalized: bool = True
    passage_template: int = PASSAGE_TEMPLATE

    @classmethod
    def of(cls, embedder) -> EmbeddingInfo:
        return cls(embedder.model_id, embedder.fingerprint(), embedder.dim)


@dataclass(frozen=True)
class CorpusInfo:
    hash: str
    games: int
    passages: int
    passages_per_game: dict[str, int] = field(default_factory=dict)


@dataclass(frozen=True)
class Manifest:
    embedding: EmbeddingInfo
    corpus: CorpusInfo
    dense_index: str  # the FAISS index type, e.g. "IndexFlatIP"
    built_at: str
    analyzer: int = ANALYZER_VERSION
    format_version: int = FORMAT_VERSION

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Manifest:
        return cls(**{**data, "embedding": EmbeddingInfo(**data["embedding"]), "corpus": CorpusInfo(**data["corpus"])})

    def check_compatible(self, embedder) -> None:
        """Refuse an index built by other code or another model: its scores would be meaningless."""
        emb = self.embedding
        if emb.model_id != embedder.model_id or emb.fingerprint != embedder.fingerprint():
            raise IndexMismatchError(
                f"l'index a été construit avec le modèle {emb.model_id!r} ({emb.fingerprint[:12]}), "
                f"le modèle configuré est {embedder.model_id!r} ({embedder.fingerprint()[:12]}) : {REBUILD_HINT}"
            )
        if emb.dim != embedder.dim:
            raise IndexMismatchError(f"dimension {emb.dim} dans l'index, {embedder.dim} pour le modèle : {REBUILD_HINT}")
        if emb.passage_template != PASSAGE_TEMPLATE:
            raise IndexMismatchError(f"l'index a été construit par une autre version du découpage : {REBUILD_HINT}")
        if self.analyzer != ANALYZER_VERSION:
            raise IndexMismatchError(
                f"l'index lexical a été construit par une autre version de l'analyseur : {REBUILD_HINT}")


@dataclass
class IndexData:
    manifest: Manifest
    passages: list[Passage]
    games: list[Game]
    vectors: np.ndarray
    dense: object  # faiss.Index
    lexical: object  # bm25s.BM25
    tokens: list[list[str]] | None = None  # analysed terms per passage; loaded by load_tokens() only


def save(index: IndexData, target: Path) -> Path:
    import faiss

    with folder_replaced(target) as tmp:
        (tmp / "manifest.json").write_text(json.dumps(index.manifest.to_dict(), ensure_ascii=False, indent=2), "utf-8")
        with open(tmp / "passages.jsonl", "w", encoding="utf-8") as out:
            for p in index.passages:
                out.write(json.dumps(p.to_dict(), ensure_ascii=False) + "\n")
        games = [asdict(g) for g in index.games]
        (tmp / "games.json").write_text(json.dumps(games, ensure_ascii=False, indent=2), "utf-8")
        np.save(tmp / "vectors.npy", np.asarray(index.vectors, dtype=np.float16), allow_pickle=False)
        faiss.write_index(index.dense, str(tmp / "dense.faiss"))
        index.lexical.save(str(tmp / "lexical"), show_progress=False)
        _save_tokens(tmp / "tokens.npz", index.tokens)
    return Path(target)


def _save_tokens(path: Path, tokens: list[list[str]] | None) -> None:
    if tokens is None:
        raise ValueError("tokens are required to save an index")
    vocabulary = sorted({t for terms in tokens for t in terms})
    ids = {t: i for i, t in enumerate(vocabulary)}
    flat = np.fromiter((ids[t] for terms in tokens for t in terms), dtype=np.int32)
    offsets = np.cumsum([0, *map(len, tokens)], dtype=np.int64)
    with open(path, "wb") as out:
        np.savez(out, vocabulary=np.array(vocabulary, dtype=str), ids=flat, offsets=offsets)


def load_tokens(folder: Path) -> list[list[str]]:
    """The analysed terms of every passage, in row order (for an update of the lexical index)."""
    with np.load(Path(folder) / "tokens.npz", allow_pickle=False) as data:
        vocabulary, ids, offsets = data["vocabulary"].tolist(), data["ids"], data["offsets"]
    return [[vocabulary[i] for i in ids[offsets[r] : offsets[r + 1]]] for r in range(len(offsets) - 1)]


def read_manifest(folder: Path) -> Manifest:
    folder = Path(folder)
    path = folder / "manifest.json"
    if not path.is_file():
        raise IndexMismatchError(f"aucun index dans {folder} : {REBUILD_HINT}")
    try:
        data = json.loads(path.read_text("utf-8"))
    except (OSError, ValueError) as exc:
        raise IndexMismatchError(f"manifeste illisible ({exc}) dans {folder} : {REBUILD_HINT}") from None
    version = data.get("format_version") if isinstance(data, dict) else None
    if version != FORMAT_VERSION:
        raise IndexMismatchError(f"index au format {version!r}, ce code attend le format {FORMAT_VERSION} : {REBUILD_HINT}")
    try:
        manifest = Manifest.from_dict(data)
    except (TypeError, KeyError) as exc:
        raise IndexMismatchError(f"manifeste invalide ({exc}) dans {folder} : {REBUILD_HINT}") from None
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
        # One JSON array parse instead of one per line: a shelf has a few hundred thousand passages.
        lines = (folder / "passages.jsonl").read_text("utf-8").splitlines()
        passages = [_passage(d) for d in json.loads("[" + ",".join(lines) + "]")]
        games = [Game(**{**g, "aliases": tuple(g["aliases"])}) for g in json.loads((folder / "games.json").read_text("utf-8"))]
        vectors = np.load(folder / "vectors.npy", mmap_mode="r", allow_pickle=False)
        if manifest.dense_index == "IndexFlatIP":  # small enough to multiply in float32 (service/retrieval.py)
            vectors = np.asarray(vectors, dtype=np.float32)
        dense = faiss.read_index(str(folder / "dense.faiss"))
        lexical = bm25s.BM25.load(str(folder / "lexical"), show_progress=False)
    except Exception as exc:  # any unreadable file means the same thing to the user
        raise IndexMismatchError(f"index illisible dans {folder} ({exc}) : {REBUILD_HINT}") from None
    if not (len(passages) == vectors.shape[0] == dense.ntotal):
        raise IndexMismatchError(f"index incohérent dans {folder} (tailles différentes) : {REBUILD_HINT}")
    return IndexData(manifest, passages, games, vectors, dense, lexical)


def load_vectors_for_reuse(folder: Path, embedding: EmbeddingInfo) -> dict[str, np.ndarray]:
    """Passage id -> vector from a previous index made with the same `embedding` (same model, same
    passage template), or {} if there is none."""
    try:
        manifest = read_manifest(folder)
    except IndexMismatchError:
        return {}
    if manifest.embedding != embedding:
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
