"""The model room's families side by side, in one run: fidelity of the served graph to the float32 model, the
served pipeline's dev hit@1 with each, one question's encoding time, indexing speed and a process's memory.

    HF_HUB_OFFLINE=1 .venv/bin/python -m benchmarks.bench_models [--models e5-small embeddinggemma] [--rounds 3]

For each model (built first if needed, so EmbeddingGemma is fetched on first use):
- fidelity: every gold question (dev and test, with the query prompt) and every corpus passage (in the model's
  passage form) encoded by the served ONNX graph and by the float32 sentence-transformers model; mean and
  minimum cosine;
- dev hit@1, dense and hybrid, of the whole served pipeline with the family's calibration, the corpus indexed by
  each of the two (the quantisation's cost in answers, not only in cosines);
- one question: its encoding alone (tokenizer + graph), p50 / p95 over the gold questions × rounds, 2 threads;
- indexing: passages encoded per second (the corpus's passages, batches of the index build);
- memory: a child process that loads the served model and encodes the gold questions: RSS after loading and
  after encoding.
Prints Markdown tables; not a test. The served service (HTTP, 8 clients, start-up) is bench_service.py's.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from eval.gold import load_questions
from eval.metrics import percentile

REPO = Path(__file__).resolve().parents[1]
MODELS = ("e5-small", "rules-fr", "embeddinggemma")


def rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def gold_texts() -> list[str]:
    return [q.question for split in ("dev", "test") for q in load_questions(split)]


def passage_texts(embedder, corpus: Path) -> list[str]:
    from indexer.passages import load_passages
    from indexer.passage_text import embedding_text

    docs, passages = load_passages(corpus)
    games = {d.game.id: d.game for d in docs}
    return [embedding_text(p, games[p.game], embedder.passage_form) for p in passages]


def cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1)


def fidelity(lean, reference, questions: list[str], passages: list[str]) -> dict:
    q = cosines(lean.encode_queries(questions), reference.encode_queries(questions))
    p = cosines(lean.encode_passages(passages), reference.encode_passages(passages))
    both = np.concatenate([q, p])
    return {"texts": len(both), "mean": float(both.mean()), "min": float(both.min())}


def dev_hits(embedder, settings, work: Path) -> dict:
    """Dense and hybrid hit@1 on dev of the served pipeline, the corpus indexed by `embedder`, answered with
    the family's shipped calibration."""
    from eval.run import run_eval
    from indexer.build import build_index
    from service.engine.calibration import load as load_calibration
    from service.runtime.answerers import build_answerer

    index = work / f"index-{embedder.backend}"
    build_index(settings.corpus_dir, index, embedder, progress=False)
    here = settings.model_copy(update={"index_dir": index})
    answerer = build_answerer(here, embedder=embedder, reranker=None,
                              calibration=load_calibration(embedder.model_id, None))
    result = run_eval(answerer, load_questions("dev"), modes=("dense", "hybrid"))
    return {mode: result["results"][mode]["overall"]["hit@1"] for mode in ("dense", "hybrid")}


def one_question_ms(embedder, questions: list[str], rounds: int) -> tuple[float, float]:
    for q in questions[:20]:
        embedder.encode_queries([q])
    times = []
    for _ in range(rounds):
        for q in questions:
            t = time.perf_counter()
            embedder.encode_queries([q])
            times.append((time.perf_counter() - t) * 1000)
    return statistics.median(times), percentile(times, 95)


def passages_per_s(embedder, passages: list[str]) -> float:
    from indexer.build import BATCH, chunks

    embedder.encode_passages(passages[:BATCH])
    t = time.perf_counter()
    for chunk in chunks(len(passages)):
        embedder.encode_passages(passages[chunk.start:chunk.stop])
    return len(passages) / (time.perf_counter() - t)


def memory_child(name: str) -> None:
    """Child process: load the served model, then encode every gold question once; print the RSS after each."""
    from indexer.models import load_embedder
    from service.runtime.settings import load_settings

    settings = load_settings()
    start = time.perf_counter()
    embedder = load_embedder(name, models_dir=settings.models_dir, threads=settings.threads, progress=False)
    loaded, seconds = rss_mib(), time.perf_counter() - start
    for q in gold_texts():
        embedder.encode_queries([q])
    print(json.dumps({"loaded": loaded, "after": rss_mib(), "load_s": seconds}), flush=True)


def measure(name: str, rounds: int) -> dict:
    """One family's row; the float32 columns stay empty for a family without a float32 model (rules-fr: its
    deltas exist only composed with the 4-bit base, whose fidelity is e5-small's)."""
    from indexer.errors import ModelError
    from indexer.models import get_family, load_embedder
    from service.runtime.settings import load_settings

    settings = load_settings()
    family = get_family(name)
    lean = load_embedder(name, models_dir=settings.models_dir, threads=settings.threads)
    try:
        reference = load_embedder(name, models_dir=settings.models_dir, threads=settings.threads, backend="torch")
    except ModelError:
        reference = None
    questions, passages = gold_texts(), passage_texts(lean, settings.corpus_dir)
    row = {"model": family.model_id, "fidelity": reference and fidelity(lean, reference, questions, passages)}
    with tempfile.TemporaryDirectory(prefix="rulesqa-bench-models-") as tmp:
        row["dev_lean"] = dev_hits(lean, settings, Path(tmp))
        row["dev_float32"] = reference and dev_hits(reference, settings, Path(tmp))
    row["p50"], row["p95"] = one_question_ms(lean, questions, rounds)
    row["float32"] = reference and one_question_ms(reference, questions[:100], 1)
    row["passages_per_s"] = passages_per_s(lean, passages * 4)
    del reference
    child = subprocess.run([sys.executable, "-m", "benchmarks.bench_models", "--memory-child", name], cwd=REPO,
                           capture_output=True, text=True, check=True, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    row["memory"] = json.loads(child.stdout.strip().splitlines()[-1])
    row["folder_mb"] = sum(f.stat().st_size for f in Path(lean.path).rglob("*") if f.is_file()) / 1e6
    return row


def report(rows: list[dict]) -> str:
    lines = ["| model | served folder | fidelity to float32 (mean / min cosine, texts) | dev hit@1 dense: served / "
             "float32 | dev hit@1 hybrid: served / float32 | one question p50 / p95 (float32 torch) | indexing | "
             "RSS loaded / after the questions | load |",
             "|---|---:|---|---|---|---|---:|---|---:|"]
    for r in rows:
        f, m, ref, torch_ms = r["fidelity"], r["memory"], r["dev_float32"] or {}, r["float32"]
        fid = f"{f['mean']:.5f} / {f['min']:.5f} ({f['texts']})" if f else "— (no float32 model)"
        torch_part = f" ({torch_ms[0]:.0f} / {torch_ms[1]:.0f} ms)" if torch_ms else ""
        lines.append(
            f"| {r['model']} | {r['folder_mb']:.0f} MB | {fid} | "
            f"{r['dev_lean']['dense']:.3f} / {_f(ref.get('dense'))} | "
            f"{r['dev_lean']['hybrid']:.3f} / {_f(ref.get('hybrid'))} | "
            f"{r['p50']:.1f} / {r['p95']:.1f} ms{torch_part} | "
            f"{r['passages_per_s']:.1f} passages/s | {m['loaded']:.0f} / {m['after']:.0f} MiB | {m['load_s']:.1f} s |")
    return "\n".join(lines)


def _f(value) -> str:
    return "—" if value is None else f"{value:.3f}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--models", nargs="+", default=list(MODELS))
    parser.add_argument("--rounds", type=int, default=3, help="passes over the gold questions for the latency")
    parser.add_argument("--memory-child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.memory_child:
        memory_child(args.memory_child)
        return
    load = os.getloadavg()[0]
    rows = [measure(name, args.rounds) for name in args.models]
    print(f"{os.cpu_count()} cores, 1-min load average at the start {load:.2f}, 2 threads per inference\n")
    print(report(rows))


if __name__ == "__main__":
    main()
