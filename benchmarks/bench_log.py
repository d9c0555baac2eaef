"""Benchmark of the questions log (issue 15): what logging costs an answer, whether rows are lost under load,
and whether a database that stops accepting writes mid-run fails any answer.

Starts `rulesqa serve` (existing model and index; set RULESQA_INDEX_DIR / RULESQA_MODELS_DIR as for
bench_service.py) with logging off and on, each with its own SQLite file in a temporary folder, then:
1. one client, the gold questions in alternating blocks on the two servers: p50 / p95 with and without;
2. 8 keep-alive clients for --seconds against the logging server, then the server is stopped (it flushes)
   and the rows are counted against the answers given;
3. 8 clients again on a fresh database which, after a third of the run, is made unwritable: SQLite locked
   by another process (BEGIN EXCLUSIVE held to the end) and, when Debian's PostgreSQL is installed, a
   PostgreSQL database switched to read-only (default_transaction_read_only, sessions terminated).
Prints a Markdown table; not a test. A separate file from bench_service.py, which is rewritten elsewhere.

    HF_HUB_OFFLINE=1 .venv/bin/python -m benchmarks.bench_log [--seconds 30] [--rounds 3]
"""

import argparse
import os
import shutil
import sqlite3
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx

from benchmarks.bench_service import gold_questions
from eval.metrics import percentile
from testbed.ports import free_port

REPO = Path(__file__).resolve().parents[1]


class Server:
    def __init__(self, env: dict):
        self.port = free_port()
        self.base = f"http://127.0.0.1:{self.port}"
        # stderr to a file: one access-log line per request would fill a pipe and stall the server.
        self.log = tempfile.TemporaryFile(mode="w+", encoding="utf-8")
        self.proc = subprocess.Popen([sys.executable, "-m", "rulesqa", "serve", "--port", str(self.port)],
                                     stdout=subprocess.DEVNULL, stderr=self.log,
                                     env={**os.environ, "HF_HUB_OFFLINE": "1", **env}, cwd=REPO)

    def stderr(self) -> str:
        self.log.seek(0)
        return self.log.read()

    def wait(self) -> "Server":
        deadline = time.monotonic() + 600
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise SystemExit(f"server exited: {self.stderr()[-2000:]}")
            try:
                if httpx.get(self.base + "/health", timeout=2).status_code == 200:
                    return self
            except httpx.TransportError:
                pass
            time.sleep(0.1)
        raise SystemExit("server did not start")

    def stop(self) -> str:
        self.proc.terminate()  # uvicorn runs the lifespan's end: the writer flushes its queue
        self.proc.wait(timeout=60)
        return self.stderr()


def load(base: str, bodies: list[dict], clients: int, seconds: float, at=None) -> tuple[int, int]:
    """(answers, failed) from `clients` keep-alive clients cycling over the bodies for `seconds`;
    `at` = (delay, action) runs action once after delay seconds."""
    stop = time.monotonic() + seconds
    counts = {"ok": 0, "failed": 0}
    lock = threading.Lock()

    def client(offset: int) -> None:
        ok = failed = 0
        i = offset
        with httpx.Client(base_url=base, timeout=30) as c:
            while time.monotonic() < stop:
                try:
                    r = c.post("/api/ask", json={**bodies[i % len(bodies)], "client": "api"})
                    ok += r.status_code == 200 and bool(r.json().get("ask_id"))
                    failed += r.status_code != 200
                except httpx.HTTPError:
                    failed += 1
                i += clients
        with lock:
            counts["ok"] += ok
            counts["failed"] += failed

    threads = [threading.Thread(target=client, args=(k,)) for k in range(clients)]
    timer = threading.Timer(at[0], at[1]) if at else None
    for t in threads:
        t.start()
    if timer:
        timer.start()
    for t in threads:
        t.join()
    if timer:
        timer.join()
    return counts["ok"], counts["failed"]


def rows(url: str) -> int:
    from service.questions_log.store import Store

    store = Store(url).open()
    try:
        return store.count()
    finally:
        store.close()


def overhead(off: Server, on: Server, bodies: list[dict], rounds: int) -> dict:
    times = {"off": [], "on": []}
    with httpx.Client(base_url=off.base, timeout=30) as a, httpx.Client(base_url=on.base, timeout=30) as b:
        for client in (a, b):
            for body in bodies[:20]:
                client.post("/api/ask", json=body).raise_for_status()
        for _ in range(rounds):
            for name, client in (("off", a), ("on", b)):
                for body in bodies:
                    t = time.perf_counter()
                    client.post("/api/ask", json=body).raise_for_status()
                    times[name].append((time.perf_counter() - t) * 1000)
    return times


def request_path_cost(tmp: Path, n: int = 20000) -> list[float]:
    """Microseconds the answer spends in logging: service.questions_log.recorder.record (id, record, queue put),
    with the real writer thread writing the rows to SQLite meanwhile."""
    from service.questions_log.recorder import record
    from service.questions_log.store import Store
    from service.questions_log.writer import LogWriter
    from service.engine.answer import Answer, CitedPassage, GameRef, Quote

    passage = CitedPassage("karuba-1", "karuba", "Fin", [6], "texte", 0.9, "Karuba, livret p. 6", "p. 6")
    answer = Answer("Combien ?", GameRef("karuba", "Karuba"), False, True,
                    Quote("texte", "Karuba, livret p. 6", "karuba-1", ["karuba-1"]), "ok", [passage], None, None)
    writer = LogWriter(Store(f"sqlite:///{tmp / 'micro.db'}"), 90, max_queue=n).start()
    costs = []
    for _ in range(n):
        t = time.perf_counter()
        record(writer, answer, "karuba", 5.0, "api")
        costs.append((time.perf_counter() - t) * 1e6)
    writer.flush(60)
    writer.close()
    return costs


def failure_run(url: str, make_unwritable, bodies, seconds: float) -> tuple[int, int, str, int]:
    server = Server({"RULESQA_LOG_QUESTIONS": "true", "RULESQA_DATABASE_URL": url}).wait()
    try:
        answers, failed = load(server.base, bodies, 8, seconds, at=(seconds / 3, make_unwritable))
        state = httpx.get(server.base + "/health", timeout=10).json()["log"]
    finally:
        err = server.stop()
    return answers, failed, state, err.count("journal des questions indisponible")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=30)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    bodies = gold_questions()
    tmp = Path(tempfile.mkdtemp(prefix="rulesqa-bench-log-"))
    url = f"sqlite:///{tmp / 'load.db'}"
    off = Server({"RULESQA_LOG_QUESTIONS": "false"})
    on = Server({"RULESQA_LOG_QUESTIONS": "true", "RULESQA_DATABASE_URL": url})
    off.wait(), on.wait()
    try:
        times = overhead(off, on, bodies, args.rounds)
    finally:
        off.stop()
    before = rows(url)
    try:
        answers, failed = load(on.base, bodies, 8, args.seconds)
    finally:
        on.stop()
    lost = answers - (rows(url) - before)

    report = [f"| POST /api/ask p50, one client, log off / on | {statistics.median(times['off']):.2f} / "
              f"{statistics.median(times['on']):.2f} ms (overhead "
              f"{statistics.median(times['on']) - statistics.median(times['off']):+.2f} ms) |",
              f"| POST /api/ask p95, one client, log off / on | {percentile(times['off'], 95):.2f} / "
              f"{percentile(times['on'], 95):.2f} ms |",
              f"| 8 clients, {args.seconds:.0f} s, log on (SQLite) | {answers} answers, {failed} errors, "
              f"{lost} rows lost |"]

    locked_url = f"sqlite:///{tmp / 'locked.db'}"
    rows(locked_url)  # created, so that the lock below has a file to hold
    holder = {}

    def lock_it():
        holder["conn"] = sqlite3.connect(tmp / "locked.db", timeout=0, isolation_level=None, check_same_thread=False)
        holder["conn"].execute("BEGIN EXCLUSIVE")

    seconds = max(args.seconds / 2, 6)
    a, f, state, warnings = failure_run(locked_url, lock_it, bodies, seconds)
    holder["conn"].close()
    report.append(f"| 8 clients, {seconds:.0f} s, SQLite locked by another process after {seconds / 3:.0f} s | "
                  f"{a} answers, {f} failed; /health log {state}; {warnings} warning(s) |")

    report.extend(postgres_read_only(bodies, seconds))
    costs = request_path_cost(tmp)
    report.insert(0, f"| logging on the request path (record + queue put), in process, p50 / p99 | "
                     f"{statistics.median(costs):.1f} / {percentile(costs, 99):.1f} µs |")
    print(f"{len(bodies)} gold questions, {args.rounds} alternating blocks, loopback HTTP, {os.cpu_count()} cores, "
          f"load average {os.getloadavg()[0]:.2f}\n")
    print("| measure | value |\n|---|---:|")
    print("\n".join(report))
    shutil.rmtree(tmp, ignore_errors=True)


def postgres_read_only(bodies, seconds) -> list[str]:
    from testbed.pg import Cluster, pg_bin

    if pg_bin() is None:
        return ["| PostgreSQL made read-only mid-run | skipped: PostgreSQL not installed |"]
    import psycopg

    cluster = Cluster(pg_bin()).start()
    try:
        url = cluster.create_database("bench")

        def read_only():
            with psycopg.connect(host="127.0.0.1", port=cluster.port, user=cluster.user, dbname="postgres",
                                 autocommit=True) as conn:
                conn.execute("ALTER DATABASE bench SET default_transaction_read_only = on")
                conn.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = 'bench'")

        a, f, state, warnings = failure_run(url, read_only, bodies, seconds)
        return [f"| 8 clients, {seconds:.0f} s, PostgreSQL made read-only after {seconds / 3:.0f} s | "
                f"{a} answers, {f} failed; /health log {state}; {warnings} warning(s) |"]
    finally:
        cluster.stop()


if __name__ == "__main__":
    main()
