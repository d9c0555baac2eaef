"""A source as a LaTeX article printed by pdfLaTeX (babel french, lmodern, its own table of contents, list of
tables and makeindex index), and as pandoc Markdown printed by pandoc (its default LaTeX template).

LaTeX: steps as run-in \\paragraph titles, terms in a description list, FAQ questions as \\subsubsection*,
tables ruled all round (|l|l|), boxes in an \\fbox. Pandoc: steps as a bold line then the text, terms as a
definition list, boxes as quotes, tables with booktabs rules only (no vertical rule), a hand-made list of
tables and index without dot leaders.
"""

import re
import subprocess
from pathlib import Path

from benchmarks.structure_bench.pictures import picture
from benchmarks.structure_bench.source import BACK, INDEX_TITLE, LOT_TITLE, Document

_TEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_", "{": r"\{",
        "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}"}


def tex(text: str) -> str:
    return "".join(_TEX.get(c, c) for c in text)


PREAMBLE = r"""\documentclass[11pt,a4paper]{article}
\usepackage[T1]{fontenc}
\usepackage[utf8]{inputenc}
\usepackage{lmodern}
\usepackage[french]{babel}
\usepackage[margin=2.4cm]{geometry}
\usepackage{graphicx,multicol,makeidx}
\DeclareUnicodeCharacter{2192}{\ensuremath{\rightarrow}}
\makeindex
\begin{document}
"""


def _latex_item(doc: Document, item, out: list[str], figures: list[int], prev: str) -> None:
    k, t = item.kind, tex(item.text)
    if k == "cover":
        out.append(r"\thispagestyle{empty}\begin{center}\vspace*{5cm}{\Huge\bfseries " + tex(doc.title)
                   + r"\par}\bigskip " + tex(doc.tagline) + r"\par\medskip " + tex(doc.author)
                   + r"\end{center}\vfill{\small " + tex(doc.legal) + r"\par}")
    elif k == "toc":
        out.append(r"\tableofcontents")
    elif k == "lot":
        out.append(r"\listoftables")
    elif k == "index":
        out.append(r"\printindex")
    elif k in ("h1", "h2"):
        level = "section" if k == "h1" else "subsection"
        out.append(f"\\{level}*{{{t}}}\\addcontentsline{{toc}}{{{level}}}{{{t}}}")
    elif k in ("p", "menu", "legal"):
        out.append(("{\\small " + t + "\\par}" if k == "legal" else t) + "\n")
    elif k == "li":
        out.append(("" if prev == "li" else r"\begin{itemize}") + r"\item " + t)
    elif k == "ol":
        start = r"\begin{enumerate}\setcounter{enumi}{" + str(item.number - 1) + "}"
        out.append(("" if prev == "ol" else start) + r"\item " + t)
    elif k == "step":
        out.append(f"\\paragraph{{{t}}} {tex(item.detail)}\n")
    elif k == "term":
        out.append(("" if prev == "term" else r"\begin{description}") + f"\\item[{t}] {tex(item.detail)}")
    elif k == "faq":
        out.append(f"\\subsubsection*{{{t}}}\n{tex(item.detail)}\n")
    elif k == "box":
        out.append(r"\medskip\noindent\fbox{\parbox{\dimexpr\linewidth-2\fboxsep-2\fboxrule}{" + t + r"}}\par\medskip")
    elif k == "figure":
        figures.append(1)
        out.append(r"\begin{center}\includegraphics[width=7cm]{" + f"figure{len(figures)}.png" + r"}\par\smallskip{\small\itshape "
                   + t + r"\par}\end{center}")
    elif k == "table":
        cols = len(item.rows[0])
        out.append(r"\begin{center}\textbf{" + t + r"}\addcontentsline{lot}{table}{" + t + r"}\par\medskip"
                   + r"\begin{tabular}{|" + "l|" * cols + r"}\hline")
        out.append(" & ".join(r"\textbf{" + tex(c) + "}" for c in item.rows[0]) + r" \\\hline")
        out += [" & ".join(tex(c) for c in row) + r" \\\hline" for row in item.rows[1:]]
        out.append(r"\end{tabular}\end{center}")
    elif k == "cols":
        out.append(r"\begin{multicols}{2}")
    elif k == "endcols":
        out.append(r"\end{multicols}")
    elif k == "back":
        out.append(r"\begin{flushright}\small " + BACK + r"\end{flushright}")


_CLOSE = {"li": r"\end{itemize}", "ol": r"\end{enumerate}", "term": r"\end{description}"}


def latex_source(doc: Document) -> str:
    out = [PREAMBLE]
    figures: list[int] = []
    for n, page in enumerate(doc.pages):
        if n:
            out.append(r"\newpage")
        for term, where in doc.index_entries():
            if n + 1 in where:
                out.append(f"\\index{{{tex(term)}}}")
        prev = ""
        for item in page:
            if prev in _CLOSE and item.kind != prev:
                out.append(_CLOSE[prev])
            _latex_item(doc, item, out, figures, prev)
            prev = item.kind
        if prev in _CLOSE:
            out.append(_CLOSE[prev])
    out.append(r"\end{document}")
    return "\n".join(out) + "\n"


def pdflatex(doc: Document, folder: Path) -> Path:
    name = f"{doc.name}-pdflatex"
    figures = sum(1 for page in doc.pages for item in page if item.kind == "figure")
    for n in range(1, figures + 1):
        picture(folder, n)
    (folder / f"{name}.tex").write_text(latex_source(doc), "utf-8")
    run = ["pdflatex", "-interaction=nonstopmode", "-halt-on-error", f"{name}.tex"]
    subprocess.run(run, cwd=folder, check=True, capture_output=True, timeout=300)
    subprocess.run(["makeindex", "-q", f"{name}.idx"], cwd=folder, check=True, capture_output=True, timeout=60)
    for _ in range(2):
        subprocess.run(run, cwd=folder, check=True, capture_output=True, timeout=300)
    return folder / f"{name}.pdf"


def _md(text: str) -> str:
    text = re.sub(r"([\\`*_\[\]<>#|$])", r"\\\1", text)
    return re.sub(r"^(\d+)\. ", r"\1\\. ", text)  # not a list item


def markdown_source(doc: Document) -> str:
    out = ["---", f'title: "{doc.title}"', f'subtitle: "{doc.tagline}"', f'author: "{doc.author}"', "lang: fr",
           "geometry: margin=2.4cm", "fontsize: 11pt", "header-includes:", "  - \\usepackage{multicol}",
           "  - \\newcommand{\\colsbegin}{\\begin{multicols}{2}}", "  - \\newcommand{\\colsend}{\\end{multicols}}",
           "  - \\DeclareUnicodeCharacter{2192}{\\ensuremath{\\rightarrow}}", "---", ""]
    figures = 0
    for n, page in enumerate(doc.pages):
        if n:
            out += ["\\newpage", ""]
        prev = ""
        for item in page:
            k, t = item.kind, _md(item.text)
            if prev in ("li", "ol", "term") and k != prev:
                out.append("")
            if k == "cover":
                out += [_md(doc.legal), ""]
            elif k == "toc":
                out += ["\\tableofcontents", ""]
            elif k == "lot":
                out += [f"# {LOT_TITLE}", ""]
                for page_no, table in doc.tables():
                    out += [f"{_md(table.text)} \\hfill {page_no + 1}", ""]
            elif k == "index":
                out += [f"# {INDEX_TITLE}", ""]
                out += [f"{_md(term)}, {', '.join(map(str, where))}\n" for term, where in doc.index_entries()]
            elif k in ("h1", "h2"):
                out += [f"{'#' if k == 'h1' else '##'} {t}", ""]
            elif k in ("p", "menu", "legal"):
                out += [t, ""]
            elif k == "li":
                out.append(f"- {t}")
            elif k == "ol":
                out.append(f"{item.number}. {t}")
            elif k == "step":
                out += [f"**{t}**", "", _md(item.detail), ""]
            elif k == "term":
                out += [t, f":   {_md(item.detail)}", ""]
            elif k == "faq":
                out += [f"### {t}", "", _md(item.detail), ""]
            elif k == "box":
                out += [f"> {t}", ""]
            elif k == "figure":
                figures += 1
                out += [f"![](figure{figures}.png){{width=7cm}}\\", "", f"*{t}*", ""]
            elif k == "table":
                out += [f"**{t}**", ""]
                out.append("| " + " | ".join(_md(c) for c in item.rows[0]) + " |")
                out.append("|" + "---|" * len(item.rows[0]))
                out += ["| " + " | ".join(_md(c) for c in row) + " |" for row in item.rows[1:]]
                out.append("")
            elif k == "cols":
                out += ["\\colsbegin", ""]
            elif k == "endcols":
                out += ["\\colsend", ""]
            elif k == "back":
                out += [f"\\hfill {BACK}", ""]
            prev = k
        out.append("")
    return "\n".join(out)


def pandoc(doc: Document, folder: Path) -> Path:
    name = f"{doc.name}-pandoc"
    figures = sum(1 for page in doc.pages for item in page if item.kind == "figure")
    for n in range(1, figures + 1):
        picture(folder, n)
    (folder / f"{name}.md").write_text(markdown_source(doc), "utf-8")
    # Without latex_macros, \colsbegin stays a command (not expanded into an environment pandoc would pass
    # through raw): the Markdown between it and \colsend is read. (\startX...\stopX is ConTeXt's, raw too.)
    subprocess.run(["pandoc", "-f", "markdown-latex_macros", f"{name}.md", "-o", f"{name}.pdf",
                    "--pdf-engine=pdflatex"], cwd=folder, check=True,
                   capture_output=True, timeout=300)
    return folder / f"{name}.pdf"
