"""`rulesqa serve --ray ADDRESS`: the service deployed on a Ray cluster through Ray Serve (service/cluster/).

The index is checked (and built when missing or stale, as `rulesqa serve` does) here, before deploying;
replicas then load the folder as it is. The command stays in the foreground like `rulesqa serve` and
removes the application when stopped (Ctrl-C or SIGTERM).
"""

import signal
import threading

import typer

from rulesqa.errors import UsageError

PROXIES = {"head": "HeadOnly", "every-node": "EveryNode"}


def scaling(replicas: int, autoscale: str | None, target_ongoing: float):
    from service.cluster.deploy import Scaling

    if autoscale is None:
        return Scaling(replicas=replicas)
    low, _, high = autoscale.partition(":")
    if not (low.isdigit() and high.isdigit() and 1 <= int(low) <= int(high) <= 256):
        raise UsageError(f"--autoscale attend MIN:MAX (1 ≤ MIN ≤ MAX ≤ 256), reçu : {autoscale!r}")
    return Scaling(min_replicas=int(low), max_replicas=int(high), target_ongoing=target_ongoing)


def serve_on_ray(conf, host: str, port: int, replicas: int, autoscale: str | None, target_ongoing: float,
                 shards: int | None, shard_replicas: int, proxy: str) -> None:
    from indexer.ray_encode import connect
    from indexer.shelf import is_sharded, read_shelf

    if proxy not in PROXIES:
        raise UsageError(f"--proxy : head ou every-node (reçu : {proxy!r})")
    plan = scaling(replicas, autoscale, target_ongoing)
    if is_sharded(conf.index_dir):
        shelf = read_shelf(conf.index_dir)
        if shards is not None and shards != len(shelf.shards):
            raise UsageError(f"{conf.index_dir} est partagé en {len(shelf.shards)} shards, pas {shards}")
    elif shards is not None:
        raise UsageError(f"{conf.index_dir} n'est pas un index partagé : construisez-le avec « rulesqa index --shards {shards} »")
    elif conf.build_index_if_missing:
        from service.runtime.startup import load_answerer

        load_answerer(conf)  # builds or refreshes the index here, once, as `rulesqa serve` does
    connect(conf.ray_address)
    from service.cluster.deploy import deploy, undeploy

    deployed = _deploy(deploy, conf, host, port, plan, shard_replicas, PROXIES[proxy])
    typer.echo(f"rulesqa : {deployed.url}/ (API : /docs) sur la grappe Ray {conf.ray_address}", err=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        undeploy(deployed.name)


def _deploy(deploy, conf, host, port, plan, shard_replicas, proxy):
    from indexer.errors import ClusterError

    try:
        return deploy(conf, host=host, port=port, scaling=plan, shard_replicas=shard_replicas, proxy=proxy)
    except (RuntimeError, TimeoutError) as exc:
        raise ClusterError(str(exc).splitlines()[0]) from None
