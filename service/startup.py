"""Load the answerer for a long-running process, building or refreshing the index when needed."""

import logging
from pathlib import Path

from indexer.errors import IndexMismatchError
from service.answer import Answerer

log = logging.getLogger("rulesqa")


def _current_corpus_hash(corpus_dir: Path) -> str:
    from indexer.build import corpus_hash
    from indexer.passages import load_passages

    docs, passages = load_passages(corpus_dir)
    return corpus_hash([d.game for d in docs], passages)


def load_answerer(index_dir: Path, corpus_dir: Path | None, model: str | None, build: bool = True, embedder=None) -> Answerer:
    """The answerer over index_dir. With build=True, a missing or incompatible index, or one built from
    another version of the corpus, is (re)built from corpus_dir first; unchanged passages keep their vectors."""
    from indexer.build import build_index
    from indexer.embed import load_embedder

    embedder = embedder or load_embedder(model)
    try:
        answerer = Answerer.load(index_dir, embedder)
    except IndexMismatchError as exc:
        if not build or corpus_dir is None:
            raise
        log.warning("index indisponible (%s) ; construction depuis %s", exc, corpus_dir)
    else:
        if not build or corpus_dir is None or not Path(corpus_dir).is_dir():
            return answerer
        if _current_corpus_hash(corpus_dir) == answerer.retriever.manifest["corpus"]["hash"]:
            return answerer
        log.warning("le corpus %s a changé depuis l'index ; mise à jour de l'index", corpus_dir)
    manifest = build_index(corpus_dir, index_dir, embedder, progress=False)
    log.info("index construit : %s passages (%s réutilisés) en %s s", manifest["corpus"]["passages"],
             manifest["stats"]["reused"], manifest["stats"]["seconds"])
    return Answerer.load(index_dir, embedder)
