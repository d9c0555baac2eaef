"""EmbeddingGemma's ONNX graphs (indexer/models/gemma/graph.py) against the float32 sentence-transformers model.

    .venv/bin/python -m benchmarks.gemma_graph_fidelity /work/gemma/model_download var/gemma-graphs

Builds one graph per setting (weight bits, embedding bits, MatMulNBits accuracy level) and prints, for each:
the file size; the cosine to the float32 torch model (mean and minimum) over every question of
eval/questions/{dev,test}.jsonl, prompted as the model card says for a query, and every corpus passage, prompted
as a document with its game's title and section; the same over a few long texts (every passage of a game put
together, beyond the 257-token sliding window); one question's encode latency p50/p95 (tokenization included);
passages per second in batches of 16; and the RSS of a process holding the tokenizer and the session, right
after loading and after the passages. Each setting is measured in a fresh process, with 2 threads (intra_op 2,
inter_op 1, ORT_ENABLE_ALL), so that no setting's memory or warm caches leak into another's.

The machine's 2 cores may be shared: the script prints the load average before each measure.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
os.environ.setdefault("HF_HUB_OFFLINE", "1")

QUERY = "task: search result | query: {}"
DOCUMENT = "title: {} | text: {}"
BATCH = 16
THREADS = 2
# (weight_bits, embedding_bits, accuracy_level); 32 is the float32 MatMul reference (8-bit table).
SETTINGS = [(32, 8, 4), (8, 8, 4), (8, 8, 0), (8, 4, 4), (4, 8, 4), (4, 8, 0), (4, 4, 4)]
# Memory options tried on the recommended setting: session config entries (or the arena switch).
MEMORY_OPTIONS = {
    "default": {},
    "no arena": {"arena": "0"},
    "initializers off the arena": {"session.use_device_allocator_for_initializers": "1"},
    "no prepacking": {"session.disable_prepacking": "1"},
}


def texts() -> dict[str, list[str]]:
    """Questions (query prompt), passages (document prompt), and long texts (a game's passages together)."""
    from indexer.passages import load_passages

    questions = []
    for name in ("dev.jsonl", "test.jsonl"):
        for line in (ROOT / "eval" / "questions" / name).read_text(encoding="utf-8").splitlines():
            if line.strip():
                questions.append(QUERY.format(json.loads(line)["question"]))
    docs, passages = load_passages(ROOT / "corpus")
    titles = {doc.game.id: doc.game.title for doc in docs}

    def title(p):
        return f"{titles[p.game]} · {p.section}" if p.section else titles[p.game]

    long = [DOCUMENT.format(titles[g], "\n".join(p.text for p in passages if p.game == g)) for g in titles]
    return {"questions": questions, "passages": [DOCUMENT.format(title(p), p.text) for p in passages], "long": long}


def _digest(groups: dict[str, list[str]]) -> str:
    return hashlib.sha256(json.dumps(groups, ensure_ascii=False).encode()).hexdigest()[:16]


def reference(source: Path, groups: dict[str, list[str]], cache: Path) -> dict[str, np.ndarray]:
    """The float32 sentence-transformers embeddings of every group, cached beside the graphs; on a fresh
    computation, also checks that GemmaTokenizer gives the model tokenizer's ids and times torch on questions."""
    if cache.is_file():
        with np.load(cache) as z:
            if str(z["digest"]) == _digest(groups):
                return {k: z[k] for k in (*groups, "torch_ms") if k in z.files}
    import torch
    from sentence_transformers import SentenceTransformer

    from indexer.models.gemma.tokenizer import GemmaTokenizer

    torch.set_num_threads(THREADS)
    model = SentenceTransformer(str(source), device="cpu")
    ours = GemmaTokenizer.load(source)
    every = [t for group in groups.values() for t in group]
    theirs = model.tokenizer(every)["input_ids"]
    mismatches = sum(ours.token_ids(t) != list(ids) for t, ids in zip(every, theirs))
    print(f"tokenizer: {mismatches} texts of {len(every)} with other ids than sentence-transformers'")
    lengths = [len(ids) for ids in theirs[-len(groups['long']):]]
    print(f"long texts: {lengths} tokens")
    out = {k: model.encode(v, batch_size=BATCH, convert_to_numpy=True) for k, v in groups.items()}
    for q in groups["questions"][:5]:  # warm-up: torch's first calls allocate
        model.encode([q])
    times = []
    for q in groups["questions"][:50]:
        start = time.perf_counter()
        model.encode([q])
        times.append(time.perf_counter() - start)
    out["torch_ms"] = np.array([np.percentile(times, 50) * 1e3, np.percentile(times, 95) * 1e3])
    np.savez(cache, digest=_digest(groups), **out)
    return out


# ---- the child: one process per measure --------------------------------------------------------------------


def _rss_mib() -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


def _session(model: Path, options: dict[str, str]):
    import onnxruntime as ort

    opts = ort.SessionOptions()
    opts.intra_op_num_threads = THREADS
    opts.inter_op_num_threads = 1
    opts.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    for key, value in options.items():
        if key == "arena":
            opts.enable_cpu_mem_arena = value == "1"
        else:
            opts.add_session_config_entry(key, value)
    return ort.InferenceSession(str(model), sess_options=opts, providers=["CPUExecutionProvider"])


def _encode(session, tokenizer, batch: list[str]) -> np.ndarray:
    """Right-padded ids and mask for a batch, as OnnxEncoder pads (no truncation: these texts are short)."""
    seqs = [tokenizer.token_ids(t) for t in batch]
    width = max(len(s) for s in seqs)
    ids = np.full((len(seqs), width), tokenizer.pad, dtype=np.int64)
    mask = np.zeros((len(seqs), width), dtype=np.int64)
    for row, s in enumerate(seqs):
        ids[row, :len(s)] = s
        mask[row, :len(s)] = 1
    return session.run(None, {"input_ids": ids, "attention_mask": mask})[0]


def _encode_sorted(session, tokenizer, items: list[str]) -> np.ndarray:
    order = sorted(range(len(items)), key=lambda i: len(tokenizer.token_ids(items[i])))
    out = np.empty((len(items), session.get_outputs()[0].shape[1]), np.float32)
    for start in range(0, len(order), BATCH):
        idx = order[start:start + BATCH]
        out[idx] = _encode(session, tokenizer, [items[i] for i in idx])
    return out


def child(model: Path, source: Path, groups_file: Path, out: Path, options: dict[str, str]) -> None:
    from indexer.models.gemma.tokenizer import GemmaTokenizer

    groups = json.loads(groups_file.read_text(encoding="utf-8"))
    tokenizer = GemmaTokenizer.load(source)
    session = _session(model, options)
    loaded = _rss_mib()
    questions, passages = groups["questions"], groups["passages"]
    for q in questions[:5]:
        _encode(session, tokenizer, [q])
    times, q_emb = [], []
    for q in questions:
        start = time.perf_counter()
        q_emb.append(_encode(session, tokenizer, [q])[0])
        times.append(time.perf_counter() - start)
    start = time.perf_counter()
    p_emb = _encode_sorted(session, tokenizer, passages)
    rate = len(passages) / (time.perf_counter() - start)
    after = _rss_mib()
    long = np.concatenate([_encode(session, tokenizer, [t]) for t in groups["long"]])
    np.savez(out, questions=np.stack(q_emb), passages=p_emb, long=long)
    print(json.dumps({"p50_ms": float(np.percentile(times, 50) * 1e3), "p95_ms": float(np.percentile(times, 95) * 1e3),
                      "passages_per_s": rate, "rss_loaded_mib": loaded, "rss_after_mib": after}))


# ---- the parent --------------------------------------------------------------------------------------------


def _measure(model: Path, source: Path, groups_file: Path, options: dict[str, str]) -> tuple[dict, dict]:
    out = model.with_suffix(".emb.npz")
    cmd = [sys.executable, "-m", "benchmarks.gemma_graph_fidelity", "--child", str(model), str(source),
           str(groups_file), str(out), *[f"{k}={v}" for k, v in options.items()]]
    done = subprocess.run(cmd, capture_output=True, text=True, check=False, env={**os.environ, "PYTHONPATH": str(ROOT)})
    if done.returncode != 0:
        raise SystemExit(f"measure of {model.name} failed:\n{done.stderr[-3000:]}")
    stats = json.loads(done.stdout.strip().splitlines()[-1])
    with np.load(out) as z:
        return stats, {k: z[k] for k in z.files}


def _cosines(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return (a * b).sum(1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


def _name(weight_bits: int, embedding_bits: int, accuracy_level: int) -> str:
    return f"w{weight_bits}-e{embedding_bits}-a{accuracy_level}"


def _row(name: str, info: dict, stats: dict, emb: dict, ref: dict) -> str:
    short = np.concatenate([_cosines(emb[k], ref[k]) for k in ("questions", "passages")])
    long = _cosines(emb["long"], ref["long"])
    return (f"{name:<28} {info['file_bytes'] / 2**20:7.0f} {short.mean():9.6f} {short.min():9.6f} {long.min():9.6f} "
            f"{stats['p50_ms']:6.1f} {stats['p95_ms']:6.1f} {stats['passages_per_s']:7.1f} "
            f"{stats['rss_loaded_mib']:7.0f} {stats['rss_after_mib']:7.0f}")


HEADER = (f"{'setting':<28} {'MiB':>7} {'cos mean':>9} {'cos min':>9} {'long min':>9} {'p50':>6} {'p95':>6} "
          f"{'pass/s':>7} {'RSS ld':>7} {'RSS run':>7}")


def _load() -> str:
    return " ".join(f"{x:.2f}" for x in os.getloadavg())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("source", type=Path, help="the float32 sentence-transformers folder")
    parser.add_argument("out", type=Path, help="where the graphs (and the cached reference) go")
    parser.add_argument("--settings", nargs="*", default=None,
                        help="weight-embedding-accuracy triples such as 8-8-4 (default: a grid)")
    parser.add_argument("--memory", default=None, help="the setting whose memory options are compared, e.g. 8-8-4")
    parser.add_argument("--rebuild", action="store_true", help="build graphs even if the file exists")
    args = parser.parse_args()
    from indexer.models.gemma.graph import build_graph

    settings = [tuple(int(x) for x in s.split("-")) for s in args.settings] if args.settings else SETTINGS
    args.out.mkdir(parents=True, exist_ok=True)
    groups = texts()
    groups_file = args.out / "texts.json"
    groups_file.write_text(json.dumps(groups, ensure_ascii=False), encoding="utf-8")
    print(f"{len(groups['questions'])} questions, {len(groups['passages'])} passages, {len(groups['long'])} long texts")
    ref = reference(args.source, groups, args.out / "reference.npz")
    if "torch_ms" in ref:
        print(f"torch float32 (sentence-transformers encode), one question on {THREADS} threads: "
              f"p50 {ref['torch_ms'][0]:.0f} ms, p95 {ref['torch_ms'][1]:.0f} ms (measured with the reference)")
    rows = [HEADER]
    for w, e, a in settings:
        model = args.out / f"{_name(w, e, a)}.onnx"
        info_file = model.with_suffix(".json")
        if args.rebuild or not model.is_file() or not info_file.is_file():
            info_file.write_text(json.dumps(build_graph(args.source, model, weight_bits=w, embedding_bits=e,
                                                        accuracy_level=a)))
        info = json.loads(info_file.read_text())
        print(f"measuring {model.name} (load average {_load()})", flush=True)
        stats, emb = _measure(model, args.source, groups_file, {})
        rows.append(_row(_name(w, e, a), info, stats, emb, ref))
        print(rows[-1], flush=True)
    if args.memory:
        model = args.out / f"{_name(*(int(x) for x in args.memory.split('-')))}.onnx"
        info = json.loads(model.with_suffix(".json").read_text())
        for label, options in MEMORY_OPTIONS.items():
            print(f"measuring {model.name}, {label} (load average {_load()})", flush=True)
            stats, emb = _measure(model, args.source, groups_file, options)
            rows.append(_row(f"{args.memory} {label}", info, stats, emb, ref))
            print(rows[-1], flush=True)
    print("\n".join(rows))


if __name__ == "__main__":
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        model_, source_, groups_, out_ = (Path(a) for a in sys.argv[2:6])
        child(model_, source_, groups_, out_, dict(a.split("=", 1) for a in sys.argv[6:]))
    else:
        main()
