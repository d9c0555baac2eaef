"""The producers of benchmarks/bench_import_realdocs.py, all Debian's, each turning a document's HTML page
into a PDF (cached: a PDF already there is kept):

- Chromium's print to PDF (Playwright, /usr/bin/chromium), with the page's own styles (its print
  stylesheet where it has one), Chromium's header and footer on (date, title, address, "3/9");
- the same with a two-column print stylesheet injected (on the body's top-level blocks: a multi-column
  body is printed as one clipped page by Chromium when the page's own style gives it a border);
- LibreOffice Writer opening the HTML (filter "HTML (StarWriter)") and exporting it to PDF;
- LibreOffice saving that as DOCX, then exporting the DOCX to PDF;
- pandoc reading the HTML, printed by pdfLaTeX (its default template, French);
- pandoc writing groff `ms`, printed by groff and Ghostscript's ps2pdf.

Each HTML page is first copied beside itself as rd-NAME.html, so that its styles and pictures (relative
links) still load and every producer's output has a name of its own.
"""

import shutil
import subprocess
from pathlib import Path

from benchmarks.realdocs.corpus import RealDoc

NOLANG = Path(__file__).resolve().parent / "nolang.lua"
UNLINK = Path(__file__).resolve().parent / "unlink.lua"
TWO_COLUMNS = """
@media print { body { font-size: 11.5pt; line-height: 1.4; }
  body > div, body > section { column-count: 2; column-gap: 1cm; }
  pre { white-space: pre-wrap; word-break: break-all; } img { max-width: 100%; } }
"""


def staged(doc: RealDoc) -> Path:
    copy = doc.html.parent / f"rd-{doc.name}.html"
    if not copy.exists():
        shutil.copyfile(doc.html, copy)
    return copy


def chromium(docs: list[RealDoc], folder: Path, two_columns: bool = False) -> dict[str, Path | str]:
    from playwright.sync_api import sync_playwright

    out: dict[str, Path | str] = {}
    todo = []
    for doc in docs:
        pdf = folder / f"{doc.name}.pdf"
        if pdf.exists():
            out[doc.name] = pdf
        else:
            todo.append((doc, pdf))
    if not todo:
        return out
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=["--no-sandbox"])
        page = browser.new_page()
        for doc, pdf in todo:
            try:
                page.goto(staged(doc).resolve().as_uri(), wait_until="load", timeout=60_000)
                if two_columns:
                    page.add_style_tag(content=TWO_COLUMNS)
                page.pdf(path=str(pdf), format="A4", print_background=True, display_header_footer=True,
                         margin={"top": "1.5cm", "bottom": "1.5cm", "left": "1.2cm", "right": "1.2cm"})
                out[doc.name] = pdf
            except Exception as error:  # noqa: BLE001 - a document the producer fails on is reported
                out[doc.name] = f"chromium: {error}"[:200]
        browser.close()
    return out


def _soffice(args: list[str], cwd: Path, profile: Path) -> None:
    subprocess.run(["soffice", f"-env:UserInstallation={profile.resolve().as_uri()}", "--headless", "--norestore",
                    *args], cwd=cwd, check=True, capture_output=True, timeout=1800)


def libreoffice(docs: list[RealDoc], folder: Path, via_docx: bool = False) -> dict[str, Path | str]:
    out: dict[str, Path | str] = {}
    profile = folder.parent / "lo-profile"
    todo = [staged(doc) for doc in docs if not (folder / f"{doc.name}.pdf").exists()]
    dest = str(folder.resolve())
    try:  # one LibreOffice for all the documents (its start is most of its time)
        if todo and via_docx:
            _soffice(["--infilter=HTML (StarWriter)", "--convert-to", "docx:MS Word 2007 XML", "--outdir", dest,
                      *map(str, todo)], folder, profile)
            _soffice(["--convert-to", "pdf:writer_pdf_Export", "--outdir", dest,
                      *(str(folder / f"{s.stem}.docx") for s in todo if (folder / f"{s.stem}.docx").exists())],
                     folder, profile)
        elif todo:
            _soffice(["--infilter=HTML (StarWriter)", "--convert-to", "pdf:writer_pdf_Export", "--outdir", dest,
                      *map(str, todo)], folder, profile)
    except (subprocess.SubprocessError, OSError) as error:
        for doc in docs:
            out[doc.name] = f"soffice: {error}"[:200]
    for doc in docs:
        made = folder / f"rd-{doc.name}.pdf"
        if made.exists():
            made.rename(folder / f"{doc.name}.pdf")
    for doc in docs:
        pdf = folder / f"{doc.name}.pdf"
        if pdf.exists():
            out[doc.name] = pdf
    return out


def pandoc_latex(docs: list[RealDoc], folder: Path) -> dict[str, Path | str]:
    out: dict[str, Path | str] = {}
    for doc in docs:
        pdf = folder / f"{doc.name}.pdf"
        if not pdf.exists():
            run = subprocess.run(["pandoc", "-f", "html", str(staged(doc)), "-o", str(pdf.resolve()),
                                  "--pdf-engine=pdflatex", "-V", "lang=fr", f"--lua-filter={NOLANG}",
                                  "-V", "fontsize=12pt", "-V", "geometry:margin=2.5cm", f"--resource-path={doc.html.parent}"],
                                 cwd=doc.html.parent,
                                 capture_output=True, text=True, timeout=600)
            if run.returncode != 0:
                out[doc.name] = "pandoc/pdflatex: " + (run.stderr.strip().splitlines() or ["?"])[-1][:160]
                continue
        out[doc.name] = pdf
    return out


def groff(docs: list[RealDoc], folder: Path) -> dict[str, Path | str]:
    out: dict[str, Path | str] = {}
    for doc in docs:
        pdf = folder / f"{doc.name}.pdf"
        if not pdf.exists():
            ms = folder / f"{doc.name}.ms"
            run = subprocess.run(["pandoc", "-f", "html", "-t", "ms", "-s", "-V", "lang=fr",
                                  f"--lua-filter={NOLANG}", f"--lua-filter={UNLINK}", str(staged(doc)),
                                  "-o", str(ms.resolve())], capture_output=True, text=True, timeout=600)
            if run.returncode == 0:
                ps = folder / f"{doc.name}.ps"
                with ps.open("wb") as sink:
                    run = subprocess.run(["groff", "-ms", "-k", "-t", "-e", "-Tps", str(ms)], stdout=sink,
                                         stderr=subprocess.PIPE, text=False, timeout=600)
                if run.returncode == 0:
                    run = subprocess.run(["ps2pdf", str(ps), str(pdf)], capture_output=True, timeout=600)
                ps.unlink(missing_ok=True)
            if run.returncode != 0 or not pdf.exists():
                err = run.stderr.decode("utf-8", "replace") if isinstance(run.stderr, bytes) else run.stderr
                out[doc.name] = "groff: " + ((err or "").strip().splitlines() or ["?"])[-1][:160]
                continue
        out[doc.name] = pdf
    return out


PRODUCERS = {
    "Chromium": lambda docs, folder: chromium(docs, folder),
    "Chromium (2 columns)": lambda docs, folder: chromium(docs, folder, two_columns=True),
    "LibreOffice (HTML)": lambda docs, folder: libreoffice(docs, folder),
    "LibreOffice (DOCX)": lambda docs, folder: libreoffice(docs, folder, via_docx=True),
    "pandoc + pdfLaTeX": pandoc_latex,
    "pandoc + groff": groff,
}
TOOLS = ("chromium", "soffice", "pandoc", "pdflatex", "groff", "ps2pdf", "pdftotext", "apt-get", "dpkg")
