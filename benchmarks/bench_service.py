"""Benchmark of the HTTP service as deployed: start-up, latency per question, throughput, memory.

Starts `rulesqa serve` on a free loopback port with the existing index (building it first if needed),
then asks the gold questions over HTTP. Prints a Markdown table; not a test.

    HF_HUB_OFFLINE=1 .venv/bin/python benchmarks/bench_service.py [--rounds 3] [--clients 2]
"""

import argparse
import os
import socket
import statistics
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import httpx

from eval.gold import load_questions
from eval.metrics import percentile


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mib(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="passes over the gold questions")
    parser.add_argument("--clients", type=int, default=2, help="concurrent clients for the throughput run")
    args = parser.parse_args()

    questions = [q for split in ("dev", "test") for q in load_questions(split)]
    bodies = [{"question": q.question, "game": q.game} for q in questions]
    port = free_port()
    started = time.perf_counter()
    server = subprocess.Popen([sys.executable, "-m", "rulesqa", "serve", "--port", str(port)],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              env={**os.environ, "HF_HUB_OFFLINE": "1"})
    base = f"http://127.0.0.1:{port}"
    try:
        with httpx.Client(base_url=base, timeout=30) as client:
            while True:
                try:
                    if client.get("/health").status_code == 200:
                        break
                except httpx.TransportError:
                    pass
                if time.perf_counter() - started > 600:
                    raise SystemExit("the server did not start within 10 minutes")
                time.sleep(0.1)
            startup = time.perf_counter() - started
            rss_idle = rss_mib(server.pid)

            latencies = []
            for _ in range(args.rounds):
                for body in bodies:
                    t = time.perf_counter()
                    r = client.post("/api/ask", json=body)
                    latencies.append((time.perf_counter() - t) * 1000)
                    r.raise_for_status()

        def ask(body):
            with httpx.Client(base_url=base, timeout=30) as c:
                return c.post("/api/ask", json=body).status_code

        t = time.perf_counter()
        with ThreadPoolExecutor(args.clients) as pool:
            codes = list(pool.map(ask, bodies * args.rounds))
        throughput = len(codes) / (time.perf_counter() - t)
        rss_peak = rss_mib(server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)

    print(f"{len(bodies)} gold questions x {args.rounds} rounds, loopback HTTP, {os.cpu_count()} cores\n")
    print("| measure | value |\n|---|---:|")
    print(f"| start-up to /health 200 (model + index loaded) | {startup:.1f} s |")
    print(f"| POST /api/ask, one client, p50 | {statistics.median(latencies):.1f} ms |")
    print(f"| POST /api/ask, one client, p95 | {percentile(latencies, 95):.1f} ms |")
    print(f"| throughput, {args.clients} concurrent clients | {throughput:.0f} questions/s |")
    print(f"| non-200 answers | {sum(c != 200 for c in codes)} |")
    print(f"| server RSS after start-up | {rss_idle:.0f} MiB |")
    print(f"| server RSS after the runs | {rss_peak:.0f} MiB |")


if __name__ == "__main__":
    main()
