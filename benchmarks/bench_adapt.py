"""Benchmark of the adaptation's cost: the four games, and the four games plus one game of 1,500 bullet rules
(generated from the corpus's own sentences, 30 sections of 50 titled bullets), each adapted in a child
process from the built base model into a scratch folder: wall time, peak RSS, pairs drawn and trained,
steps. Prints a Markdown table; not a test. The issue's bound: at most 90 s and 3 GB on 2 cores.

    HF_HUB_OFFLINE=1 .venv/bin/python -m benchmarks.bench_adapt [--bullets 1500]
"""

import argparse
import json
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
CHILD = """
import json, sys
from pathlib import Path
from indexer.corpus_pairs import training_pairs
from indexer.models.e5.finetune import adapt_model
from indexer.passages import load_passages
docs, passages = load_passages(Path(sys.argv[1]))
pairs = training_pairs(passages, [d.game for d in docs])
out = adapt_model(Path(sys.argv[2]), pairs, Path(sys.argv[3]), progress=False)
print(json.dumps(json.loads((out / "rulesqa_build.json").read_text())))
"""


def big_game(bullets: int) -> str:
    """A game of `bullets` titled bullet rules in sections of 50, from the corpus's sentences, numbers changed."""
    from indexer.passages import load_passages

    sentences = [line for p in load_passages(REPO / "corpus")[1] for line in p.text.split("\n") if len(line) > 40]
    lines = ["---", "id: grand-jeu", "title: Le Grand Jeu", "---", ""]
    for i in range(bullets):
        if i % 50 == 0:
            lines += ["", f"# Chapitre {i // 50 + 1} : règles du module {i // 50 + 1}", ""]
        sentence = sentences[(i * 7) % len(sentences)].replace("2", str(i % 9 + 2))
        title = " ".join(sentence.split()[:4]).rstrip(",.:;")
        lines.append(f"- **{title} ({i + 1})** {sentence} (p. {i // 25 + 1})")
    return "\n".join(lines) + "\n"


def adapt(corpus: Path, base: Path, out: Path) -> dict:
    started = time.perf_counter()
    done = subprocess.run([sys.executable, "-c", CHILD, str(corpus), str(base), str(out)], capture_output=True,
                          text=True, cwd=REPO, env={**os.environ, "HF_HUB_OFFLINE": "1"})
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise SystemExit(done.stderr)
    manifest = json.loads(done.stdout.strip().splitlines()[-1])
    return {"seconds": seconds, "peak_mib": resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024,
            "pairs": manifest["pairs"], "trained": manifest.get("pairs_trained", manifest["pairs"]),
            "steps": manifest["training"]["steps"]}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--bullets", type=int, default=1500)
    args = parser.parse_args()
    from indexer.models.e5 import MODEL_NAME, ensure_model
    from service.runtime.settings import load_settings

    base = ensure_model(load_settings().models_dir / MODEL_NAME)
    load = os.getloadavg()
    rows = []
    with tempfile.TemporaryDirectory(prefix="rulesqa-bench-adapt-") as tmp:
        big = Path(tmp) / "corpus"
        shutil.copytree(REPO / "corpus", big)
        (big / "grand-jeu.md").write_text(big_game(args.bullets), "utf-8")
        # Children one after the other: RUSAGE_CHILDREN's peak is the largest so far, so the small one first.
        rows.append(("the four games", adapt(REPO / "corpus", base, Path(tmp) / "four")))
        rows.append((f"the four games + one of {args.bullets} bullets", adapt(big, base, Path(tmp) / "big")))
    print(f"{os.cpu_count()} cores, 1-min load average at the start {load[0]:.2f}\n")
    print("| corpus | pairs | trained | steps | wall time | peak RSS (largest child so far) |\n|---|---:|---:|---:|---:|---:|")
    for name, r in rows:
        print(f"| {name} | {r['pairs']} | {r['trained']} | {r['steps']} | {r['seconds']:.1f} s | {r['peak_mib']:.0f} MiB |")


if __name__ == "__main__":
    main()
