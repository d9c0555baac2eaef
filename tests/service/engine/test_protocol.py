"""Both retrievers implement the Retriever protocol (retrieval/protocol.py): every member it declares, with the
same parameters; the answerer asks `retrieve` once and reads the catalogue, and the later stages read no
retriever at all."""

import ast
import inspect
from pathlib import Path

import pytest

from service.engine.retrieval.protocol import Retriever
from service.engine.retrieval.sharded import ShardedRetriever
from service.engine.retrieval.single import SingleIndexRetriever

ENGINE = Path(__file__).resolve().parents[3] / "service" / "engine"
METHODS = [name for name, value in vars(Retriever).items() if callable(value) and not name.startswith("_")]
ATTRIBUTES = [name for name in Retriever.__annotations__]


@pytest.mark.parametrize("implementation", [SingleIndexRetriever, ShardedRetriever])
@pytest.mark.parametrize("method", METHODS)
def test_each_method_of_the_protocol_with_its_parameters(implementation, method):
    declared = list(inspect.signature(getattr(Retriever, method)).parameters)
    implemented = list(inspect.signature(getattr(implementation, method)).parameters)
    assert implemented == declared, (implementation.__name__, method)


def test_the_protocol_names_what_is_used(fake_index):
    from tests.fakes import fake_answerer

    retriever = fake_answerer(fake_index).retriever
    assert isinstance(retriever, Retriever)  # attributes and methods present on a loaded one
    assert set(METHODS) >= {"retrieve", "score", "rank", "likely_games", "best_lexical", "mistakes"}
    assert {"embedder", "fusion", "games", "game_ids", "words"} <= set(ATTRIBUTES) | {"manifest"}


def _members_read_of(module: Path, owner: str) -> set[str]:
    """The attributes read as `<owner>.x` or `self.<owner>.x` in a module's code."""
    names = set()
    for node in ast.walk(ast.parse(module.read_text("utf-8"))):
        if isinstance(node, ast.Attribute):
            base = node.value
            if isinstance(base, ast.Attribute) and base.attr == owner or isinstance(base, ast.Name) and base.id == owner:
                names.add(node.attr)
    return names


# What the answerer reads of its retriever: the one retrieval, the catalogue, and what it builds other answerers with.
ANSWERER_READS = {"retrieve", "games", "game", "game_ids", "game_text", "game_words", "embedder", "words",
                  "with_fusion", "with_embedder"}


def test_the_answerer_asks_the_retriever_once_and_reads_its_catalogue():
    read = _members_read_of(ENGINE / "answerer.py", "retriever")
    assert "retrieve" in read and read <= ANSWERER_READS, read - ANSWERER_READS
    assert read <= set(METHODS) | set(ATTRIBUTES)


@pytest.mark.parametrize("stage", ["routing", "judge", "decide", "compose"])
def test_the_stages_after_retrieval_read_no_retriever(stage):
    for module in sorted((ENGINE / stage).rglob("*.py")):
        tree = ast.parse(module.read_text("utf-8"))
        names = {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)} | \
            {n.arg for n in ast.walk(tree) if isinstance(n, ast.arg)} | \
            {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute)}
        assert "retriever" not in names, module
