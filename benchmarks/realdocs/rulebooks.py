"""The 54 invented rulebooks of training/games as web pages, each under the rulebook-like stylesheets a
publisher's site or a fan's print-out uses: two columns, boxed examples and questions, a glossary in a
sidebar, tables with and without rules. Written into the cache folder as HTML, they are printed and scored
like the real documents (benchmarks/bench_import_realdocs.py --rulebooks): the gold comes from the HTML,
hence from the corpus Markdown they are made from.
"""

import html
import re
from pathlib import Path

from benchmarks.realdocs.corpus import RealDoc

TRAINING = Path(__file__).resolve().parents[2] / "training" / "games"
BASE = """body { font-family: 'DejaVu Sans', sans-serif; font-size: 10.5pt; line-height: 1.4; margin: 0 1cm; }
h1 { font-size: 24pt; } h2 { font-size: 15pt; margin-top: 14pt; } h3 { font-size: 12pt; }
h4.q { font-size: 10.5pt; margin: 8pt 0 2pt; } h4.q + p { margin-top: 0; } .page { break-before: page; }
"""
STYLES = {
    "deux-colonnes": BASE + """body { columns: 2; column-gap: 0.9cm; } h1, h2 { column-span: all; }
table { border-collapse: collapse; } td, th { border: 1px solid #555; padding: 2pt 6pt; }""",
    "encadres": BASE + """h2 { background: #234; color: white; padding: 3pt 8pt; }
.faq, .example { border: 1.5px solid #a63; background: #fdf3e7; padding: 4pt 10pt; margin: 8pt 0; }
table { border-collapse: collapse; } td, th { border: 1px solid #444; padding: 3pt 8pt; } th { background: #eee; }""",
    "barre-laterale": BASE + """dl, .terms { border-left: 4px solid #386; background: #eef7f0; padding: 4pt 10pt;
margin-left: 22%; } dt { font-weight: bold; } dd { margin-left: 1.2em; }
table { border-collapse: collapse; } td, th { border: 1px solid #444; padding: 3pt 8pt; }""",
    "tableaux-sans-filets": BASE + """table { border-collapse: collapse; margin: 6pt 0; }
th { text-align: left; border-bottom: 1.5px solid black; padding: 3pt 14pt 3pt 0; }
td { padding: 3pt 14pt 3pt 0; }""",
}
HEADING = re.compile(r"^(#{1,3})\s+(.*)$")
BULLET = re.compile(r"^- (?:\*\*(?P<title>[^*]+)\*\*\s+)?(?P<text>.*)$")
NUMBERED = re.compile(r"^\d{1,2}\.\s")
PAGE_REF = re.compile(r"\s*\(pp?\. [\d ,–-]+\)")
KIND = re.compile(r"\s*\{\w+\}$")


def _text(line: str) -> str:
    return html.escape(PAGE_REF.sub("", KIND.sub("", line)).strip(), quote=False)


def _pages(line: str) -> str:
    match = PAGE_REF.search(line)
    return match.group(0) if match else ""


def _block(lines: list[str], style: str) -> str:
    first = lines[0]
    if first.startswith("|"):
        cells = [[_text(c) for c in PAGE_REF.sub("", row).strip().split("|")[1:-1]] for row in lines]
        head, rows = cells[0], cells[2:]
        return ("<table><thead><tr>" + "".join(f"<th>{c}</th>" for c in head) + "</tr></thead><tbody>"
                + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows) + "</tbody></table>")
    if first.startswith("Q:"):
        inner = f'<h4 class="q">{_text(first[2:])}</h4>' + "".join(f"<p>{_text(x)}</p>" for x in lines[1:])
        return f'<div class="faq">{inner}</div>' if style == "encadres" else inner
    bullets = [BULLET.match(x) for x in lines]
    if all(bullets):
        if all(m.group("title") for m in bullets):
            return "<dl>" + "".join(f"<dt>{_text(m.group('title'))}</dt><dd>{_text(m.group('text'))}</dd>"
                                    for m in bullets) + "</dl>"
        return "<ul>" + "".join(f"<li>{_text(m.group('text'))}</li>" for m in bullets) + "</ul>"
    if all(NUMBERED.match(x) for x in lines):
        return "<ol>" + "".join(f"<li>{_text(NUMBERED.sub('', x))}</li>" for x in lines) + "</ol>"
    out = []
    for x in lines:
        text = _text(x)
        example = style == "encadres" and text.startswith("Exemple")
        out.append(f'<div class="example"><p>{text}</p></div>' if example else f"<p>{text}</p>")
    return "".join(out)


def render(markdown: str, style: str) -> str:
    head, body = markdown.split("\n---", 1) if markdown.startswith("---") else ("", markdown)
    title = re.search(r"^title:\s*(.*)$", head, re.M)
    title = html.escape(title.group(1) if title else "Règles", quote=False)
    out = [f'<!doctype html><html lang="fr"><head><meta charset="utf-8"><title>{title}</title>'
           f'<style>{STYLES[style]}</style></head><body><h1 class="cover">{title}</h1>']
    block: list[str] = []
    page, heading_at = "", None  # the booklet page so far; where the last section heading was written

    def flush():
        if block:
            out.append(_block(block, style))
            block.clear()

    for raw in body.splitlines():
        line = raw.strip()
        heading = HEADING.match(line)
        if heading:
            flush()
            level = len(heading.group(1)) + 1
            heading_at = len(out) if level == 2 else heading_at
            out.append(f"<h{level}>{_text(heading.group(2))}</h{level}>")
        elif not line:
            flush()
        else:
            pages = _pages(line)
            if pages and pages != page:
                if page and heading_at is not None:  # a section that opens a new booklet page
                    out.insert(heading_at, '<div class="page"></div>')
                page = pages
            heading_at = None
            block.append(line)
    flush()
    out.append("</body></html>")
    return "".join(out)


def documents(cache: Path, styles: list[str] | None = None) -> list[RealDoc]:
    """Each training rulebook under each style, written once into cache/rulebooks/STYLE/GAME.html."""
    out = []
    for style in styles or list(STYLES):
        folder = cache / "rulebooks" / style
        folder.mkdir(parents=True, exist_ok=True)
        for md in sorted(TRAINING.glob("*.md")):
            target = folder / f"{md.stem}.html"
            text = render(md.read_text("utf-8"), style)
            if not target.exists() or target.read_text("utf-8") != text:
                target.write_text(text, "utf-8")
            out.append(RealDoc(f"{style}-{md.stem}", f"training-{style}", target))
    return out
