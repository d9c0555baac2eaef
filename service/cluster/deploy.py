"""Ray Serve deployments of the service: `Front` (the FastAPI app of create_app, every route, page and
widget, with its questions log), and over a sharded index one `Shard` group per shard.

Each Front replica loads the read-only index folder itself (its vectors memory-mapped above the exact
size, store.load, so replicas on one node share those pages) and writes the questions log to the
database of the settings: a PostgreSQL (RULESQA_DATABASE_URL) that every replica shares. Ray restarts
a replica that dies; the number of replicas is fixed, or follows the queue of requests per replica
(Serve's autoscaling on ongoing requests). Responses carry `X-Rulesqa-Replica`, the replica that
answered.
"""

from __future__ import annotations

import logging
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ray import serve

from service.cluster.reload_coordinator import Listener, coordinator

if TYPE_CHECKING:  # the engine is imported by the replicas only, once numba is set aside (Shard, Front)
    import numpy as np

    from indexer.passages import Passage
    from service.engine.retrieval.shard_client import Pending
    from service.engine.retrieval.shard_search import GameResult, MistakeParts, ShelfResult

log = logging.getLogger("rulesqa")
REPLICA_HEADER = "x-rulesqa-replica"


@dataclass(frozen=True)
class Scaling:
    """Replicas of the front: a fixed number, or between min and max, adding one when the requests
    waiting or running per replica exceed `target_ongoing` (Serve's autoscaling)."""

    replicas: int = 1
    min_replicas: int | None = None
    max_replicas: int | None = None
    target_ongoing: float = 2.0
    upscale_delay_s: float = 5.0
    downscale_delay_s: float = 60.0

    def options(self) -> dict:
        if self.max_replicas is None:
            return {"num_replicas": self.replicas}
        return {"autoscaling_config": {
            "min_replicas": self.min_replicas or 1, "max_replicas": self.max_replicas,
            "target_ongoing_requests": self.target_ongoing, "upscale_delay_s": self.upscale_delay_s,
            "downscale_delay_s": self.downscale_delay_s}}


def _replica_id() -> str:
    return serve.get_replica_context().replica_id.unique_id


class _ReplicaHeader:
    def __init__(self, app, replica: str):
        self.fastapi, self.value = app, replica.encode()

    async def __call__(self, scope, receive, send):
        if scope["type"] != "http":
            return await self.fastapi(scope, receive, send)

        async def tagged(message):
            if message["type"] == "http.response.start":
                message["headers"] = [*message.get("headers", []), (REPLICA_HEADER.encode(), self.value)]
            await send(message)

        await self.fastapi(scope, receive, tagged)


class RayShard:
    """A shard reached through its Serve handle: a `ShardClient` (service/engine/retrieval/shard_client.py). Each
    call returns the handle's response at once, whose `.result()` waits for the `Shard` replica's answer."""

    def __init__(self, handle):
        self.handle = handle

    def game(self, question: str, vector: np.ndarray, game: str) -> Pending[GameResult]:
        return self.handle.game.remote(question, vector, game)

    def shelf(self, question: str, vector: np.ndarray) -> Pending[ShelfResult]:
        return self.handle.shelf.remote(question, vector)

    def shelf_game(self, question: str, vector: np.ndarray, game: str) -> Pending[GameResult]:
        return self.handle.shelf_game.remote(question, vector, game)

    def passage(self, game: str, passage_id: str) -> Pending[Passage | None]:
        return self.handle.passage.remote(game, passage_id)

    def vocabulary(self, game: str) -> Pending[tuple[str, frozenset[str]]]:
        return self.handle.vocabulary.remote(game)

    def card(self, game: str) -> Pending[Passage | None]:
        return self.handle.card.remote(game)

    def best_lexical(self, question: str, game: str) -> Pending[float]:
        return self.handle.best_lexical.remote(question, game)

    def mistakes(self) -> Pending[MistakeParts]:
        return self.handle.mistakes.remote()


def _serves(answerer) -> dict:
    manifest = answerer.retriever.manifest
    return {"built_at": manifest.built_at, "corpus_hash": manifest.corpus.hash, "games": manifest.corpus.games,
            "passages": manifest.corpus.passages}


@serve.deployment(ray_actor_options={"num_cpus": 1}, max_ongoing_requests=32, health_check_period_s=2,
                  health_check_timeout_s=30, graceful_shutdown_timeout_s=5)
class Shard:
    def __init__(self, name: str, folder: str, index: int):
        sys.modules.setdefault("numba", None)  # as `rulesqa serve`: bm25s's numpy scoring, no LLVM
        from service.engine.retrieval.shard_search import ShardSearch

        self.folder, self.index = Path(folder), index
        self.search = ShardSearch(self.folder, index)
        self.listener = Listener(name, _replica_id(), "shard", {"corpus_hash": self.search.version}, self._reload)

    def _reload(self) -> dict:
        from service.engine.retrieval.shard_search import ShardSearch

        self.search = ShardSearch(self.folder, self.index)
        return {"corpus_hash": self.search.version, "shard": self.index}

    def game(self, question, vector, game):
        return self.search.game(question, vector, game)

    def shelf(self, question, vector):
        return self.search.shelf(question, vector)

    def shelf_game(self, question, vector, game):
        return self.search.shelf_game(question, vector, game)

    def passage(self, game, passage_id):
        return self.search.passage(game, passage_id)

    def mistakes(self):
        return self.search.mistakes()

    def vocabulary(self, game):
        return self.search.vocabulary(game)

    def card(self, game):
        return self.search.card(game)

    def best_lexical(self, question, game):
        return self.search.best_lexical(question, game)

    def __del__(self):
        listener = getattr(self, "listener", None)
        if listener is not None:
            listener.stop()


@serve.deployment(ray_actor_options={"num_cpus": 1}, max_ongoing_requests=64, health_check_period_s=2,
                  health_check_timeout_s=30, graceful_shutdown_timeout_s=5)
@serve.ingress()
class Front:
    def __init__(self, name: str, settings, shards: list | None = None, make_embedder=None):
        sys.modules.setdefault("numba", None)
        from service.web.app import create_app

        settings = replace_settings(settings)
        self.settings, self.shards, self.make_embedder = settings, [RayShard(h) for h in shards or []], make_embedder
        from concurrent.futures import ThreadPoolExecutor

        # In a thread: a shard handle's result() may not be awaited from the replica's event loop.
        with ThreadPoolExecutor(1) as pool:
            answerer = pool.submit(self._load, None).result()
        self.replica = _replica_id()
        self.fastapi = create_app(settings, answerer)
        self.fastapi.state.reload_everywhere = self._reload_everywhere
        if self.shards:
            self.fastapi.state.answerer_loader = self._load
        self.fastapi.add_middleware(_ReplicaHeader, replica=self.replica)
        self.name = name
        self.listener = Listener(name, self.replica, "front", _serves(answerer), self._reload_here)

    def _load(self, current):
        """The answerer over the index folder as it is now (`current`: the one answering, whose
        embedder and calibration are kept)."""
        if not self.shards:
            from service.runtime.startup import load_answerer

            embedder = self.make_embedder() if self.make_embedder else None
            return load_answerer(self.settings, embedder)
        from service.engine.retrieval.sharded import ShardedRetriever
        from service.runtime.answerers import build_answerer

        if current is not None:
            embedder = current.retriever.embedder
        elif self.make_embedder is not None:
            embedder = self.make_embedder()
        else:  # the model the shards were built with (the first shard's manifest names it)
            from indexer.shelf import read_shelf

            first = Path(self.settings.index_dir) / read_shelf(self.settings.index_dir).shards[0].folder
            embedder = self.settings.model_copy(update={"index_dir": first}).index_embedder()
        retriever = ShardedRetriever.load(self.settings.index_dir, self.shards, embedder)
        # The same factory as a single index's: the calibration and the judge (RULESQA_RERANKER) are the settings'.
        if current is not None:
            return build_answerer(self.settings, retriever=retriever, calibration=current.calibration,
                                  reranker=current.reranker)
        return build_answerer(self.settings, retriever=retriever)

    def _reload_here(self) -> dict:
        from service.web.admin_reload import load_new_version

        return load_new_version(self.fastapi)

    async def _reload_everywhere(self) -> dict:
        from fastapi import HTTPException

        done = await coordinator(self.name).reload.remote()
        failed = [r for r in done["replicas"] if "error" in r]
        if done["missing"] or failed:
            raise HTTPException(503, f"rechargement incomplet : {len(done['missing'])} réplique(s) sans réponse, "
                                     f"{len(failed)} en erreur ({'; '.join(r['error'] for r in failed)[:300]})")
        fronts = [r for r in done["replicas"] if r["role"] == "front"]
        first = fronts[0] if fronts else _serves(self.fastapi.state.answerer)
        return {"status": "reloaded", **{k: first[k] for k in ("built_at", "corpus_hash", "games", "passages")},
                "replicas": done["replicas"]}

    def __serve_build_asgi_app__(self):
        return self.fastapi

    def __del__(self):
        listener = getattr(self, "listener", None)
        if listener is not None:
            listener.stop()


def replace_settings(settings):
    """A replica serves the published folder as it is: it never builds the index (the deploying command
    did, when asked to)."""
    return settings.model_copy(update={"build_index_if_missing": False})


def application(name: str, settings, scaling: Scaling = Scaling(), shard_replicas: int = 1, make_embedder=None):
    """The Serve application: Front replicas, and one Shard group per shard when the index folder is a
    sharded one (indexer/shelf.py)."""
    from indexer.shelf import is_sharded, read_shelf

    shards = None
    if is_sharded(settings.index_dir):
        shelf = read_shelf(settings.index_dir)
        shards = [Shard.options(name=f"Shard{i:02d}", num_replicas=shard_replicas).bind(name, str(settings.index_dir), i)
                  for i in range(len(shelf.shards))]
    return Front.options(**scaling.options()).bind(name, settings, shards, make_embedder)


@dataclass(frozen=True)
class Deployed:
    name: str
    url: str


def deploy(settings, name: str = "rulesqa", host: str = "127.0.0.1", port: int = 8000, scaling: Scaling = Scaling(),
           shard_replicas: int = 1, make_embedder=None, proxy: str = "HeadOnly", timeout_s: float = 600) -> Deployed:
    """Start Serve's HTTP proxy on host:port (on the head only, or on every node) and run the application;
    returns once every replica is up, with the URL it answers at: a cluster's proxy is started once, and a
    later deployment on the same cluster keeps its host and port. The caller has joined the cluster
    (indexer.ray_encode.connect)."""
    import ray

    serve.start(proxy_location=proxy, http_options={"host": host, "port": port})
    http = ray.get(serve.context._get_global_client()._controller.get_http_config.remote())
    coordinator(name)
    serve.run(application(name, settings, scaling, shard_replicas, make_embedder), name=name, route_prefix="/")
    _wait_running(name, timeout_s)
    return Deployed(name, f"http://{http.host}:{http.port}")


def _wait_running(name: str, timeout_s: float) -> None:
    import time

    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        status = serve.status().applications.get(name)
        if status is not None and str(status.status).endswith("RUNNING"):
            return
        if status is not None and str(status.status).endswith("DEPLOY_FAILED"):
            raise RuntimeError(f"déploiement impossible : {status.message[-1500:]}")
        time.sleep(0.5)
    raise TimeoutError(f"l'application {name} n'a pas démarré en {timeout_s} s")


def replicas(name: str) -> list[dict]:
    """The live replicas of deployment `name` (id, role, pid, what each serves), as the coordinator knows them."""
    import ray

    return ray.get(coordinator(name).members_now.remote())


def undeploy(name: str) -> None:
    import ray

    serve.delete(name)
    try:
        ray.kill(ray.get_actor(f"rulesqa-reloads-{name}"))
    except ValueError:
        pass
