"""The one factory of Answerers: the HTTP API, the CLI, the eval, every Ray replica and the sharded front build
theirs here, from the Settings, so that a setting (the reranker, the learned judge, the calibration, the cache)
cannot be dropped on one path."""

from __future__ import annotations

from service.engine.answerer import Answerer, Toggles
from service.engine.calibration import Calibration, family, load as load_calibration
from service.engine.decide.signals import Signaller
from service.engine.judge.learned import LearnedJudge, judge_file
from service.engine.retrieval.single import SingleIndexRetriever
from service.runtime.settings import Settings

_FROM_SETTINGS = object()


def build_answerer(settings: Settings, *, data=None, embedder=None, retriever=None,
                   calibration: Calibration | None = None, reranker=_FROM_SETTINGS) -> Answerer:
    """The answerer over settings.index_dir. `data` (store.load's, already read), `embedder` (the model to ask
    with; default: the index's own), `retriever` (one built elsewhere: the shards'), `calibration` (default: the
    one measured for this index and model, service/engine/calibration.py) and `reranker` (default: RULESQA_RERANKER's)
    replace what would be loaded."""
    if reranker is _FROM_SETTINGS:
        reranker = settings.reranker_model()
    if retriever is None:
        from indexer import store

        data = data if data is not None else store.load(settings.index_dir)
        retriever = SingleIndexRetriever.from_data(data, embedder if embedder is not None else settings.index_embedder())
    if calibration is None:
        calibration = load_calibration(retriever.embedder.model_id, settings.index_dir,
                                       reranker_id=reranker.model_id if reranker else None)
    retriever = retriever.with_fusion(calibration.fusion)
    signaller = Signaller(retriever.embedder, retriever.words, retriever.games, settings.cache_dir)
    return Answerer(retriever, calibration, signaller, reranker, toggles=Toggles(ranker=settings.learned_ranker),
                    learned=learned_judge(retriever.embedder.model_id))


def learned_judge(model_id: str) -> LearnedJudge | None:
    """The learned judge trained for the model's family (`make train`), or None when it has none; a file that
    does not match is refused (JudgeFileError), not ignored."""
    path = judge_file(family(model_id))
    return LearnedJudge.load(path, family(model_id)) if path.is_file() else None
