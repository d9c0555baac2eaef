"""How the front (sharded.py) reaches a shard: a `ShardClient`, one method per `ShardSearch` operation
(shard_search.py) with its parameters, each returning a `Pending` answer to read with `.result()`. The shard
may answer at once in this process (`LocalShard`), or later from a Ray Serve replica (service/cluster/deploy.py:
`RayShard`, whose handle's calls return such answers), so the front sends to every shard before it reads any.
"""

from __future__ import annotations

from typing import Protocol, TypeVar

import numpy as np

from indexer.passages import Passage
from service.engine.retrieval.shard_search import GameResult, MistakeParts, ShelfResult

T_co = TypeVar("T_co", covariant=True)


class Pending(Protocol[T_co]):
    """A shard's answer, perhaps still on its way: `.result()` waits for it."""

    def result(self) -> T_co: ...


class ShardClient(Protocol):
    """The operations of one shard, as `ShardSearch` declares them (its defaults stay on the shard's side)."""

    def game(self, question: str, vector: np.ndarray, game: str) -> Pending[GameResult]: ...

    def shelf(self, question: str, vector: np.ndarray) -> Pending[ShelfResult]: ...

    def shelf_game(self, question: str, vector: np.ndarray, game: str) -> Pending[GameResult]: ...

    def passage(self, game: str, passage_id: str) -> Pending[Passage | None]: ...

    def vocabulary(self, game: str) -> Pending[tuple[str, frozenset[str]]]: ...

    def card(self, game: str) -> Pending[Passage | None]: ...

    def best_lexical(self, question: str, game: str) -> Pending[float]: ...

    def mistakes(self) -> Pending[MistakeParts]: ...
