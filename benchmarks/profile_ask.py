"""Where the time of POST /api/ask goes, end to end: `rulesqa serve` sampled by py-spy (dev dependency) while
one keep-alive client asks the gold questions in a loop. Prints the share of the server's busy samples
spent in each part (a sample counts for the first part, in this order, found on its stack). Not a test.

    HF_HUB_OFFLINE=1 .venv/bin/python -m benchmarks.profile_ask [--seconds 20] [--serve-args "--http h11"]
"""

import argparse
import collections
import os
import shlex
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from benchmarks.bench_service import gold_questions, start_server, stop

# (part, a substring of a frame that marks it), first match on a sample's stack wins.
PARTS = [
    ("encoder: onnxruntime inference", "onnxruntime"),
    ("encoder: tokenizer (unigram.py)", "unigram.py"),
    ("encoder: batcher hand-off", "batching.py"),
    ("retrieval: BM25 (bm25s)", "bm25s"),
    ("retrieval: scoring, fusion, ranking", "retrieval.py"),
    ("answer: routing", "routing.py"),
    ("answer: refusal signals", "refusal.py"),
    ("answer: extraction, answer set, mistakes", "answer"),
    ("response JSON (routes._answer_json)", "_answer_json"),
    ("request validation (pydantic)", "pydantic"),
    ("FastAPI / starlette routing, middleware", "starlette"),
    ("FastAPI", "fastapi"),
    ("HTTP parsing (uvicorn: h11 / httptools)", "uvicorn"),
    ("event loop, threads (asyncio / uvloop / anyio)", "asyncio"),
    ("event loop, threads (asyncio / uvloop / anyio)", "anyio"),
    ("event loop, threads (asyncio / uvloop / anyio)", "threading"),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=int, default=20)
    parser.add_argument("--serve-args", default="")
    args = parser.parse_args()
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "RULESQA_LOG_QUESTIONS": "false"}
    server, base, _, _ = start_server(env, shlex.split(args.serve_args))
    bodies = gold_questions()
    done = threading.Event()
    asked = 0

    def client() -> None:
        nonlocal asked
        with httpx.Client(base_url=base, timeout=30) as c:
            while not done.is_set():
                c.post("/api/ask", json=bodies[asked % len(bodies)]).raise_for_status()
                asked += 1

    load = os.getloadavg()
    try:
        thread = threading.Thread(target=client)
        thread.start()
        time.sleep(1)
        with tempfile.TemporaryDirectory() as tmp:
            raw = Path(tmp) / "profile.txt"
            spy = Path(sys.executable).parent / "py-spy"
            subprocess.run([str(spy), "record", "--format", "raw", "--rate", "250", "--duration", str(args.seconds),
                            "--nonblocking", "--output", str(raw), "--pid", str(server.pid)], check=True,
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            stacks = raw.read_text().splitlines()
        done.set()
        thread.join()
    finally:
        stop(server)
    parts: collections.Counter = collections.Counter()
    total = 0
    for line in stacks:
        stack, _, count = line.rpartition(" ")
        n = int(count)
        total += n
        frames = stack.split(";")
        part = next((name for name, mark in PARTS if any(mark in f for f in frames)), "other")
        parts[part] += n
    print(f"{asked} questions asked by one client over {args.seconds} s; {total} busy samples at 250/s; "
          f"{os.cpu_count()} cores, 1-min load average at the start {load[0]:.2f}\n")
    print("| part | share of busy samples |\n|---|---:|")
    for name, n in parts.most_common():
        print(f"| {name} | {100 * n / total:.1f} % |")


if __name__ == "__main__":
    main()
