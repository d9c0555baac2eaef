"""`rulesqa import` on publishers' rulebooks as their publishers made them (InDesign, QuarkXPress, Affinity, Scribus):
the manifest's files, cached outside git (benchmarks/publishers/cache.py), each imported by every text layer asked
for and checked against the text gold of both references (benchmarks/publishers/text_gold.py). Not a test.

    .venv/bin/python -m benchmarks.bench_import_publishers [--reader poppler glyphs] [--only NAME ...] [--failures]

Per rulebook and per layout tool:
- whole: the references' sentences (5 words or more) found whole inside one passage;
- on page: of those, the ones a passage holding them cites the printed page of (the PDF page they are on);
- fragments: passages of under five words (indexer.passages.is_fragment), tables' rows and terms aside;
- cut / glued: words cut apart or glued beyond the references' own (text_gold.cut_and_glued);
- pages/s and peak memory of the import process.
"""

import argparse
import json
import shutil
import sys
import tempfile
from collections import Counter, defaultdict
from pathlib import Path

from benchmarks.import_process import run_import
from benchmarks.publishers import cache, text_gold

READERS = ("poppler", "glyphs")


def passages(corpus: Path) -> list:
    from indexer.corpus import read_game
    from indexer.passages import passages_of

    return [p for p in passages_of(read_game(corpus / "bench.md")) if not p.is_card]


def page_map(corpus: Path) -> dict[int, int]:
    """Printed page -> 0-based PDF page, as the import's layout sidecar says (a spread's half: its sheet)."""
    from indexer.pdf.document.writer import sheet_of

    layout = json.loads((corpus / "bench.layout.json").read_text("utf-8"))
    return {int(k): sheet_of(v) for k, v in layout["pages"].items()}


def measure(pdf: Path, reader: str, work: Path, failures: list[str] | None = None) -> dict:
    from indexer.passages import is_fragment

    corpus = work / "corpus"
    shutil.rmtree(corpus, ignore_errors=True)
    corpus.mkdir(parents=True)
    stats = run_import(pdf, corpus, reader)
    if "error" in stats:
        return stats
    found = passages(corpus)
    mapping = page_map(corpus)
    # A passage is read under its section's title: a sentence that opens with the title (run in, as the references
    # read it) is whole there too.
    keyed = [(text_gold.key(f"{p.section or ''} {p.text}"), {mapping.get(n) for n in p.pages}, p) for p in found]
    poppler, pdfium = text_gold.poppler_pages(pdf), text_gold.pdfium_pages(pdf)
    gold = text_gold.sentences(poppler, pdfium)
    vocab = text_gold.vocabulary(poppler, pdfium)
    counts = Counter(passages=len(found), fragments=sum(map(is_fragment, found)), sentences=len(gold))
    for s in gold:
        holders = [where for k, where, _ in keyed if s.key in k]
        if holders:
            counts["whole"] += 1
            counts["on page"] += any(s.page in where for where in holders)
            if failures is not None and not any(s.page in where for where in holders):
                failures.append(f"  page: p{s.page + 1} « {s.text[:100]} »")
        elif failures is not None:
            failures.append(f"  cut: p{s.page + 1} « {s.text[:100]} »")
    for p in found:
        cut, glued = text_gold.cut_and_glued(p.text, vocab)
        counts["cut"] += len(cut)
        counts["glued"] += len(glued)
        if failures is not None:
            failures += [f"  cut apart: {c}" for c in cut] + [f"  glued: {g}" for g in glued]
    return {**stats, **counts}


def _pct(a: float, b: float) -> str:
    return f"{100 * a / b:.1f} %" if b else "–"


def row(name: str, r: Counter) -> str:
    return (f"| {name} | {r['books']} | {r['pages']} | {_pct(r['whole'], r['sentences'])} | {_pct(r['on page'], r['whole'])} "
            f"| {_pct(r['fragments'], r['passages'])} | {r['cut']} | {r['glued']} "
            f"| {r['pages'] / max(r['seconds'], 1e-9):.0f} | {r['rss_mb']:.0f} MB |")


HEADER = ("| {} | rulebooks | pages | sentences whole | on their page | fragments | words cut | words glued | pages/s "
          "| peak RSS |\n|---|---|---|---|---|---|---|---|---|---|")


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reader", nargs="*", default=list(READERS), choices=READERS)
    parser.add_argument("--only", nargs="*", help="rulebook names (substring)")
    parser.add_argument("--cache", type=Path, default=cache.CACHE)
    parser.add_argument("--failures", action="store_true", help="list what each import misses, on stderr")
    args = parser.parse_args(argv)
    if shutil.which("pdftotext") is None:
        print("pdftotext introuvable : make pdf-bench-deps", file=sys.stderr)
        return 2
    try:
        books = cache.load_manifest()
        present, problems = cache.check(args.cache, books)
    except cache.CacheError as exc:
        print(f"erreur : {exc}", file=sys.stderr)
        return 2
    for line in problems:
        print(line, file=sys.stderr)
    if not present:
        print(f"aucun livret dans {args.cache} : python -m benchmarks.publishers.cache --from DOSSIER", file=sys.stderr)
        return 2
    present = [b for b in present if not args.only or any(o.lower() in b.name.lower() for o in args.only)]
    by_tool: dict[str, dict[str, Counter]] = {reader: defaultdict(Counter) for reader in args.reader}
    lines = {reader: [] for reader in args.reader}
    with tempfile.TemporaryDirectory(prefix="bench-publishers-") as tmp:
        for book in present:
            for reader in args.reader:
                failures = [] if args.failures else None
                r = measure(book.file(args.cache), reader, Path(tmp), failures)
                if "error" in r:
                    lines[reader].append(f"| {book.name} | {book.tool} | erreur : {r['error']} |")
                    continue
                r = Counter({k: v for k, v in r.items() if isinstance(v, (int, float))}, books=1)
                for tool in (book.tool.split(":")[0], "**all**"):
                    peak = max(by_tool[reader][tool]["rss_mb"], r["rss_mb"])
                    by_tool[reader][tool].update(r)
                    by_tool[reader][tool]["rss_mb"] = peak
                lines[reader].append(row(f"{book.name} ({book.tool.split(':')[0]}, {book.language})", r))
                print(f"{reader} {book.name}: {dict(r)}", file=sys.stderr, flush=True)
                if failures:
                    print(f"{reader} {book.name}:\n" + "\n".join(failures[:60]), file=sys.stderr)
    for reader in args.reader:
        print(f"\n### Text layer: {reader}\n")
        print(HEADER.format("layout tool"))
        for tool, r in sorted(by_tool[reader].items(), key=lambda kv: (kv[0] == "**all**", kv[0])):
            print(row(tool, r))
        print(f"\n{HEADER.format('rulebook')}")
        print("\n".join(lines[reader]))
    print("\nTargets (issue 42): >= 98 % of sentences whole, >= 99 % on their page, fragments <= 2 %, "
          "0 words cut or glued beyond the references', >= 20 pages/s.")
    return 0


if __name__ == "__main__":
    sys.exit(main())
