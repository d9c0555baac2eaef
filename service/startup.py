"""Load the answerer for a long-running process, building or refreshing the index when needed."""

import logging
from pathlib import Path

from indexer.errors import IndexMismatchError
from service.answer import Answerer
from service.settings import Settings

log = logging.getLogger("rulesqa")


def _corpus_hash(corpus: tuple) -> str:
    from indexer.store import corpus_hash

    docs, passages = corpus
    return corpus_hash([d.game for d in docs], passages)


def load_index_and_model(index_dir: Path, make_embedder):
    """(index data or the IndexMismatchError reading it, embedder): the index's files are read in a thread
    while the model loads. On a shelf both take seconds, and much of both runs in native code (file reads,
    faiss, onnxruntime's session), so they overlap rather than add up."""
    from concurrent.futures import ThreadPoolExecutor

    from indexer import store

    with ThreadPoolExecutor(1) as pool:
        pending = pool.submit(store.load, index_dir)
        embedder = make_embedder()
        try:
            return pending.result(), embedder
        except IndexMismatchError as exc:
            return exc, embedder


def load_answerer(settings: Settings, embedder=None) -> Answerer:
    """The answerer over settings.index_dir. With build_index_if_missing, a missing or incompatible index,
    or one built from another version of the corpus, is (re)built from corpus_dir first; unchanged passages
    keep their vectors."""
    from indexer.build import build_index
    from indexer.passages import load_passages

    index_dir, corpus_dir, build = settings.index_dir, settings.corpus_dir, settings.build_index_if_missing
    # Read once, for both the model the corpus asks for and the check that the index is current.
    corpus = None

    def make_embedder():
        nonlocal corpus
        if build and Path(corpus_dir).is_dir():
            corpus = load_passages(corpus_dir)
        if embedder is not None:
            return embedder
        # Building: the model the corpus asks for (adapting it on first use); else the index's own model.
        return settings.corpus_embedder(corpus=corpus) if corpus is not None else settings.index_embedder()

    data, embedder = load_index_and_model(index_dir, make_embedder)
    try:
        if isinstance(data, IndexMismatchError):
            raise data
        answerer = Answerer.from_data(data, embedder, cache_dir=settings.cache_dir, reranker=settings.reranker_model())
    except IndexMismatchError as exc:
        if not build:
            raise
        log.warning("index indisponible (%s) ; construction depuis %s", exc, corpus_dir)
    else:
        if corpus is None:
            return answerer
        if _corpus_hash(corpus) == answerer.retriever.manifest.corpus.hash:
            return answerer
        log.warning("le corpus %s a changé depuis l'index ; mise à jour de l'index", corpus_dir)
    result = build_index(corpus_dir, index_dir, embedder, progress=False)
    log.info("index construit : %s passages (%s réutilisés) en %s s", result.manifest.corpus.passages,
             result.stats.reused, result.stats.seconds)
    return Answerer.load(index_dir, embedder, cache_dir=settings.cache_dir, reranker=settings.reranker_model())
