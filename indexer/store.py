"""The only code that knows the index folder's files, and its typed manifest. Beside it: the passages' text as
the model and BM25 read it, and the corpus hash (passage_text.py), the model/ folder placed and described
(index_model.py), calibration.json (calibration_file.py), a shelf's catalogue (shelf_catalogue.py).

    manifest.json   format version, embedding (model id, fingerprint, dimension, passage template),
                    FAISS type, analyzer version, corpus hash, passage counts per game, build time
    passages.jsonl  the passages, in vector order, one JSON object a line (read one at a time when
                    needed: indexer/passage_file.py)
    rows.npz        what a query needs of every row without reading its passage: the byte offset of its
                    line in passages.jsonl, its game (index into games.json), its section (index into
                    the distinct sections, -1 for none)
    words.txt       the corpus's folded words, one a line (the refusal's and the router's vocabulary)
    centroid.npy    the mean of the stored vectors (float32): the service's evidence needs the mean
                    cosine to all passages, and computing it at load would read every vector
    games.json      the games' metadata
    vectors.npy     float16 L2-normalised passage embeddings (kept for reuse and exact rescoring): half of
                    float32, and the same dev metrics to the last digit (docs/SCALE.md); loaded as float32
                    for an exact index, memory-mapped as they are above it (a shelf of a million passages)
    dense.faiss     the FAISS index over those vectors (inner product = cosine)
    lexical/        the bm25s index (its own plain files, BM25 parameters included)
    tokens.npz      the analysed terms of every passage (vocabulary, term ids, offsets): an update of one
                    game rebuilds the BM25 statistics of the shelf without analysing its text again
    calibration.json  the thresholds measured for this index by `rulesqa eval --calibrate`
                    (service/engine/calibration.py, through calibration_file.py); absent until then,
                    carried over by every rebuild
    model/          the model the vectors were made with, when it is a model folder of ours (a family's
                    folder, or an adapted e5: ONNX graph, tokenizer, its own rulesqa_build.json describing it);
                    the manifest's `model` gives the digest of that folder's manifest, every file's size, and
                    the family and runtime its description names

An index folder is a complete, immutable artefact: loading it needs nothing outside it (its model
included), so an index copied to /tmp or to another machine answers as it did, and indexing another
corpus, running the tests or importing a PDF can never take its model away. The alternative, models
named by digest in a shared store, needs a garbage collector that knows every index that may still name a
model, wherever it lives; a model inside the folder needs none. The cost is disk only where the
model cannot be shared: `save` hard-links the model's large files from the folder it was loaded from (the
build cache under var/models, or the previous version of the index) when both are on one file system,
which costs no space, and copies them otherwise (74 MB for e5-small, 98 MB adapted, 364 MB for
EmbeddingGemma). Model files are never modified in place (every model folder is written whole and renamed into place), so a link is
as good as a copy; small files are always copied. `model_folder` checks, cheaply, that the folder is the
one the manifest names (manifest digest, file sizes). A model given by name (RULESQA_MODEL: any
sentence-transformers name or path, or a test's fake) is not copied: the manifest names it by id and
fingerprint only, and whoever loads the index must supply it.

A save writes a sibling temporary folder and renames it into place (an atomic exchange where the system
has one), under the folder's advisory lock (indexer/locks.py), so an interrupted build leaves
the previous index as it was, and the next save removes what a killed one left. rows.npz, words.txt and centroid.npy are computed by `save` from what it
writes, so they always describe it; `load` reads them and leaves the passages and vectors on disk. `check_compatible` refuses an index whose vectors or terms were made
by another model, passage template or analyzer than the ones asking.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path

import numpy as np

from indexer.analysis import ANALYZER_VERSION, folded_words
from indexer.atomic import folder_replaced
from indexer.calibration_file import CALIBRATION
from indexer.corpus import Game
from indexer.errors import IndexMismatchError
from indexer.index_model import ModelInfo, model_info, place_model
from indexer.locks import index_locked, remove_leftovers
from indexer.passage_file import PassageFile
from indexer.passage_text import PASSAGE_TEMPLATE
from indexer.passages import Passage

# 5: rows.npz, words.txt and centroid.npy; passages are read from disk when needed. 6: the model inside (model/).
FORMAT_VERSION = 6
FILES = ("manifest.json", "passages.jsonl", "rows.npz", "words.txt", "centroid.npy", "games.json", "vectors.npy",
         "dense.faiss", "lexical", "tokens.npz")
MODEL_DIR = "model"
REBUILD_HINT = "lancez « rulesqa index » pour le reconstruire"


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
    model: ModelInfo | None = None  # set by `save` when the model is inside the index; None: named only

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> Manifest:
        model = data.get("model")
        return cls(**{**data, "embedding": EmbeddingInfo(**data["embedding"]), "corpus": CorpusInfo(**data["corpus"]),
                      "model": ModelInfo(**model) if model is not None else None})

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


@dataclass(frozen=True)
class Rows:
    """What is known of every row without reading its passage."""

    game: np.ndarray  # int32: the row's game, an index into IndexData.games
    section: np.ndarray  # int32: the row's section, an index into `sections`, -1 for none
    sections: tuple[str, ...]


@dataclass
class IndexData:
    manifest: Manifest
    passages: Sequence[Passage]  # a list when built; read from disk on demand when loaded (PassageFile)
    games: list[Game]
    vectors: np.ndarray
    dense: object  # faiss.Index
    lexical: object  # bm25s.BM25
    tokens: list[list[str]] | None = None  # analysed terms per passage; loaded by load_tokens() only
    # Set by load; save computes them from the passages, games and vectors it writes.
    rows: Rows | None = None
    words: frozenset[str] | None = None
    centroid: np.ndarray | None = None
    # The model folder: for save, the one to place in the index (None: the model is only named); set by load
    # to the index's own model/ when it has one (`model_folder` checks it before a model is loaded from it).
    model_dir: Path | None = None


def centroid(vectors: np.ndarray) -> np.ndarray:
    """The mean of float16 vectors as float32. Summed in float64, it is exact whatever the order: unit
    vectors' float16 components are multiples of 2**-24 of magnitude at most 1, so any sum of fewer than
    2**29 of them is exact in float64. The mean is then the same to the bit however numpy chunks it."""
    if vectors.dtype != np.float16:
        raise ValueError("the centroid is that of the stored (float16) vectors")
    if not len(vectors):
        return np.zeros(vectors.shape[1], dtype=np.float32)
    return vectors.mean(axis=0, dtype=np.float64).astype(np.float32)


def game_from_dict(data: dict) -> Game:
    """A Game from games.json, where JSON made its tuples lists."""
    lexicon = tuple((word, tuple(players)) for word, players in data.get("lexicon", ()))
    return Game(**{**data, "aliases": tuple(data["aliases"]), "lexicon": lexicon})


def save(index: IndexData, target: Path) -> Path:
    """Write `index` as the folder `target`, replacing any previous version at once; `index.model_dir`, when
    set, is placed in it as model/ and recorded in the manifest (`index.manifest.model` is ignored). Holds
    the folder's lock (reentrant: a build already holding it goes on) and first removes what a killed
    save of the same folder left."""
    import faiss

    target = Path(target)
    with index_locked(target):
        remove_leftovers(target.parent, target.name)
        with folder_replaced(target) as tmp:
            _save_files(index, tmp, faiss)
            if (target / CALIBRATION).is_file():  # measured on the previous version: still this index's
                shutil.copy2(target / CALIBRATION, tmp / CALIBRATION)
    return target


def _save_files(index: IndexData, tmp: Path, faiss) -> None:
    model = place_model(Path(index.model_dir), tmp / MODEL_DIR) if index.model_dir is not None else None
    write_manifest(tmp, replace(index.manifest, model=model))
    tokens = _save_passages(tmp, index.passages, index.games)
    tokens.update(w for g in index.games for w in " ".join([g.title, g.id, *g.aliases]).split())
    write_words(tmp, folded_words(tokens))
    write_games(tmp, index.games)
    vectors = np.asarray(index.vectors, dtype=np.float16)
    np.save(tmp / "vectors.npy", vectors, allow_pickle=False)
    write_centroid(tmp, centroid(vectors))
    faiss.write_index(index.dense, str(tmp / "dense.faiss"))
    index.lexical.save(str(tmp / "lexical"), show_progress=False)
    _save_tokens(tmp / "tokens.npz", index.tokens)


def write_manifest(folder: Path, manifest: Manifest) -> None:
    (folder / "manifest.json").write_text(json.dumps(manifest.to_dict(), ensure_ascii=False, indent=2), "utf-8")


def write_games(folder: Path, games: list[Game]) -> None:
    games_json = json.dumps([asdict(g) for g in games], ensure_ascii=False, indent=2)
    (folder / "games.json").write_text(games_json, "utf-8")


def write_words(folder: Path, words: Iterable[str]) -> None:
    (folder / "words.txt").write_text("\n".join(sorted(words)), "utf-8")


def write_centroid(folder: Path, mean: np.ndarray) -> None:
    np.save(folder / "centroid.npy", mean, allow_pickle=False)


def read_games(folder: Path) -> list[Game]:
    return [game_from_dict(g) for g in json.loads((folder / "games.json").read_text("utf-8"))]


def read_words(folder: Path) -> frozenset[str]:
    """The folded words of an index folder or a shelf (words.txt)."""
    return frozenset((Path(folder) / "words.txt").read_text("utf-8").split("\n")) - {""}


def read_centroid(folder: Path) -> np.ndarray:
    return np.load(folder / "centroid.npy", allow_pickle=False)


def model_folder(folder: Path, manifest: Manifest | None = None) -> Path | None:
    """The index's own model folder, checked against its manifest (the model folder's manifest digest, and
    every file there with its size: a few stat calls, no hashing of the weights); None when the index only
    names its model. A folder that does not match is an IndexMismatchError."""
    folder = Path(folder)
    manifest = manifest or read_manifest(folder)
    if manifest.model is None:
        return None
    model = folder / MODEL_DIR
    try:
        actual = model_info(model)
    except OSError as exc:
        raise IndexMismatchError(f"modèle de l'index illisible dans {model} ({exc}) : {REBUILD_HINT}") from None
    if actual != manifest.model:
        raise IndexMismatchError(f"le modèle de l'index dans {model} n'est pas celui de son manifeste : {REBUILD_HINT}")
    return model


def _save_passages(folder: Path, passages: Sequence[Passage], games: list[Game]) -> set[str]:
    """passages.jsonl and rows.npz; returns the distinct whitespace-separated tokens of the passages' texts
    and sections (words.txt is made of them, read in the same pass)."""
    game_index = {g.id: i for i, g in enumerate(games)}
    sections: dict[str, int] = {}
    offsets = np.zeros(len(passages) + 1, dtype=np.int64)
    game = np.zeros(len(passages), dtype=np.int32)
    section = np.full(len(passages), -1, dtype=np.int32)
    tokens: set[str] = set()
    with open(folder / "passages.jsonl", "wb") as out:
        for i, p in enumerate(passages):
            line = (json.dumps(p.to_dict(), ensure_ascii=False) + "\n").encode("utf-8")
            out.write(line)
            offsets[i + 1] = offsets[i] + len(line)
            game[i] = game_index[p.game]
            if p.section is not None:
                section[i] = sections.setdefault(p.section, len(sections))
            tokens.update(p.text.split())
    tokens.update(w for s in sections for w in s.split())
    with open(folder / "rows.npz", "wb") as out:
        np.savez(out, offsets=offsets, game=game, section=section, sections=np.array(list(sections), dtype=str))
    return tokens


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
    missing = [name for name in FILES + ((MODEL_DIR,) if manifest.model else ()) if not (folder / name).exists()]
    if missing:
        raise IndexMismatchError(f"index incomplet dans {folder} (manque {', '.join(missing)}) : {REBUILD_HINT}")
    return manifest


def load(folder: Path) -> IndexData:
    import bm25s
    import faiss

    folder = Path(folder)
    manifest = read_manifest(folder)
    try:
        with np.load(folder / "rows.npz", allow_pickle=False) as data:
            rows = Rows(data["game"], data["section"], tuple(data["sections"].tolist()))
            passages = PassageFile(folder / "passages.jsonl", data["offsets"])
        words = read_words(folder)
        games = read_games(folder)
        vectors = np.load(folder / "vectors.npy", mmap_mode="r", allow_pickle=False)
        if manifest.dense_index == "IndexFlatIP":  # small enough to multiply in float32 (service/engine/retrieval/single.py)
            vectors = np.asarray(vectors, dtype=np.float32)
        mean = read_centroid(folder)
        dense = faiss.read_index(str(folder / "dense.faiss"))
        lexical = bm25s.BM25.load(str(folder / "lexical"), show_progress=False)
    except Exception as exc:  # any unreadable file means the same thing to the user
        raise IndexMismatchError(f"index illisible dans {folder} ({exc}) : {REBUILD_HINT}") from None
    if not (len(passages) == len(rows.game) == len(rows.section) == vectors.shape[0] == dense.ntotal
            and mean.shape == vectors.shape[1:]):
        raise IndexMismatchError(f"index incohérent dans {folder} (tailles différentes) : {REBUILD_HINT}")
    return IndexData(manifest, passages, games, vectors, dense, lexical, rows=rows, words=words, centroid=mean,
                     model_dir=folder / MODEL_DIR if manifest.model else None)


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
        with np.load(Path(folder) / "rows.npz", allow_pickle=False) as data:
            ids = [p.id for p in PassageFile(Path(folder) / "passages.jsonl", data["offsets"])]
        vectors = np.load(Path(folder) / "vectors.npy", allow_pickle=False)
    except (OSError, ValueError, KeyError):
        return {}
    if len(ids) != len(vectors):
        return {}
    return dict(zip(ids, vectors))


