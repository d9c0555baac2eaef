"""Benchmark of the learned judge's cost: the judge stage per question with and without it, and the memory it adds.

    HF_HUB_OFFLINE=1 .venv/bin/python -m benchmarks.bench_judge [--index DIR] [--rounds 3]

Reads and retrieves each gold question (dev + test) once, then times only the judge stage
(`Answerer.find`: routing and the judge) over the same `Retrieved` values, alternating the answerer with the
learned judge and the one without, so that both see the same machine. The memory is the process's resident set
before and after the judge file is loaded and has judged every question once. Prints a Markdown table; not a test.
"""

import argparse
import statistics
import time
from pathlib import Path


def rss_mib() -> float:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return 0.0


def main() -> None:
    from eval.gold import load_questions
    from service.engine.question import Query
    from service.runtime.answerers import build_answerer, learned_judge
    from service.runtime.settings import load_settings

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--index", type=Path, default=None)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    conf = load_settings(**({"index_dir": args.index} if args.index else {}))
    plain = build_answerer(conf).with_learned(None)
    questions = load_questions("dev") + load_questions("test")
    asked = []
    for q in questions:
        read = plain.read(Query(q.question, q.game))
        asked.append((read, plain.retrieve(read)))
    before = rss_mib()
    learned = learned_judge(plain.retriever.embedder.model_id)
    if learned is None:
        raise SystemExit("pas de juge appris pour ce modèle : lancez `make train-judge`")
    judged = plain.with_learned(learned).with_toggles(ranker=True, answerability=True)
    for read, retrieved in asked:
        judged.find(read, retrieved)
    after = rss_mib()
    times = {"sans juge appris": [], "avec juge appris": []}
    for round_ in range(args.rounds):
        for name, values in (list(times.items()) if round_ % 2 == 0 else list(times.items())[::-1]):
            system = plain if name == "sans juge appris" else judged
            for read, retrieved in asked:
                started = time.perf_counter()
                system.find(read, retrieved)
                values.append((time.perf_counter() - started) * 1000)
    print(f"{len(asked)} gold questions × {args.rounds} rounds, the judge stage only (routing and the judge)\n")
    print("| | p50 | p95 |\n|---|---:|---:|")
    for name, values in times.items():
        ordered = sorted(values)
        print(f"| {name} | {statistics.median(values):.3f} ms | {ordered[int(0.95 * (len(ordered) - 1))]:.3f} ms |")
    cost = statistics.median(times["avec juge appris"]) - statistics.median(times["sans juge appris"])
    print(f"\nthe learned judge's cost: {cost:.3f} ms p50 a question; RSS {before:.0f} -> {after:.0f} MiB "
          f"(+{after - before:.1f} MiB)")


if __name__ == "__main__":
    main()
