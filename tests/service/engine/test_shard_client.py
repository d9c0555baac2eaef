"""Both shard clients implement the ShardClient protocol (retrieval/shard_client.py): every method it declares,
with the same parameters, and each sends its own operation. The Ray one is read from its source, since its
module needs Ray (the `cluster` extra) to import."""

import ast
import inspect
from pathlib import Path

import pytest

from service.engine.retrieval.shard_client import ShardClient
from service.engine.retrieval.shard_search import LocalShard, ShardSearch

DEPLOY = Path(__file__).resolve().parents[3] / "service" / "cluster" / "deploy.py"
METHODS = [name for name, value in vars(ShardClient).items() if callable(value) and not name.startswith("_")]


def _parameters(function) -> list[str]:
    return list(inspect.signature(function).parameters)


def _methods_in_source(class_name: str) -> dict[str, ast.FunctionDef]:
    tree = ast.parse(DEPLOY.read_text("utf-8"))
    [found] = [n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == class_name]
    return {f.name: f for f in found.body if isinstance(f, ast.FunctionDef)}


def test_the_protocol_has_every_operation_of_a_shard():
    assert set(METHODS) == {"game", "shelf", "shelf_game", "passage", "vocabulary", "card", "best_lexical",
                            "mistakes"}


@pytest.mark.parametrize("method", METHODS)
def test_the_local_shard_and_the_search_take_the_parameters_of_the_protocol(method):
    declared = _parameters(getattr(ShardClient, method))
    assert _parameters(getattr(LocalShard, method)) == declared
    # The search may add parameters with defaults (shelf's depth), which the clients leave to it.
    searched = inspect.signature(getattr(ShardSearch, method)).parameters
    assert list(searched)[: len(declared)] == declared
    assert all(p.default is not inspect.Parameter.empty for p in list(searched.values())[len(declared):])


@pytest.mark.parametrize("method", METHODS)
def test_the_ray_shard_sends_each_operation_to_its_deployment(method):
    declared = _parameters(getattr(ShardClient, method))
    client = _methods_in_source("RayShard")[method]
    assert [a.arg for a in client.args.args] == declared
    # Its one statement: return self.handle.<method>.remote(<its parameters>), a method the deployment has.
    [statement] = client.body
    call = statement.value
    assert ast.unparse(call.func) == f"self.handle.{method}.remote"
    assert [ast.unparse(a) for a in call.args] == declared[1:]
    assert [a.arg for a in _methods_in_source("Shard")[method].args.args] == declared
