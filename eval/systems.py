"""The systems an evaluation asks: the served index (its model, judge and calibration, as `rulesqa serve`
answers), another index folder with its own model and calibration, and the new games' index built beside the
served one with the same model."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from eval.gold import GoldQuestion
from eval.new_games import SPLIT as NEW_GAMES
from eval.publishers import SPLITS as PUBLISHERS
from eval.request import EvalRequest


@dataclass(frozen=True)
class Served:
    """The served index as the eval answers with it: `answerer` without the judge, `judged` with it (None without
    a judge), and the questions they are asked (the new games': those of their own index)."""

    conf: object  # service.runtime.settings.Settings, over the index actually asked
    embedder: object
    answerer: object
    judged: object | None
    questions: list[GoldQuestion]


def served_models(index_dir: Path | None, model: str | None, reranker: Path | None):
    """(settings, the index's model, the judge or None): loaded first, so that a broken index or judge stops any
    workflow in one line."""
    from service.runtime.settings import load_settings

    conf = load_settings(index_dir=index_dir, model=model, reranker=reranker)
    return conf, conf.index_embedder(), conf.reranker_model()


def served(request: EvalRequest, gold: list[GoldQuestion] | None) -> Served:
    """The served system for an EvalRequest; for the new games, their own index answered with the served index's
    model and calibration."""
    from indexer import store
    from service.engine.calibration import load as load_calibration
    from service.runtime.answerers import build_answerer

    conf, embedder, judge = served_models(request.index_dir, request.model, request.reranker)
    calibration = None
    if request.split in (NEW_GAMES, *PUBLISHERS):
        calibration = load_calibration(embedder.model_id, conf.index_dir)
        conf, gold = side_index(conf, embedder, request.split, text=request.publishers_text)
    data = store.load(conf.index_dir)
    answerer = build_answerer(conf, data=data, embedder=embedder, reranker=None, calibration=calibration)
    judged = build_answerer(conf, data=data, embedder=embedder, reranker=judge) if judge else None
    return Served(conf, embedder, answerer, judged, gold)


def index_system(conf, folder: Path, split: str):
    """(model id, answerer, the new games' questions or None) of an index folder with its model and calibration."""
    from service.engine.calibration import load as load_calibration
    from service.runtime.answerers import build_answerer

    here = conf.model_copy(update={"index_dir": folder, "model": None})
    embedder = here.index_embedder()
    calibration = load_calibration(embedder.model_id, folder)
    asked = None
    if split in (NEW_GAMES, *PUBLISHERS):
        here, asked = side_index(here, embedder, split, folder.name)
    return embedder.model_id, build_answerer(here, embedder=embedder, reranker=None, calibration=calibration), asked


def side_index(conf, embedder, split: str, name: str = "index", text: str = "import"):
    """(settings over the index of a split's own games, their questions): the new games', or the publishers'
    rulebooks imported; built (or brought up to date) beside the served index, with the same model."""
    from eval.gold import load_questions
    from indexer.build import build_index

    work = Path(conf.index_dir).parent / (f"eval-{split}" if text == "import" else f"eval-{split}-{text}")
    if split == NEW_GAMES:
        from eval.new_games import materialize

        corpus, questions = materialize(work)
    else:
        from eval.publishers import materialize

        corpus, questions = materialize(work, split, text=text)
    build_index(corpus, work / name, embedder, progress=False)
    return (conf.model_copy(update={"index_dir": work / name, "corpus_dir": corpus}),
            load_questions(questions, split=split))
