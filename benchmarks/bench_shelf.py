"""Benchmark of a shop's whole shelf (issue 14): N generated look-alike games, built, served, measured.

1. generates N games (benchmarks/shelf.py) into a temporary folder and builds their index;
2. starts the service on it in its own process (`--serve`), and measures start-up to /health and RSS;
3. over HTTP: routing of questions naming the game with one typo (some by an English alias), routing of
   questions naming no game (routed, or "précisez le jeu" with 3 games), /api/ask and /api/games?q= p50;
4. in process: search cost within one game and across the shelf (encoding excluded);
5. adds one game of 200 passages (`update_game`) and reloads the service while 2 clients keep asking,
   counting failed requests;
6. with --vectors M: M synthetic unit vectors (float16, the model's 384 dimensions, games of 200) in
   their own process: IVF-SQ8 build, search within one game and across the shelf, RSS;
7. with --server-passages N: a whole index folder of about N passages (generated games, real passages
   and BM25, random unit vectors under e5's name), served by the real server with e5 encoding the
   questions: start-up, RSS after start and after the questions, /api/ask p50 within a game and across
   the shelf. `--keep DIR` keeps the generated corpus and index there and reuses them.

Vectors: `HashingEmbedder` (bag-of-stems hashing, 384 dimensions), not e5: encoding 175,000 passages with
e5 takes about an hour here; routing by name does not read vectors, and search cost does not depend on
what the vectors mean. Prints Markdown tables; not a test.

    python -m benchmarks.bench_shelf --games 1000 [--vectors 1000000]
    python -m benchmarks.bench_shelf --games 0 --server-passages 1000000 [--keep DIR]
"""

from __future__ import annotations

import argparse
import math
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import httpx
import numpy as np

from benchmarks.shelf import HashingEmbedder, generate, named_questions

REPO = Path(__file__).resolve().parents[1]
TOKEN = "bench-shelf-reload-token-0123456789"


def p50(values: list[float]) -> float:
    return statistics.median(values)


def rss_mib(pid: int) -> float:
    import psutil

    return psutil.Process(pid).memory_info().rss / 2**20


def memory_status(pid: int) -> dict[str, float]:
    """MiB from /proc: RSS split into anonymous memory and pages of mapped files (the memory-mapped index
    files, which the kernel can drop and read again), and the peak RSS since the process started."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        name, _, value = line.partition(":")
        if name in ("VmRSS", "RssAnon", "RssFile", "RssShmem", "VmHWM"):
            fields[name] = int(value.split()[0]) / 1024
    return fields


# ---------- the service, in its own process ----------


def serve(index: Path, port: int, e5_questions: bool = False) -> None:
    """The service as `rulesqa serve` starts it (index read while the model loads, service/runtime/startup.py),
    except that questions are encoded by the hashing embedder the index was built with: e5 is loaded and
    kept (its time and memory count), not used. With `e5_questions` (an index built under e5's name), e5
    encodes the questions, as in a real server."""
    import uvicorn

    from service.runtime.answerers import build_answerer
    from service.web.app import create_app
    from service.runtime.settings import Settings, load_settings
    from service.runtime.startup import load_index_and_model

    loaded = []

    def make_embedder():
        try:
            e5 = load_settings().embedder()
            e5.encode_queries(["une question"])
            loaded.append(e5)
        except Exception as exc:  # no model folder: the start is then the index's alone
            if e5_questions:
                raise
            print(f"e5 non chargé : {exc}", file=sys.stderr)
        return loaded[0] if e5_questions else HashingEmbedder()

    data, embedder = load_index_and_model(index, make_embedder)
    settings = Settings(index_dir=index, reload_token=TOKEN, build_index_if_missing=False)
    answerer = build_answerer(settings, data=data, embedder=embedder)
    uvicorn.run(create_app(settings, answerer), host="127.0.0.1", port=port, log_level="warning", access_log=False)


def start_server(index: Path, e5_questions: bool = False) -> tuple[subprocess.Popen, str, float]:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    started = time.perf_counter()
    proc = subprocess.Popen([sys.executable, "-m", "benchmarks.bench_shelf", "--serve", str(index),
                             "--port", str(port), *(["--e5-questions"] if e5_questions else [])],
                            env={**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"})
    url = f"http://127.0.0.1:{port}"
    while True:
        try:
            if httpx.get(f"{url}/health", timeout=1).status_code == 200:
                return proc, url, time.perf_counter() - started
        except httpx.HTTPError:
            pass
        if proc.poll() is not None:
            raise SystemExit("le serveur s'est arrêté au démarrage")
        time.sleep(0.05)


# ---------- measurements ----------


def routing_named(client: httpx.Client, games, n: int, with_typo: bool) -> tuple[dict, float, list[str]]:
    """Shares of questions routed to the right game, asked back ("précisez le jeu") and routed wrong."""
    questions = named_questions(games, n, with_typo=with_typo)
    counts, latencies, misses = {"right": 0, "asked": 0, "wrong": 0}, [], []
    for question, expected in questions:
        t = time.perf_counter()
        body = client.post("/api/ask", json={"question": question}).json()
        latencies.append((time.perf_counter() - t) * 1000)
        got = body["game"]["id"] if body.get("game") else None
        asked = (body.get("refusal") or {}).get("reason") == "ambiguous_game"
        counts["right" if got == expected else "asked" if asked else "wrong"] += 1
        if got != expected and len(misses) < 5:
            misses.append(f"{question!r} -> {got or 'précisez'} (attendu {expected})")
    return {k: v / len(questions) for k, v in counts.items()}, p50(latencies), misses


def routing_unnamed(client: httpx.Client, index: Path, n: int) -> dict[str, float]:
    """Questions made of a passage's words, naming no game: routed right, asked back with the right game
    among the 3, or wrong."""
    from indexer import store

    data = store.load(index)
    rng = random.Random(3)
    outcome = {"routed, right game": 0, "routed, wrong game": 0, "« précisez le jeu », right game among 3": 0,
               "« précisez le jeu », right game not among 3": 0, "no game": 0}
    for _ in range(n):
        p = rng.choice(data.passages)
        words = p.text.split()
        question = " ".join(words[: min(len(words), 14)]).rstrip(" .?") + " ?"
        body = client.post("/api/ask", json={"question": question}).json()
        refusal = body.get("refusal") or {}
        if body.get("game") and body["game_detected"]:
            outcome["routed, right game" if body["game"]["id"] == p.game else "routed, wrong game"] += 1
        elif refusal.get("reason") == "ambiguous_game":
            among = p.game in [g["id"] for g in refusal["games"]]
            outcome["« précisez le jeu », right game among 3" if among else "« précisez le jeu », right game not among 3"] += 1
        else:
            outcome["no game"] += 1
    return {k: v / n for k, v in outcome.items()}


def search_costs(index: Path, n: int, embedder=None) -> dict[str, float]:
    """p50 of score + rank within a question's game and across the shelf, questions encoded beforehand by
    `embedder` (the index's; the hashing one by default)."""
    from service.engine.question import Question
    from service.engine.retrieval.single import SingleIndexRetriever as Retriever

    embedder = embedder or HashingEmbedder()
    retriever = Retriever.load(index, embedder)
    rng = random.Random(5)
    samples = [rng.choice(retriever.passages) for _ in range(n)]
    questions = [" ".join(p.text.split()[:10]) for p in samples]
    vectors = {q: v for q, v in zip(questions, embedder.encode_queries(questions))}
    retriever.embedder = type("Cached", (), {"encode_queries": lambda self, qs: np.stack([vectors[q] for q in qs])})()
    within, across = [], []
    for q, p in zip(questions, samples):
        t = time.perf_counter()
        retriever.rank(retriever.score(Question.of(q), p.game), p.game, 5)
        within.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        retriever.rank(retriever.score(Question.of(q)), None, 5)
        across.append((time.perf_counter() - t) * 1000)
    return {"within": p50(within), "across": p50(across), "kind": retriever.manifest.dense_index}


def incremental_add(url: str, index: Path, corpus: Path, work: Path) -> dict[str, object]:
    from indexer.update_game import update_game

    extra = work / "extra"
    new = generate(1, extra, seed=99, min_passages=200, max_passages=200)[0]
    game_id = "jeu-ajoute"
    text = (extra / f"{new.id}.md").read_text("utf-8").replace(f"id: {new.id}", f"id: {game_id}")
    (corpus / f"{game_id}.md").write_text(text, "utf-8")
    stop, failures, done = threading.Event(), [], [0]

    def hammer(seed: int):
        rng = random.Random(seed)
        with httpx.Client(base_url=url, timeout=30) as client:
            while not stop.is_set():
                game = rng.choice([None, "jeu-00001", "jeu-00002"])
                r = client.post("/api/ask", json={"question": "comment se termine la partie ?", "game": game})
                done[0] += 1
                if r.status_code != 200:
                    failures.append(r.status_code)

    threads = [threading.Thread(target=hammer, args=(s,)) for s in (1, 2)]
    for t in threads:
        t.start()
    time.sleep(1)
    t0 = time.perf_counter()
    result = update_game(index, HashingEmbedder(), game_id, corpus)
    built = time.perf_counter() - t0
    r = httpx.post(f"{url}/api/admin/reload", headers={"authorization": f"Bearer {TOKEN}"}, timeout=120)
    total = time.perf_counter() - t0
    time.sleep(1)
    stop.set()
    for t in threads:
        t.join()
    found = httpx.get(f"{url}/api/games", params={"q": new.title, "limit": 3}).json()["games"]
    routed = httpx.post(f"{url}/api/ask", json={"question": f"Dans {new.title}, qui commence ?"}).json()
    return {"passages": result.added, "update_s": built, "update_and_reload_s": total, "reload_status": r.status_code,
            "requests": done[0], "failed": len(failures),
            "found_by_title": bool(found) and found[0]["id"] == game_id,
            "routed_by_title": (routed.get("game") or {}).get("id") == game_id}


def e5_load_seconds() -> float | None:
    """Loading the real e5 model (ONNX) and encoding one question, in its own process: what a real start
    adds to the index load measured with hashing vectors. None when the model folder is not built."""
    code = ("import time; t = time.perf_counter(); from service.runtime.settings import load_settings; "
            "e = load_settings().embedder(); e.encode_queries(['une question']); print(time.perf_counter() - t)")
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env={**os.environ, "PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"})
    return float(run.stdout.split()[-1]) if run.returncode == 0 and run.stdout.strip() else None


# ---------- 1,000,000 synthetic vectors ----------


def vectors_worker(n: int, work: Path) -> None:
    """Build (float16 vectors + IVF-SQ8), then search as the service would; prints one line of figures."""
    import faiss

    from indexer.build import dense_index
    from service.engine.retrieval.single import CANDIDATES, NPROBE, SHELF_SEARCH_GAMES

    dim, per_game = 384, 200
    path = work / "vectors.npy"
    if not path.exists():
        rng = np.random.default_rng(1)
        out = np.lib.format.open_memmap(path, mode="w+", dtype=np.float16, shape=(n, dim))
        for start in range(0, n, 100_000):
            block = rng.standard_normal((min(100_000, n - start), dim)).astype(np.float32)
            out[start : start + len(block)] = block / np.linalg.norm(block, axis=1, keepdims=True)
        out.flush()
        del out
        t = time.perf_counter()
        index, kind = dense_index(np.load(path, mmap_mode="r"))
        faiss.write_index(index, str(work / "dense.faiss"))
        print(f"build {time.perf_counter() - t:.1f} {kind}", flush=True)
        return
    vectors = np.load(path, mmap_mode="r")
    index = faiss.read_index(str(work / "dense.faiss"))
    faiss.extract_index_ivf(index).nprobe = NPROBE
    rng = np.random.default_rng(2)
    queries = rng.standard_normal((200, dim)).astype(np.float32)
    queries /= np.linalg.norm(queries, axis=1, keepdims=True)
    games = n // per_game
    within, across = [], []
    for q in queries:
        g = int(rng.integers(games))
        t = time.perf_counter()
        cosines = np.asarray(vectors[g * per_game : (g + 1) * per_game], dtype=np.float32) @ q
        np.argsort(-cosines, kind="stable")[:CANDIDATES]
        within.append((time.perf_counter() - t) * 1000)
        t = time.perf_counter()
        index.search(q[None, :], CANDIDATES * SHELF_SEARCH_GAMES)
        across.append((time.perf_counter() - t) * 1000)
    print(f"search {p50(within):.3f} {p50(across):.3f} {rss_mib(os.getpid()):.0f}", flush=True)


def million(n: int, work: Path) -> dict[str, str]:
    run = [sys.executable, "-m", "benchmarks.bench_shelf", "--vectors-worker", str(n), "--work", str(work)]
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    build = subprocess.run(run, capture_output=True, text=True, env=env, check=True).stdout.split()
    search = subprocess.run(run, capture_output=True, text=True, env=env, check=True).stdout.split()
    return {"build_s": build[1], "kind": build[2], "within": search[1], "across": search[2], "rss": search[3]}


# ---------- a whole server over about a million passages ----------


class RandomVectors:
    """Random unit vectors under e5's name (model id, fingerprint, dimension): the index is then served with
    e5 encoding the questions, while no passage is encoded (e5 would take about 5 hours for a million here,
    58 passages/s, PERFORMANCE.md). Search cost and memory do not depend on what the vectors mean."""

    def __init__(self, e5):
        self.model_id, self.dim, self._fingerprint = e5.model_id, e5.dim, e5.fingerprint()
        self._rng = np.random.default_rng(1)

    def fingerprint(self) -> str:
        return self._fingerprint

    def encode_passages(self, texts: list[str]) -> np.ndarray:
        vectors = self._rng.standard_normal((len(texts), self.dim)).astype(np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)


def whole_server(n: int, work: Path, questions: int) -> dict[str, object]:
    """Generate about `n` passages of games (reused from `work` when there), build their index (reused when
    it reads), serve it with e5 and ask `questions` questions within a game and as many across the shelf."""
    from indexer import store
    from indexer.build import build_index
    from indexer.errors import IndexMismatchError
    from service.runtime.settings import load_settings

    corpus, index = work / "corpus", work / "index"
    out: dict[str, object] = {}
    if not corpus.is_dir():
        t = time.perf_counter()
        generate(math.ceil(n / 172), corpus)  # 50 to 300 passages a game, 174 on average: a little over n
        out["generation_s"] = time.perf_counter() - t
    e5 = load_settings().embedder()
    try:
        store.read_manifest(index)
    except IndexMismatchError:
        t = time.perf_counter()
        build_index(corpus, index, RandomVectors(e5), progress=False)
        out["build_s"] = time.perf_counter() - t
    manifest = store.read_manifest(index)
    out["passages"], out["games"], out["kind"] = manifest.corpus.passages, manifest.corpus.games, manifest.dense_index
    # Questions made of a passage's first words, asked with its game and without any.
    data = store.load(index)
    rng = random.Random(11)
    samples = [data.passages[rng.randrange(len(data.passages))] for _ in range(questions)]
    asked = [(" ".join(p.text.split()[:12]).rstrip(" .?") + " ?", p.game) for p in samples]
    del data, samples
    proc, url, start = start_server(index, e5_questions=True)
    try:
        out["start_s"] = start
        out["after_start"] = memory_status(proc.pid)
        within, across = [], []
        with httpx.Client(base_url=url, timeout=60) as client:
            for question, game in asked:
                for body, times in (({"question": question, "game": game}, within), ({"question": question}, across)):
                    t = time.perf_counter()
                    r = client.post("/api/ask", json=body)
                    times.append((time.perf_counter() - t) * 1000)
                    r.raise_for_status()
        out["within_ms"], out["across_ms"] = p50(within), p50(across)
        out["after_questions"] = memory_status(proc.pid)
    finally:
        proc.terminate()
        proc.wait()
    out["search"] = search_costs(index, questions, e5)  # in this process, once the server is gone
    return out


# ---------- main ----------


def shelf(args, work: Path) -> None:
    """Steps 1 to 5 over `args.games` generated games; prints their tables."""
    from indexer.build import build_index

    corpus, index = work / "corpus", work / "index"
    t = time.perf_counter()
    games = generate(args.games, corpus)
    generated = time.perf_counter() - t
    t = time.perf_counter()
    result = build_index(corpus, index, HashingEmbedder(), progress=False)
    built = time.perf_counter() - t
    passages = result.manifest.corpus.passages
    proc, url, start = start_server(index)
    try:
        rss_start = rss_mib(proc.pid)
        with httpx.Client(base_url=url, timeout=30) as client:
            typo, ask_ms, misses = routing_named(client, games, args.questions, with_typo=True)
            exact, _, _ = routing_named(client, games, args.questions // 2, with_typo=False)
            unnamed = routing_unnamed(client, index, min(300, args.questions))
            search_ms = []
            for q in ("kar", "lo", "tosnor", "dravi junior", "karouba"):
                t = time.perf_counter()
                client.get("/api/games", params={"q": q, "limit": 8})
                search_ms.append((time.perf_counter() - t) * 1000)
        costs = search_costs(index, 300)
        rss_runs = rss_mib(proc.pid)
        add = incremental_add(url, index, corpus, work)
    finally:
        proc.terminate()
        proc.wait()
    e5 = e5_load_seconds()
    print(f"\n## Shelf of {args.games} games ({passages} passages, hashing vectors), 2 cores\n")
    print("| measure | value |\n|---|---:|")
    rows = [
        ("corpus generation", f"{generated:.1f} s"),
        (f"full build ({result.manifest.dense_index})", f"{built:.1f} s"),
        ("start-up to /health 200 (index read while e5 loads)", f"{start:.2f} s"),
        ("e5 model load + first question, alone in its own process", f"{e5:.2f} s" if e5 else "e5 not built"),
        ("routing, title or English alias with one typo (HTTP): right / asked back / wrong",
         f"{typo['right']:.3f} / {typo['asked']:.3f} / {typo['wrong']:.3f} ({args.questions} questions)"),
        ("routing, exact title or alias (HTTP): right / asked back / wrong",
         f"{exact['right']:.3f} / {exact['asked']:.3f} / {exact['wrong']:.3f}"),
        ("POST /api/ask p50, game named with a typo", f"{ask_ms:.1f} ms"),
        ("GET /api/games?q= p50", f"{p50(search_ms):.1f} ms"),
        ("search within one game p50 (score + rank, encoding excluded)", f"{costs['within']:.2f} ms"),
        ("search across the shelf p50 (score + rank, encoding excluded)", f"{costs['across']:.2f} ms"),
        ("server RSS after start / after the runs (e5 loaded)", f"{rss_start:.0f} / {rss_runs:.0f} MiB"),
        (f"add one game of {add['passages']} passages: update_game / + reload",
         f"{add['update_s']:.1f} / {add['update_and_reload_s']:.1f} s"),
        ("requests during the add (2 clients) / failed", f"{add['requests']} / {add['failed']}"),
        ("new game found by /api/games?q= / routed by title", f"{add['found_by_title']} / {add['routed_by_title']}"),
    ]
    for name, value in rows:
        print(f"| {name} | {value} |")
    print("\nQuestions naming no game (passage words as the question):\n")
    print("| outcome | share |\n|---|---:|")
    for name, share in unnamed.items():
        print(f"| {name} | {share:.3f} |")
    if misses:
        print("\nMisrouted (first 5): " + "; ".join(misses))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100, help="games of the shelf measured (0: none)")
    parser.add_argument("--questions", type=int, default=1000)
    parser.add_argument("--vectors", type=int, default=0, help="also measure this many synthetic vectors")
    parser.add_argument("--server-passages", type=int, default=0,
                        help="also serve a whole index of about this many passages (random vectors)")
    parser.add_argument("--keep", type=Path, help="keep (and reuse) the --server-passages corpus and index here")
    parser.add_argument("--serve", type=Path, help=argparse.SUPPRESS)
    parser.add_argument("--port", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--e5-questions", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--vectors-worker", type=int, help=argparse.SUPPRESS)
    parser.add_argument("--work", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        return serve(args.serve, args.port, args.e5_questions)
    if args.vectors_worker:
        return vectors_worker(args.vectors_worker, args.work)

    work = Path(tempfile.mkdtemp(prefix="rulesqa-shelf-"))
    try:
        if args.games:
            shelf(args, work)
        if args.vectors:
            m = million(args.vectors, work)
            print(f"\n## {args.vectors:,} synthetic vectors (float16, 384 d, games of 200), 2 cores\n")
            print("| measure | value |\n|---|---:|")
            print(f"| build {m['kind']} | {m['build_s']} s |")
            print(f"| search within one game p50 (float16 slice, exact) | {m['within']} ms |")
            print(f"| search across the shelf p50 (IVF-SQ8) | {m['across']} ms |")
            print(f"| process RSS (vectors memory-mapped + IVF-SQ8) | {m['rss']} MiB |")
        if args.server_passages:
            w = whole_server(args.server_passages, args.keep or work / "server", min(300, args.questions))
            print(f"\n## A whole server over {w['passages']:,} passages ({w['games']:,} games), 2 cores\n")
            print("Passages and BM25 real (generated games), vectors random unit vectors under e5's name (not "
                  "encoded: about 5 h with e5 here); e5 encodes the questions.\n")
            print("| measure | value |\n|---|---:|")
            if "generation_s" in w:
                print(f"| corpus generation | {w['generation_s']:.1f} s |")
            if "build_s" in w:
                print(f"| full build ({w['kind']}, vectors not encoded) | {w['build_s']:.1f} s |")
            print(f"| start-up to /health 200 (index read while e5 loads) | {w['start_s']:.2f} s |")
            for when in ("after_start", "after_questions"):
                m = w[when]
                print(f"| server RSS {when.replace('_', ' ')}: total (anonymous + mapped files) | "
                      f"{m['VmRSS']:.0f} MiB ({m['RssAnon']:.0f} + {m['RssFile']:.0f}) |")
            print(f"| server peak RSS (VmHWM) | {w['after_questions']['VmHWM']:.0f} MiB |")
            print(f"| POST /api/ask p50, game given (e5 encoding included) | {w['within_ms']:.1f} ms |")
            print(f"| POST /api/ask p50, no game (shelf-wide routing, e5 encoding included) | {w['across_ms']:.1f} ms |")
            print(f"| search within one game p50 (score + rank, encoding excluded) | {w['search']['within']:.2f} ms |")
            print(f"| search across the shelf p50 (score + rank, encoding excluded) | {w['search']['across']:.2f} ms |")
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
