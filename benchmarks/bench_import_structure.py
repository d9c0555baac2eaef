"""Structural benchmark of `rulesqa import` (issue 27): invented French rulebooks (benchmarks/structure_bench/sources)
printed to PDF by the producers people use, all from Debian (`make structure-bench-deps`):

- LibreOffice Writer, from an ODT file and from a DOCX file (the document saved by Writer in each format,
  then exported to PDF);
- Chromium's print to PDF, its header and footer on (date, title, address, "3/9");
- pdfLaTeX (babel french, its own table of contents, list of tables and makeindex index);
- pandoc (Markdown through its default LaTeX template);
- groff `ms` + tbl, converted by Ghostscript's ps2pdf.

The source is known, so the gold is: each unit (paragraph, list item, step, term and definition, question
and answer, table row with all its cells, boxed example, caption) must come out as one passage, verbatim,
citing its printed page, and nothing from the navigation (benchmarks/structure_bench/score.py says how each
column is counted). Prints a Markdown table per producer; not a test (a minute or two).

    .venv/bin/python -m benchmarks.bench_import_structure [--only PRODUCER ...] [--keep DIR] [--failures]
"""

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.import_process import run_import
from benchmarks.structure_bench import groff, html, latex, odt
from benchmarks.structure_bench.score import Passage, Score, score
from benchmarks.structure_bench.source import cover, documents, gold

PRODUCERS = {
    "LibreOffice (ODT)": lambda doc, folder: odt.libreoffice(doc, folder, "odt"),
    "LibreOffice (DOCX)": lambda doc, folder: odt.libreoffice(doc, folder, "docx"),
    "Chromium": html.chromium,
    "pdfLaTeX": latex.pdflatex,
    "pandoc": latex.pandoc,
    "groff + ps2pdf": groff.groff,
}
TOOLS = ("soffice", "chromium", "pdflatex", "makeindex", "pandoc", "groff", "ps2pdf", "pdftotext")


def passages(md: Path) -> list[Passage]:
    from indexer.corpus import read_game
    from indexer.passages import passages_of

    return [Passage(p.text, tuple(p.pages)) for p in passages_of(read_game(md)) if not p.is_card]


def page_texts(pdf: Path) -> list[str]:
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, check=True).stdout
    return [re.sub(r"[\s\-\u00ad]+", "", page) for page in text.decode("utf-8", "replace").split("\f")]


def layout_check(units, pdf: Path) -> list[str]:
    """Units that pdftotext does not find on the page the source puts them on (a page that overflowed)."""
    pages = page_texts(pdf)
    out = []
    for unit in units:
        head = re.sub(r"[\s\-]+", "", unit.pieces[0].replace("'", "’"))[:25]
        alt = head.replace("’", "'")
        if unit.page >= len(pages) or (head not in pages[unit.page] and alt not in pages[unit.page]):
            out.append(f"{pdf.name}: « {unit.pieces[0][:50]} » n'est pas sur la page {unit.page + 1}")
    return out


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", nargs="*", help="producers (substring) to measure")
    parser.add_argument("--keep", type=Path, help="build the PDFs and imports in this folder, reused if there")
    parser.add_argument("--failures", action="store_true", help="print each unit that is not whole, verbatim and "
                                                                "on its page, and each navigation passage")
    args = parser.parse_args()
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        sys.exit(f"{', '.join(missing)} introuvable(s) : make structure-bench-deps")
    names = [n for n in PRODUCERS if not args.only or any(o.lower() in n.lower() for o in args.only)]
    work = args.keep or Path(tempfile.mkdtemp(prefix="bench-import-structure-"))
    work.mkdir(parents=True, exist_ok=True)
    docs = documents()
    rows = []
    try:
        for name in names:
            total, stats, problems = Score(), [], []
            for doc in docs:
                folder = work / re.sub(r"\W+", "-", name.lower()).strip("-")
                folder.mkdir(exist_ok=True)
                pdf = PRODUCERS[name](doc, folder)
                units, nav = gold(doc)
                problems += layout_check(units, pdf)
                corpus = folder / f"corpus-{doc.name}"
                shutil.rmtree(corpus, ignore_errors=True)
                corpus.mkdir()
                result = run_import(pdf, corpus)
                if "error" in result:
                    problems.append(f"{pdf.name}: {result['error']}")
                    s = Score(units=len(units))
                else:
                    stats.append(result)
                    s = score(units, nav, passages(corpus / "bench.md"), lambda i: i + 1, cover(doc))
                total.add(s)
                if args.failures and s.failures:
                    print(f"\n## {name}, {doc.name}\n" + "\n".join(s.failures), file=sys.stderr)
            rows.append((name, total, stats, problems))
            print(f"{name}: done", file=sys.stderr, flush=True)
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)
    _table(rows, len(docs))


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f} %" if d else "–"


def _table(rows, n_docs: int) -> None:
    print(f"{n_docs} rulebooks per producer; 1-minute load average at the end: {os.getloadavg()[0]:.2f}\n")
    print("| producer | pages | units | whole | verbatim | right page | table cells kept | navigation passages "
          "| glued or split words | pages per CPU-second | peak RSS |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for name, s, stats, _ in rows:
        pages = sum(r["pages"] for r in stats)
        cpu = sum(r["cpu"] for r in stats)
        rss = max((r["rss_mb"] for r in stats), default=0)
        print(f"| {name} | {pages} | {s.units} | {_pct(s.whole, s.units)} | {_pct(s.verbatim, s.units)} "
              f"| {_pct(s.right_page, s.units)} | {_pct(s.cells_kept, s.cells)} | {s.nav} "
              f"| {s.glued} ({100 * s.glued / max(s.gold_words, 1):.2f} %) | {pages / max(cpu, 1e-9):.0f} "
              f"| {rss:.0f} MB |")
    print("\nTargets (issue 27), per producer: >= 99 % of units whole and verbatim, 100 % on their printed page, "
          "100 % of table cells kept, 0 navigation passages, <= 0.1 % glued or split words.")
    for name, _, _, problems in rows:
        for problem in problems:
            print(f"- {name}: {problem}")


if __name__ == "__main__":
    main()
