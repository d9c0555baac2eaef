"""The one factory of Answerers: the HTTP API, the CLI, the eval, every Ray replica and the sharded front build
theirs here, from the Settings, so that a setting (the judge, the calibration, the cache) cannot be dropped on
one path."""

from __future__ import annotations

from service.engine.answerer import Answerer
from service.engine.calibration import Calibration, load as load_calibration
from service.engine.decide.signals import Signaller
from service.engine.retrieval.single import SingleIndexRetriever
from service.runtime.settings import Settings

_FROM_SETTINGS = object()


def build_answerer(settings: Settings, *, data=None, embedder=None, retriever=None,
                   calibration: Calibration | None = None, judge=_FROM_SETTINGS) -> Answerer:
    """The answerer over settings.index_dir. `data` (store.load's, already read), `embedder` (the model to ask
    with; default: the index's own), `retriever` (one built elsewhere: the shards'), `calibration` (default: the
    one measured for this index and model, service/engine/calibration.py) and `judge` (default: RULESQA_RERANKER's)
    replace what would be loaded."""
    if judge is _FROM_SETTINGS:
        judge = settings.reranker_model()
    if retriever is None:
        from indexer import store

        data = data if data is not None else store.load(settings.index_dir)
        retriever = SingleIndexRetriever.from_data(data, embedder if embedder is not None else settings.index_embedder())
    if calibration is None:
        calibration = load_calibration(retriever.embedder.model_id, settings.index_dir,
                                       reranker_id=judge.model_id if judge else None)
    retriever = retriever.with_fusion(calibration.fusion)
    signaller = Signaller(retriever.embedder, retriever.words, retriever.games, settings.cache_dir)
    return Answerer(retriever, calibration, signaller, judge)
