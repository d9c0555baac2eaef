"""Both retrievers implement the Retriever protocol (retrieval/protocol.py): every member it declares, with the
same parameters, and the Answerer reads nothing else of them."""

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
    assert set(METHODS) >= {"score", "rank", "likely_games", "best_lexical", "evidence", "nearest_mistake"}
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


@pytest.mark.parametrize("module", ["answerer.py", "routing/router.py", "compose/reply.py"])
def test_the_answering_stages_read_only_the_protocol_of_a_retriever(module):
    allowed = set(METHODS) | set(ATTRIBUTES) | {"manifest"}
    read = _members_read_of(ENGINE / module, "retriever")
    assert read and read <= allowed, read - allowed
