"""Answers from a shelf in shards equal the single index's, byte for byte, for every gold question, with
and without its game (the fake embedder; tests/cluster/ does it with e5 over Ray)."""

import json

import pytest

from eval.gold import load_questions
from indexer.shelf import build_shards
from service.engine.answerer import Answerer
from service.engine.question import Query
from service.engine.decide.abstention import AbstentionPolicy
from service.engine.calibration import Calibration
from service.engine.limits import MODES
from service.engine.compose.common_mistake import CommonMistakePolicy
from service.engine.retrieval.sharded import ShardedRetriever
from service.engine.retrieval.shard_search import local_shards
from tests.fakes import CORPUS, FakeEmbedder, fake_answerer

# Permissive enough that answers, warnings and refusals all occur (the fake model has no calibration).
CALIBRATION = Calibration(abstention=AbstentionPolicy(threshold=0.1), common_mistake=CommonMistakePolicy(min_cosine=0.0))


@pytest.fixture(scope="module")
def sharded(tmp_path_factory):
    out = tmp_path_factory.mktemp("sharded") / "index"
    build_shards(CORPUS, out, FakeEmbedder(), 3, progress=False)
    retriever = ShardedRetriever.load(out, local_shards(out), FakeEmbedder(), CALIBRATION.fusion)
    return Answerer(retriever, CALIBRATION)


def _text(answer) -> str:
    return json.dumps(answer.to_dict(), ensure_ascii=False, sort_keys=True)


def test_gold_answers_are_byte_identical(sharded, fake_index):
    single = fake_answerer(fake_index, CALIBRATION)
    kinds = set()
    # Every question in the default mode; the test split in every mode.
    asked = [(q, "hybrid") for q in load_questions("dev")] + [(q, m) for q in load_questions("test") for m in MODES]
    for q, mode in asked:
        for game in {q.game, None}:
            query = Query(q.question, game, 5, mode)
            expected = single.answer(query)
            assert _text(sharded.answer(query)) == _text(expected), (q.question, game, mode)
            kinds.add((expected.found, expected.warning is not None, expected.game_detected))
    assert len(kinds) >= 5  # answers with and without warnings, refusals, routed and given games


def test_games_passages_and_health_parts(sharded, fake_index):
    single = fake_answerer(fake_index, CALIBRATION)
    assert sharded.retriever.manifest.corpus == single.retriever.manifest.corpus
    pid = single.retriever.passages[3].id
    game = single.retriever.passages[3].game
    assert sharded.retriever.passage(game, pid) == single.retriever.passage(game, pid)
    assert sharded.retriever.passage(game, "nope") is None
    with pytest.raises(Exception, match="jeu inconnu"):
        sharded.ask("qui commence ?", game="zorglub")
