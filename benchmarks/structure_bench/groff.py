"""A source as a groff `ms` document (French hyphenation and strings from `-mfr`, tables by `tbl`, pictures by
PSPIC), printed to PostScript and converted by Ghostscript's `ps2pdf`: the Unix way. Page numbers are ms's
"- 2 -" at the top; terms and steps are `.IP` hanging paragraphs (a short term on the line of its
definition, a long one above it); the table of contents is tab-aligned, without dot leaders."""

import subprocess
from pathlib import Path

from benchmarks.structure_bench.pictures import picture
from benchmarks.structure_bench.source import BACK, INDEX_TITLE, LOT_TITLE, TOC_TITLE, Document

HEAD = r""".nr PS 11
.nr VS 14
.nr PD 0.4v
.nr LL 16c
.nr PO 2.5c
.nr HM 2c
.nr FM 2c
.nr GROWPS 3
.nr PSINCR 2p
"""


def _g(text: str) -> str:
    text = text.replace("\\", r"\e").replace("→", r"\[->]").replace("©", r"\(co")
    return r"\&" + text if text[:1] in ".'" else text


def _entry(text: str, page: int) -> list[str]:
    return [".LP", ".ta 16cR", f"{_g(text)}\t{page}"]


def source(doc: Document) -> str:
    out = [HEAD]
    figures = 0
    last = ""
    for n, page in enumerate(doc.pages):
        if n and last != ".1C":
            out.append(".bp")
        for item in page:
            k, t = item.kind, _g(item.text)
            if k == "cover":
                out += [".sp 6c", ".DS C", rf"\s[+12]\fB{_g(doc.title)}\fP\s0", ".sp 1c", _g(doc.tagline), ".sp 0.4c",
                        _g(doc.author), ".DE", ".sp 2c", ".LP", rf"\s-2{_g(doc.legal)}\s0"]
            elif k == "toc":
                out += [".SH 1", TOC_TITLE]
                for page_no, h in doc.headings():
                    out += _entry(("" if h.kind == "h1" else "    ") + h.text, page_no + 1)
            elif k == "lot":
                out += [".SH 1", LOT_TITLE]
                for page_no, table in doc.tables():
                    out += _entry(table.text, page_no + 1)
            elif k == "index":
                out += [".SH 1", INDEX_TITLE, ".LP"]
                for term, where in doc.index_entries():
                    out += [f"{_g(term)}, {', '.join(map(str, where))}", ".br"]
            elif k in ("h1", "h2"):
                out += [f".SH {k[1]}", t]
            elif k in ("p", "menu"):
                out += [".PP" if k == "p" else ".LP", t]
            elif k == "li":
                out += [r".IP \(bu 2", t]
            elif k == "ol":
                out += [f'.IP "{item.number}." 3', t]
            elif k == "step":
                out += [f'.IP "\\fB{t}\\fP" 4n', _g(item.detail)]
            elif k == "term":
                out += [f'.IP "\\fB{t}\\fP" 12n', _g(item.detail)]
            elif k == "faq":
                out += [".SH 3", t, ".PP", _g(item.detail)]
            elif k == "box":
                out += [".B1", ".LP", t, ".B2"]
            elif k == "figure":
                figures += 1
                out += [".LP", f".PSPIC -L figure{figures}.eps 7c", ".LP", rf"\s-1\fI{t}\fP\s0"]
            elif k == "table":
                cols = len(item.rows[0])
                out += [".LP", rf"\fB{t}\fP", ".TS", "allbox;", " ".join(["lB"] * cols), " ".join(["l"] * cols) + "."]
                out += ["\t".join(_g(c) for c in row) for row in item.rows]
                out.append(".TE")
            elif k == "cols":
                out.append(".2C")
            elif k == "endcols":
                out.append(".1C")
            elif k == "back":
                out += [".LP", ".rj 1", rf"\s-1{BACK}\s0"]
            elif k == "legal":
                out += [".LP", rf"\s-2{t}\s0"]
            last = out[-1]
    return "\n".join(out) + "\n"


def groff(doc: Document, folder: Path) -> Path:
    name = f"{doc.name}-groff"
    figures = sum(1 for page in doc.pages for item in page if item.kind == "figure")
    for n in range(1, figures + 1):
        picture(folder, n)
    (folder / f"{name}.ms").write_text(source(doc), "utf-8")
    ps = subprocess.run(["groff", "-k", "-ms", "-mfr", "-t", "-Tps", "-dpaper=a4", "-P-pa4", f"{name}.ms"],
                        cwd=folder, check=True, capture_output=True, timeout=120).stdout
    (folder / f"{name}.ps").write_bytes(ps)
    subprocess.run(["ps2pdf", "-sPAPERSIZE=a4", f"{name}.ps", f"{name}.pdf"], cwd=folder, check=True,
                   capture_output=True, timeout=120)
    return folder / f"{name}.pdf"
