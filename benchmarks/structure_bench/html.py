"""A source as a web page, printed by Chromium (`--print-to-pdf`, its own header and footer on: date, title,
address, "3/8"), the way a player prints an online manual. The table of contents is a list of links
without page numbers, the glossary a <dl>, steps small headings, the FAQ <h3> questions."""

import html
import subprocess
from pathlib import Path

from benchmarks.structure_bench.pictures import picture
from benchmarks.structure_bench.source import BACK, INDEX_TITLE, LOT_TITLE, TOC_TITLE, Document

STYLE = """
body { font-family: 'DejaVu Sans', sans-serif; font-size: 10.5pt; line-height: 1.4; margin: 0 1.2cm; }
section + section { break-before: page; }
h1 { font-size: 18pt; } h2 { font-size: 14pt; } h3 { font-size: 11.5pt; } h4 { font-size: 10.5pt; margin: 8pt 0 2pt; }
h4 + p { margin-top: 0; }
.cover { text-align: center; padding-top: 6cm; } .cover h1 { font-size: 28pt; }
.box { border: 1px solid #557; background: #eef; padding: 6pt 10pt; margin: 8pt 0; }
table { border-collapse: collapse; margin: 6pt 0; } caption { font-weight: bold; text-align: left; padding: 4pt 0; }
td, th { border: 1px solid #444; padding: 3pt 8pt; text-align: left; }
figure { margin: 8pt 0; } figure img { width: 9cm; } figcaption { font-style: italic; font-size: 9.5pt; }
.cols { columns: 2; column-gap: 1cm; } .back { text-align: right; font-size: 9pt; }
nav ul { list-style: none; padding-left: 0; } nav li li { padding-left: 1.5em; }
.legal { font-size: 8.5pt; color: #333; } .menu { margin: 2pt 0; }
"""


def _e(text: str) -> str:
    return html.escape(text, quote=False)


def render(doc: Document, folder: Path) -> str:
    out = [f'<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>{_e(doc.title)}</title>'
           f"<style>{STYLE}</style></head><body>"]
    figures = 0
    for page in doc.pages:
        out.append("<section>")
        ol_open = False
        for item in page:
            k, t = item.kind, _e(item.text)
            if k != "ol" and ol_open:
                out.append("</ol>")
                ol_open = False
            if k == "cover":
                out.append(f'<div class="cover"><h1>{_e(doc.title)}</h1><p>{_e(doc.tagline)}</p>'
                           f'<p>{_e(doc.author)}</p></div><p class="legal">{_e(doc.legal)}</p>')
            elif k == "toc":
                out.append(f'<nav><h2>{TOC_TITLE}</h2><ul>')
                for _, h in doc.headings():
                    out.append(f'<li><a href="#">{_e(h.text)}</a></li>' if h.kind == "h1"
                               else f'<li><ul><li><a href="#">{_e(h.text)}</a></li></ul></li>')
                out.append("</ul></nav>")
            elif k == "lot":
                out.append(f"<nav><h2>{LOT_TITLE}</h2><ul>")
                out += [f'<li><a href="#">{_e(t.text)}</a></li>' for _, t in doc.tables()]
                out.append("</ul></nav>")
            elif k == "index":
                out.append(f"<h1>{INDEX_TITLE}</h1>")
                out += [f"<p>{_e(term)}, {', '.join(map(str, where))}</p>" for term, where in doc.index_entries()]
            elif k in ("h1", "h2"):
                out.append(f"<{k}>{t}</{k}>")
            elif k == "p":
                out.append(f"<p>{t}</p>")
            elif k == "li":
                out.append(f"<ul><li>{t}</li></ul>")
            elif k == "ol":
                if not ol_open:
                    out.append(f'<ol start="{item.number}">')
                    ol_open = True
                out.append(f"<li>{t}</li>")
            elif k == "step":
                out.append(f"<h4>{t}</h4><p>{_e(item.detail)}</p>")
            elif k == "term":
                out.append(f"<dl><dt>{t}</dt><dd>{_e(item.detail)}</dd></dl>")
            elif k == "faq":
                out.append(f"<h3>{t}</h3><p>{_e(item.detail)}</p>")
            elif k == "box":
                out.append(f'<div class="box">{t}</div>')
            elif k == "figure":
                figures += 1
                png, _ = picture(folder, figures)
                out.append(f'<figure><img src="{png.name}" alt=""><figcaption>{t}</figcaption></figure>')
            elif k == "table":
                rows = item.rows
                out.append(f"<table><caption>{t}</caption><tr>" + "".join(f"<th>{_e(c)}</th>" for c in rows[0])
                           + "</tr>")
                out += ["<tr>" + "".join(f"<td>{_e(c)}</td>" for c in row) + "</tr>" for row in rows[1:]]
                out.append("</table>")
            elif k == "cols":
                out.append('<div class="cols">')
            elif k == "endcols":
                out.append("</div>")
            elif k == "menu":
                out.append(f'<p class="menu">{t}</p>')
            elif k == "back":
                out.append(f'<p class="back"><a href="#">{BACK}</a></p>')
            elif k == "legal":
                out.append(f'<p class="legal">{t}</p>')
        if ol_open:
            out.append("</ol>")
        out.append("</section>")
    out.append("</body></html>")
    return "\n".join(out)


def chromium(doc: Document, folder: Path) -> Path:
    source = folder / f"{doc.name}.html"
    source.write_text(render(doc, folder), "utf-8")
    pdf = folder / f"{doc.name}-chromium.pdf"
    subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                    f"--print-to-pdf={pdf}", source.resolve().as_uri()], check=True, capture_output=True,
                   timeout=120)
    return pdf
