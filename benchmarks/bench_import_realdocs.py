"""Structural benchmark of `rulesqa import` on REAL French documents (issue 33, item 1): HTML pages of manuals
that Debian ships in French (benchmarks/realdocs/SOURCES.md), printed to PDF by the producers people use
(benchmarks/realdocs/producers.py: Chromium as is and in two columns, LibreOffice from the HTML and from a
DOCX, pandoc + pdfLaTeX, pandoc + groff), all Debian's (`make realdocs-bench-deps`).

The gold comes from the HTML source itself (benchmarks/realdocs/gold.py): each paragraph, list item, term
with its definition, FAQ question with its answer, table row (its header's words allowed) and caption is a
unit, placed on the page where pdftotext finds it (units the PDF does not print are excluded and counted);
the navigation bars, tables of contents and page title are navigation; code blocks are not scored. The
scorer is benchmarks/structure_bench/score.py's. Fetching and printing are cached in the cache folder (default
var/realdocs/), so that a second run only imports again. Not a test (about a quarter of an hour).

    .venv/bin/python -m benchmarks.bench_import_realdocs [--cache DIR] [--only PRODUCER ...] [--limit N]
        [--per-document] [--failures] [--keep DIR] [--jobs N] [--rulebooks]

`--rulebooks` measures the 54 invented rulebooks of training/ instead, as web pages under four rulebook
stylesheets (two columns, boxed examples and questions, a glossary sidebar, tables without rules), printed
by Chromium.
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks.bench_import_structure import passages
from benchmarks.import_process import run_import
from benchmarks.realdocs import rulebooks
from benchmarks.realdocs.corpus import documents, fetch
from benchmarks.realdocs.gold import place, read
from benchmarks.realdocs.patterns import print_patterns
from benchmarks.realdocs.producers import PRODUCERS, TOOLS
from benchmarks.structure_bench.score import Score, score

REPO = Path(__file__).resolve().parents[1]

TARGETS = ("Targets (issue 33), per producer: >= 98 % of units whole and verbatim, >= 99.5 % on their printed "
           "page, 100 % of table rows with their header's words, fragments <= 1 % of passages, 0 navigation "
           "passages.")


def page_texts(pdf: Path) -> list[str]:
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, check=True).stdout
    pages = text.decode("utf-8", "replace").split("\f")
    return pages[:-1] if pages and not pages[-1].strip() else pages


def slug(name: str) -> str:
    return re.sub(r"\W+", "-", name.lower()).strip("-")


def measure(doc, gold, pdf: Path, work: Path):
    """(Score, import stats or None, units excluded, problem or None) of one document's PDF."""
    placed, missing = place(gold.units, page_texts(pdf))
    corpus = work / doc.name
    shutil.rmtree(corpus, ignore_errors=True)
    corpus.mkdir(parents=True)
    result = run_import(pdf, corpus)
    if "error" in result:
        return Score(units=len(placed)), None, len(missing), f"{doc.name}: {result['error']}"
    free = gold.code + [" ".join(u.pieces) for u in missing]
    s = score(placed, gold.nav, passages(corpus / "bench.md"), lambda i: i + 1, free)
    return s, result, len(missing), None


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--cache", type=Path, default=REPO / "var" / "realdocs",
                        help="the packages, unpacked, and the PDFs (kept between runs)")
    parser.add_argument("--only", nargs="*", help="producers (substring) to measure")
    parser.add_argument("--limit", type=int, help="the first N documents only")
    parser.add_argument("--keep", type=Path, help="write the imports in this folder (kept)")
    parser.add_argument("--per-document", action="store_true", help="a table per producer, a row per document")
    parser.add_argument("--failures", action="store_true", help="print each failing unit, fragment and "
                                                                "navigation passage (stderr)")
    parser.add_argument("--patterns", type=int, default=10, help="the N most common failure patterns of each "
                                                                     "producer and of all (0: none)")
    parser.add_argument("--jobs", type=int, default=2, help="imports run at once (child processes)")
    parser.add_argument("--rulebooks", action="store_true", help="the 54 training rulebooks under four rulebook "
                        "stylesheets (benchmarks/realdocs/rulebooks.py) instead of the manuals; Chromium only "
                        "unless --only says otherwise")
    args = parser.parse_args()
    only = args.only or (["chromium"] if args.rulebooks else None)
    names = [n for n in PRODUCERS if not only or any(o.lower() in n.lower() for o in only)]
    if args.rulebooks and not args.only:
        names = names[:1]  # Chromium as is: the stylesheets are the layouts measured
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        sys.exit(f"{', '.join(missing)} introuvable(s) : make realdocs-bench-deps")
    start = time.perf_counter()
    if args.rulebooks:
        docs = rulebooks.documents(args.cache)[: args.limit]
    else:
        fetch(args.cache)
        docs = documents(args.cache)[: args.limit]
    golds = {doc.name: read(doc.html.read_bytes()) for doc in docs}
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-import-realdocs-"))
    rows, scored = [], []
    try:
        for name in names:
            folder = args.cache / "pdf" / (f"rulebooks-{slug(name)}" if args.rulebooks else slug(name))
            folder.mkdir(parents=True, exist_ok=True)
            made = PRODUCERS[name](docs, folder)
            total, stats, problems, per_doc, excluded = Score(), [], [], [], 0
            ready = []
            for doc in docs:
                pdf = made.get(doc.name)
                if isinstance(pdf, Path) and pdf.exists():
                    ready.append((doc, pdf))
                else:
                    problems.append(f"{doc.name}: {pdf or 'no PDF'}")
            with ThreadPoolExecutor(max(args.jobs, 1)) as pool:
                out = work / slug(name)
                results = list(pool.map(lambda d, out=out: measure(d[0], golds[d[0].name], d[1], out), ready))
            for (doc, _), (s, result, lost, problem) in zip(ready, results):
                total.add(s)
                excluded += lost
                if result:
                    stats.append(result)
                if problem:
                    problems.append(problem)
                per_doc.append((doc.name, s, [result] if result else [], lost))
                if args.failures and s.failures:
                    print(f"\n## {name}, {doc.name}\n" + "\n".join(s.failures), file=sys.stderr)
            rows.append((name, total, stats, problems, excluded, len(ready)))
            scored.append((name, [(s, golds[doc.name]) for (doc, _), (s, *_rest) in zip(ready, results)]))
            if args.per_document:
                print(f"\n### {name}\n")
                _table([(d, s, st, [], lost, 1) for d, s, st, lost in per_doc], "document")
            print(f"{name}: done ({time.perf_counter() - start:.0f} s)", file=sys.stderr, flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    print(f"\n{len(docs)} documents per producer; {time.perf_counter() - start:.0f} s in all; 1-minute load "
          f"average at the end: {os.getloadavg()[0]:.2f}\n")
    _table(rows, "producer")
    print("\n" + TARGETS)
    for name, _, _, problems, _, _ in rows:
        for problem in problems:
            print(f"- {name}: {problem}")
    if args.patterns:
        if len(scored) > 1:
            print_patterns("All producers", [x for _, per_doc in scored for x in per_doc], args.patterns)
        for name, per_doc in scored:
            print_patterns(name, per_doc, args.patterns)


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f} %" if d else "–"


def _table(rows, first: str) -> None:
    print(f"| {first} | documents | pages | units (not printed) | whole | verbatim | right page "
          "| rows with header | passages | fragments | navigation passages | glued or split words "
          "| pages per CPU-second | peak RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, s, stats, _, excluded, n_docs in rows:
        pages = sum(r["pages"] for r in stats)
        cpu = sum(r["cpu"] for r in stats)
        rss = max((r["rss_mb"] for r in stats), default=0)
        print(f"| {name} | {n_docs} | {pages} | {s.units} ({excluded}) | {_pct(s.whole, s.units)} "
              f"| {_pct(s.verbatim, s.units)} | {_pct(s.right_page, s.units)} "
              f"| {_pct(s.rows_with_header, s.rows)} ({s.rows}) | {s.passages} "
              f"| {s.fragments} ({_pct(s.fragments, s.passages)}) | {s.nav} "
              f"| {s.glued} ({100 * s.glued / max(s.gold_words, 1):.2f} %) | {pages / max(cpu, 1e-9):.0f} "
              f"| {rss:.0f} MB |")


if __name__ == "__main__":
    main()
