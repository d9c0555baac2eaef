"""Benchmark of the index build and the service on a Ray cluster of nodes on loopback (issue 24).

1. `--build N`: N passages of generated games (benchmarks/shelf.py) encoded by e5 (the base model):
   locally, then by Ray Data actors on 1 and on 2 worker nodes (a head without CPUs for tasks, and
   worker nodes of 2 CPUs each, one actor per CPU, one thread each); passages/s, the cluster's start-up
   and the first batch's wait apart;
2. `--serve`: the real corpus indexed with e5, served by plain uvicorn (`rulesqa serve`), by Ray Serve
   with 1 replica and with 2 (one per node): answers/s, p50 and p95 at 8, 32 and 64 clients (asyncio
   clients in this process, questions of the gold set with their game), errors counted;
3. `--kill`: 2 replicas, 8 clients, one replica SIGKILLed: failed requests and the time until Ray has
   2 running replicas again;
4. `--shelf N`: about N passages of generated games (random unit vectors under e5's name, as
   bench_shelf.py --server-passages), built in 4 shards and served by 4 shard replicas and one front
   that encodes the questions with e5: RSS of each shard replica (anonymous + mapped files), POST
   /api/ask p50 with the game and without.

Every section prints the 1-minute load average before and after it: other sessions share these 2 cores.
Prints Markdown tables; not a test.

    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_cluster --build 1500 --serve --kill
    PYTHONPATH=. .venv/bin/python -m benchmarks.bench_cluster --shelf 1000000 [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import functools
import math
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np

from benchmarks.bench_shelf import memory_status
from benchmarks.shelf import generate
from testbed.ports import free_port
from testbed.ray_nodes import RayNodes

REPO = Path(__file__).resolve().parents[1]

CLIENTS = (8, 32, 64)
TOKEN = "bench-cluster-reload-token-0123"


def load() -> str:
    return f"{os.getloadavg()[0]:.2f}"


def percentile(values: list[float], q: float) -> float:
    return float(np.percentile(values, q)) if values else float("nan")


def connect(nodes: RayNodes):
    from indexer.ray_encode import connect as join

    return join(nodes.address, env={"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"})


# ---------- 1. build ----------


def passage_texts(n: int, work: Path) -> list[str]:
    from indexer.passages import load_passages
    from indexer.passage_text import embedding_text

    corpus = work / "build-corpus"
    generate(math.ceil(n / 170) + 1, corpus, seed=24)
    docs, passages = load_passages(corpus)
    games = {d.game.id: d.game for d in docs}
    return [embedding_text(p, games[p.game]) for p in passages[:n]]


def bench_build(n: int, work: Path) -> list[tuple[str, str]]:
    from indexer.build import local_encoder
    from indexer.ray_encode import RayEncoder
    from service.runtime.settings import load_settings

    e5 = load_settings(threads=2).embedder()
    texts = passage_texts(n, work)
    rows = [("load average at the start", load())]
    t = time.perf_counter()
    local = local_encoder(e5)(texts, lambda k: None)
    local_s = time.perf_counter() - t
    rows.append((f"local, 1 process, 2 threads: {len(texts)} passages", f"{local_s:.1f} s, {len(texts) / local_s:.1f} passages/s"))
    t = time.perf_counter()
    nodes = RayNodes(cpus=(0, 2)).start()
    rows.append(("cluster start (head + 1 worker node)", f"{time.perf_counter() - t:.1f} s"))
    try:
        ray = connect(nodes)
        for label in ("1 worker node (2 actors)", "2 worker nodes (4 actors)"):
            if label.startswith("2"):
                nodes.add_node(2)
            first = []
            t = time.perf_counter()
            vectors = RayEncoder(e5)(texts, lambda k, first=first: first.append(time.perf_counter()) if not first else None)
            seconds = time.perf_counter() - t
            same = np.array_equal(vectors, local)
            rows.append((f"Ray Data, {label}", f"{seconds:.1f} s, {len(texts) / seconds:.1f} passages/s "
                         f"(first batch back after {first[0] - t:.1f} s; vectors identical to local: {same})"))
        ray.shutdown()
    finally:
        nodes.stop()
    rows.append(("load average at the end", load()))
    return rows


# ---------- 2. serve ----------


async def _load_run(url: str, bodies: list[dict], clients: int, seconds: float) -> dict:
    latencies, errors = [], 0
    deadline = time.perf_counter() + seconds
    limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
    async with httpx.AsyncClient(base_url=url, timeout=60, limits=limits) as client:
        async def worker(k: int):
            nonlocal errors
            i = k
            while time.perf_counter() < deadline:
                t = time.perf_counter()
                try:
                    r = await client.post("/api/ask", json=bodies[i % len(bodies)])
                    ok = r.status_code == 200
                except httpx.HTTPError:
                    ok = False
                latencies.append((time.perf_counter() - t) * 1000)
                errors += not ok
                i += clients

        started = time.perf_counter()
        await asyncio.gather(*(worker(k) for k in range(clients)))
        elapsed = time.perf_counter() - started
    return {"rps": len(latencies) / elapsed, "p50": percentile(latencies, 50), "p95": percentile(latencies, 95),
            "errors": errors, "requests": len(latencies)}


def load_levels(url: str, bodies: list[dict], seconds: float) -> dict[int, dict]:
    asyncio.run(_load_run(url, bodies, 4, 3))  # warm-up
    return {c: asyncio.run(_load_run(url, bodies, c, seconds)) for c in CLIENTS}


def gold_bodies() -> list[dict]:
    from eval.gold import load_questions

    return [{"question": q.question, "game": q.game} for q in load_questions("dev") + load_questions("test")]


def e5_index(work: Path) -> Path:
    from indexer.build import build_index
    from service.runtime.settings import load_settings

    index = work / "e5-index"
    if not index.exists():
        build_index(REPO / "corpus", index, load_settings().embedder(), progress=False)
    return index


def uvicorn_server(index: Path) -> tuple[subprocess.Popen, str]:
    port = free_port()
    env = {**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "RULESQA_LOG_QUESTIONS": "false",
           "RULESQA_BUILD_INDEX_IF_MISSING": "false", "RULESQA_ADAPT": "false"}
    proc = subprocess.Popen([sys.executable, "-m", "rulesqa", "serve", "--index", str(index), "--port", str(port)],
                            env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    url = f"http://127.0.0.1:{port}"
    while True:
        try:
            if httpx.get(url + "/health", timeout=1).status_code == 200:
                return proc, url
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            raise SystemExit("rulesqa serve exited at start")
        time.sleep(0.2)


def bench_serve(work: Path, seconds: float, kill: bool) -> tuple[dict, list[tuple[str, str]]]:
    from service.cluster.deploy import Scaling, deploy, undeploy
    from service.runtime.settings import load_settings

    index = e5_index(work)
    bodies = gold_bodies()
    results: dict[str, dict] = {}
    print(f"serve: load average {load()}", file=sys.stderr, flush=True)
    proc, url = uvicorn_server(index)
    try:
        results["plain uvicorn (rulesqa serve)"] = load_levels(url, bodies, seconds)
    finally:
        proc.terminate()
        proc.wait()
    kill_rows: list[tuple[str, str]] = []
    nodes = RayNodes(cpus=(2, 2)).start()
    try:
        connect(nodes)
        settings = load_settings(index_dir=index, build_index_if_missing=False, log_questions=False,
                                 reload_token=TOKEN, adapt=False)
        for replicas in (1, 2):
            deployed = deploy(settings, name=f"bench{replicas}", port=free_port(), scaling=Scaling(replicas=replicas))
            results[f"Ray Serve, {replicas} replica{'s' if replicas > 1 else ''}"] = load_levels(deployed.url, bodies, seconds)
            if replicas == 2 and kill:
                kill_rows = killed_replica(deployed.url, f"bench{replicas}", bodies)
            undeploy(deployed.name)
    finally:
        nodes.stop()
    print(f"serve: load average {load()}", file=sys.stderr, flush=True)
    return results, kill_rows


def killed_replica(url: str, app: str, bodies: list[dict]) -> list[tuple[str, str]]:
    from ray import serve

    from service.cluster.deploy import replicas

    def pids():
        return {r["replica"]: r["pid"] for r in replicas(app) if r["role"] == "front"}

    stop, results = threading.Event(), []

    def client(k: int):
        with httpx.Client(base_url=url, timeout=30) as c:
            i = k
            while not stop.is_set():
                try:
                    r = c.post("/api/ask", json=bodies[i % len(bodies)])
                    results.append((time.monotonic(), r.status_code))
                except httpx.HTTPError:
                    results.append((time.monotonic(), 0))
                i += 8

    threads = [threading.Thread(target=client, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    time.sleep(3)
    before = pids()
    victim = sorted(before)[0]
    killed = time.monotonic()
    os.kill(before[victim], signal.SIGKILL)
    recovered = None
    while time.monotonic() - killed < 300:
        now = pids()
        running = serve.status().applications[app].deployments["Front"].replica_states.get("RUNNING", 0)
        if running == 2 and set(now) - set(before):  # a new replica joined, 2 running
            recovered = time.monotonic() - killed
            break
        time.sleep(0.2)
    time.sleep(3)
    stop.set()
    for t in threads:
        t.join()
    failed = [r for r in results if r[1] != 200]
    last_failure = max((r[0] for r in failed), default=killed) - killed
    return [("requests during the run (8 clients) / failed", f"{len(results)} / {len(failed)}"),
            ("last failed request after the kill", f"{last_failure:.1f} s" if failed else "none"),
            ("replica replaced (2 running again) after", f"{recovered:.1f} s" if recovered else "not within 300 s"),
            ("load average", load())]


# ---------- 4. a shelf in 4 shards ----------


def fail(reason: str) -> None:
    """End the benchmark with one line saying why (from any thread), and exit code 1."""
    print(f"bench_cluster: échec : {reason}", file=sys.stderr, flush=True)
    os._exit(1)


def one_line(message: str) -> str:
    """A multi-line error (a Ray node's log tail) as one line: its first line and its last one, which says why."""
    lines = [line.strip() for line in message.splitlines() if line.strip()]
    return lines[0] if len(lines) < 2 else f"{lines[0]} … {lines[-1]}"


def watch(nodes: RayNodes, stop: threading.Event) -> threading.Thread:
    """A thread that ends the benchmark in one line when a node of the cluster dies (the kernel's OOM killer,
    a crash): the driver would otherwise be ended by Ray itself, with no word on stderr."""
    def run():
        while not stop.wait(2):
            for proc in nodes.procs:
                if proc.poll() is not None and not stop.is_set():
                    tail = nodes.logs()[-300:].replace("\n", " ")
                    free = memory_available_mib()
                    fail(f"un nœud Ray s'est arrêté (code {proc.returncode}, {free:,} Mio de mémoire disponible) : {tail}")

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def memory_available_mib() -> int:
    for line in Path("/proc/meminfo").read_text().splitlines():
        if line.startswith("MemAvailable:"):
            return int(line.split()[1]) // 1024
    return 0


def build_shelf_in_child(corpus: Path, index: Path) -> None:
    """The 4 shards built in a child process, so that the build's memory is handed back before the cluster
    starts (a million passages held at once would otherwise stay in this process's heap)."""
    code = ("import sys; from benchmarks.bench_shelf import RandomVectors; "
            "from indexer.shelf import build_shards; from service.runtime.settings import load_settings; "
            "build_shards(sys.argv[1], sys.argv[2], RandomVectors(load_settings().embedder()), 4, progress=False)")
    run = subprocess.run([sys.executable, "-c", code, str(corpus), str(index)], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(REPO)})
    if run.returncode != 0:
        lines = (run.stderr.strip() or f"code {run.returncode}").splitlines()
        fail(f"construction des 4 shards : {lines[-1]}")


def bench_shelf(n: int, work: Path, questions: int) -> list[tuple[str, str]]:
    import random

    from indexer import store
    from indexer.models import load_embedder
    from indexer.shelf import is_sharded, read_shelf
    from service.cluster.deploy import deploy, undeploy
    from service.runtime.settings import load_settings

    rows = [("load average at the start", load())]
    corpus, index = work / "corpus", work / "index4"
    if not corpus.is_dir():
        t = time.perf_counter()
        generate(math.ceil(n / 172), corpus)
        rows.append(("corpus generation", f"{time.perf_counter() - t:.0f} s"))
    if not is_sharded(index):
        t = time.perf_counter()
        build_shelf_in_child(corpus, index)
        rows.append(("build in 4 shards (vectors not encoded), in a child process", f"{time.perf_counter() - t:.0f} s"))
    shelf = read_shelf(index)
    rows.append(("passages / games", f"{shelf.manifest.corpus.passages:,} / {shelf.manifest.corpus.games:,}"))
    rows.append(("passages per shard", " / ".join(f"{s.passages:,}" for s in shelf.shards)))
    rows.append(("dense index per shard", store.read_manifest(index / shelf.shards[0].folder).dense_index))
    rng = random.Random(11)
    asked = []
    first = store.load(index / shelf.shards[0].folder)
    for _ in range(questions):
        p = first.passages[rng.randrange(len(first.passages))]
        asked.append((" ".join(p.text.split()[:12]).rstrip(" .?") + " ?", p.game))
    del first
    rows.append(("memory available before the cluster starts", f"{memory_available_mib():,} MiB"))
    nodes = RayNodes(cpus=(3, 3), object_store_mb=300).start()
    stop = threading.Event()
    watch(nodes, stop)
    try:
        connect(nodes)
        settings = load_settings(index_dir=index, build_index_if_missing=False, log_questions=False)
        t = time.perf_counter()
        # The shards hold random vectors recorded under e5's name and no model folder to answer with: the front
        # encodes the questions with the real base model, as `rulesqa serve` would load it.
        make_embedder = functools.partial(load_embedder, "e5-small", models_dir=Path(settings.models_dir).resolve(),
                                          threads=settings.threads)
        deployed = deploy(settings, name="shelf4", port=free_port(), timeout_s=900, make_embedder=make_embedder)
        rows.append(("deploy (4 shard replicas + 1 front) until running", f"{time.perf_counter() - t:.0f} s"))
        within, across = [], []
        with httpx.Client(base_url=deployed.url, timeout=120) as client:
            for question, game in asked:
                for body, times in (({"question": question, "game": game}, within), ({"question": question}, across)):
                    t = time.perf_counter()
                    client.post("/api/ask", json=body).raise_for_status()
                    times.append((time.perf_counter() - t) * 1000)
        rows.append(("POST /api/ask p50 with the game (one shard; e5 encoding included)", f"{statistics.median(within):.1f} ms"))
        rows.append(("POST /api/ask p50 without a game (every shard; e5 encoding included)", f"{statistics.median(across):.1f} ms"))
        from service.cluster.deploy import replicas

        for r in sorted(replicas("shelf4"), key=lambda r: (r["role"], r.get("shard", -1), r["replica"])):
            m = memory_status(r["pid"])
            rows.append((f"RSS of a {r['role']} replica {r['replica']} (anonymous + mapped files), peak",
                         f"{m['VmRSS']:.0f} MiB ({m['RssAnon']:.0f} + {m['RssFile']:.0f}), {m['VmHWM']:.0f} MiB"))
        rows.append(("memory available with the shelf deployed", f"{memory_available_mib():,} MiB"))
        undeploy(deployed.name)
    finally:
        stop.set()
        nodes.stop()
    rows.append(("load average at the end", load()))
    return rows


# ---------- main ----------


def table(title: str, rows: list[tuple[str, str]]) -> None:
    print(f"\n## {title}\n\n| measure | value |\n|---|---:|")
    for name, value in rows:
        print(f"| {name} | {value} |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", type=int, default=0, help="passages encoded locally and on the cluster")
    parser.add_argument("--serve", action="store_true", help="answers/s and latency: uvicorn vs Ray Serve")
    parser.add_argument("--kill", action="store_true", help="with --serve: a replica killed under load")
    parser.add_argument("--seconds", type=float, default=15, help="length of each load level")
    parser.add_argument("--shelf", type=int, default=0, help="about this many passages in 4 shards")
    parser.add_argument("--questions", type=int, default=200)
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the --shelf corpus and index here")
    args = parser.parse_args()
    work = Path(tempfile.mkdtemp(prefix="rulesqa-bench-cluster-"))
    print(f"1-minute load average at the start: {load()} (2 cores shared with other sessions)")
    try:
        if args.build:
            table(f"Index build: {args.build} passages encoded by e5", bench_build(args.build, work))
        if args.serve:
            results, kill_rows = bench_serve(work, args.seconds, args.kill)
            print("\n## Answers through Ray Serve and plain uvicorn (gold questions with their game, e5)\n")
            print("| server | clients | answers/s | p50 ms | p95 ms | errors / requests |\n|---|---:|---:|---:|---:|---:|")
            for name, levels in results.items():
                for clients, r in levels.items():
                    print(f"| {name} | {clients} | {r['rps']:.1f} | {r['p50']:.0f} | {r['p95']:.0f} | "
                          f"{r['errors']} / {r['requests']} |")
            if kill_rows:
                table("A replica killed under load (2 replicas, 8 clients)", kill_rows)
        if args.shelf:
            try:
                rows = bench_shelf(args.shelf, args.keep or work, args.questions)
            except Exception as exc:  # one line saying why, not a traceback
                fail(f"--shelf {args.shelf} : {type(exc).__name__} : {one_line(str(exc))}")
            table(f"A shelf of about {args.shelf:,} passages in 4 shards", rows)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print(f"\n1-minute load average at the end: {load()}")


if __name__ == "__main__":
    main()
