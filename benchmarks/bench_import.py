"""Benchmark of `rulesqa import` on generated rulebooks: speed of a 40-page text PDF, page accuracy on the
test fixtures (every expected passage cites the page its text is printed on), the OCR path at 150 dpi, and
the library's own costs (pdfium characters with their geometry, plain text, rendering). Prints a Markdown
table; not a test. About half a minute on 2 cores.

    .venv/bin/python -m benchmarks.bench_import
"""

import resource
import shutil
import tempfile
import time
from pathlib import Path

from indexer.pdf import import_pdf
from testbed import pdf_fixtures


def written(md: Path) -> list[tuple[str, tuple[int, ...]]]:
    """The imported lines in file order: (text without heading marks, list dash and page marker, pages)."""
    from indexer.page_refs import extract_pages

    out = []
    body = md.read_text("utf-8").split("---", 2)[2]
    for line in body.splitlines():
        if line.strip():
            text, pages = extract_pages(line.lstrip("#").strip().removeprefix("- "))
            out.append((text, tuple(pages)))
    return out


def accuracy(md: Path, expected) -> tuple[int, int]:
    """Expected passages found in order, each with exactly its pages (a rulebook may repeat a sentence)."""
    lines, at, good = written(md), 0, 0
    for e in expected:
        for i in range(at, len(lines)):
            if lines[i][0] == e.text:
                good += lines[i][1] == e.pages
                at = i + 1
                break
    return good, len(expected)


def timed(fn, repeat: int = 3) -> float:
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def main() -> None:
    work = Path(tempfile.mkdtemp(prefix="bench-import-"))
    rows = []
    try:
        corpus = work / "corpus"
        corpus.mkdir()
        # 13 x 3 body pages + cover + front matter = 41 pages, two columns each.
        big = work / "big.pdf"
        pdf_fixtures.reportlab_rulebook(big, repeat=13)
        seconds = timed(lambda: import_pdf(big, corpus, "big", "Gros", force=True))
        rows.append(("import, text PDF of 41 pages", f"{41 / seconds:.0f} pages/s ({seconds:.2f} s)", ">= 20 pages/s"))

        fixtures = {"reportlab, page labels": lambda p: pdf_fixtures.reportlab_rulebook(p, labels=True),
                    "reportlab, printed numbers": lambda p: pdf_fixtures.reportlab_rulebook(p, labels=False),
                    "reportlab, 41 pages": lambda p: pdf_fixtures.reportlab_rulebook(p, repeat=13)}
        if shutil.which("chromium") or Path("/usr/bin/chromium").exists():
            fixtures["chromium print-to-PDF"] = pdf_fixtures.chromium_rulebook
        total_good = total = 0
        for n, (name, make) in enumerate(fixtures.items()):
            pdf = work / f"f{n}.pdf"
            expected = make(pdf)
            md = import_pdf(pdf, corpus, f"f{n}", "Jeu", force=True).markdown
            good, count = accuracy(md, expected)
            total_good, total = total_good + good, total + count
            rows.append((f"page accuracy, {name}", f"{good}/{count}", "100 %"))

        if shutil.which("tesseract"):
            source = work / "ocr-source.pdf"
            expected = pdf_fixtures.reportlab_rulebook(source, repeat=3)  # 11 pages
            scan = work / "scan.pdf"
            pdf_fixtures.scanned_rulebook(source, scan, dpi=150)
            before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
            md = import_pdf(scan, corpus, "scan", "Scan", ocr=True, force=True).markdown
            seconds = time.perf_counter() - start
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
            rows.append(("OCR, 11 scanned pages at 150 dpi", f"{11 / seconds:.2f} pages/s ({seconds:.1f} s)",
                         ">= 1 page/s"))
            # Wall time depends on what else the 2 cores run; tesseract's own CPU time per page does not.
            rows.append(("OCR, tesseract CPU time per page", f"{cpu / 11:.2f} s", ""))
            good, count = accuracy(md, expected)
            rows.append(("OCR page accuracy (exact text and page)", f"{good}/{count}", "(OCR text may differ)"))
        else:
            rows.append(("OCR", "tesseract missing (make ocr-deps)", ">= 1 page/s"))

        rows += _libraries(big)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("| measure | result | target |\n|---|---|---|")
    for row in rows:
        print("| " + " | ".join(row) + " |")


def _libraries(pdf: Path) -> list[tuple]:
    """What each library costs on the same 41 pages: the reason for the split of work between them."""
    import pypdfium2 as pdfium

    from indexer.pdf.page.chars import page_chars

    def pdfium_chars():
        doc = pdfium.PdfDocument(str(pdf))
        for i in range(len(doc)):
            page = doc[i]
            page_chars(page)
            page.close()
        doc.close()

    def pdfium_text():
        doc = pdfium.PdfDocument(str(pdf))
        for i in range(len(doc)):
            doc[i].get_textpage().get_text_range()
        doc.close()

    def pdfium_render():
        doc = pdfium.PdfDocument(str(pdf))
        page = doc[2]
        page.render(scale=1600 / 842).to_pil().save(Path(tempfile.gettempdir()) / "bench-page.webp", quality=80)
        doc.close()

    return [
        ("pypdfium2: characters with box, baseline, size, font", f"{41 / timed(pdfium_chars):.0f} pages/s", ""),
        ("pypdfium2: plain text (no fonts)", f"{41 / timed(pdfium_text):.0f} pages/s", ""),
        ("pypdfium2: one page to a 1600 px WebP", f"{timed(pdfium_render) * 1000:.0f} ms", ""),
    ]


if __name__ == "__main__":
    main()
