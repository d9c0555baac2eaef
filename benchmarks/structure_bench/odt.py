"""A source as a LibreOffice Writer document (flat ODT written here, with Writer's own styles: Liberation
fonts, a page-number footer, a pre-filled table of contents and list of tables with
dot leaders, ruled tables with a header row, a two-column section, a bordered box, pictures), then saved by
LibreOffice as ODT or as DOCX and exported to PDF from that file: the two ways a club's rulebook is made.
(The cover prints its number too: a first-page style does not survive Writer's DOCX export.)

Terms are a bold line over an indented definition (Writer's "List Heading" and "List Contents"), steps a
bold title line over their text, FAQ questions Writer's "Heading 3"."""

import base64
import re
import shutil
import subprocess
from pathlib import Path
from xml.sax.saxutils import escape

from benchmarks.structure_bench.pictures import picture
from benchmarks.structure_bench.source import BACK, INDEX_TITLE, LOT_TITLE, TOC_TITLE, Document

NS = ('xmlns:office="urn:oasis:names:tc:opendocument:xmlns:office:1.0" '
      'xmlns:style="urn:oasis:names:tc:opendocument:xmlns:style:1.0" '
      'xmlns:text="urn:oasis:names:tc:opendocument:xmlns:text:1.0" '
      'xmlns:table="urn:oasis:names:tc:opendocument:xmlns:table:1.0" '
      'xmlns:draw="urn:oasis:names:tc:opendocument:xmlns:drawing:1.0" '
      'xmlns:fo="urn:oasis:names:tc:opendocument:xmlns:xsl-fo-compatible:1.0" '
      'xmlns:xlink="http://www.w3.org/1999/xlink" '
      'xmlns:svg="urn:oasis:names:tc:opendocument:xmlns:svg-compatible:1.0"')


def _para(name: str, size: str = "11pt", extra: str = "", text: str = "", parent: str = "Standard") -> str:
    return (f'<style:style style:name="{name}" style:family="paragraph" style:parent-style-name="{parent}">'
            f'<style:paragraph-properties {extra}/><style:text-properties fo:font-size="{size}" {text}/>'
            "</style:style>")


def _contents(name: str, extra: str, text: str) -> str:
    """A table-of-contents entry: the page number after a right tab with a dot leader."""
    return (f'<style:style style:name="{name}" style:family="paragraph" style:parent-style-name="Standard">'
            f'<style:paragraph-properties {extra}><style:tab-stops><style:tab-stop style:position="16cm" '
            'style:type="right" style:leader-style="dotted" style:leader-text="."/></style:tab-stops>'
            f'</style:paragraph-properties><style:text-properties {text}/></style:style>')


BOLD = 'fo:font-weight="bold"'
STYLES = "".join([
    '<style:style style:name="Standard" style:family="paragraph"><style:text-properties '
    'style:font-name="Liberation Serif" fo:font-family="Liberation Serif" fo:font-size="11pt" fo:language="fr" '
    'fo:country="FR"/></style:style>',
    _para("Text_20_body", extra='fo:margin-bottom="0.2cm" fo:line-height="115%"'),
    _para("Heading_20_1", "17pt", 'fo:margin-top="0.4cm" fo:margin-bottom="0.2cm" fo:keep-with-next="always"',
          BOLD + ' fo:font-family="Liberation Sans"'),
    _para("Heading_20_2", "13.5pt", 'fo:margin-top="0.35cm" fo:margin-bottom="0.2cm" fo:keep-with-next="always"',
          BOLD + ' fo:font-family="Liberation Sans"'),
    _para("Heading_20_3", "12pt", 'fo:margin-top="0.3cm" fo:margin-bottom="0.15cm" fo:keep-with-next="always"',
          BOLD + ' fo:font-family="Liberation Sans"'),
    _para("Title", "28pt", 'fo:text-align="center" fo:margin-top="6cm" fo:margin-bottom="0.6cm"', BOLD),
    _para("Subtitle", "13pt", 'fo:text-align="center" fo:margin-bottom="0.4cm"'),
    _para("List_20_Heading", extra='fo:keep-with-next="always" fo:margin-top="0.15cm"', text=BOLD),
    _para("List_20_Contents", extra='fo:margin-left="1cm" fo:margin-bottom="0.15cm"'),
    _para("Step_20_Title", extra='fo:keep-with-next="always" fo:margin-top="0.2cm"', text=BOLD),
    _para("Box", extra='fo:border="0.06pt solid #334477" fo:padding="0.2cm" fo:background-color="#eef0ff" '
          'fo:margin-top="0.2cm" fo:margin-bottom="0.2cm"'),
    _para("Caption", "9.5pt", 'fo:margin-bottom="0.25cm"', 'fo:font-style="italic"'),
    _para("Table_20_Caption", extra='fo:margin-top="0.2cm" fo:margin-bottom="0.1cm" fo:keep-with-next="always"',
          text=BOLD),
    _para("Table_20_Contents", "10.5pt"),
    _para("Table_20_Heading", "10.5pt", text=BOLD),
    _para("Legal", "8.5pt", 'fo:margin-top="0.3cm"'),
    _para("Back", "9pt", 'fo:text-align="end"'),
    _para("Footer", "9pt", 'fo:text-align="center"'),
    _para("Contents_20_Heading", "15pt", 'fo:margin-bottom="0.3cm"', BOLD),
    _contents("Contents_20_1", 'fo:margin-top="0.1cm"', BOLD),
    _contents("Contents_20_2", 'fo:margin-left="0.5cm"', ""),
])
LISTS = ('<text:list-style style:name="Bullets"><text:list-level-style-bullet text:level="1" text:bullet-char="•">'
         '<style:list-level-properties text:list-level-position-and-space-mode="label-alignment">'
         '<style:list-level-label-alignment text:label-followed-by="listtab" text:list-tab-stop-position="1.27cm" '
         'fo:text-indent="-0.635cm" fo:margin-left="1.27cm"/></style:list-level-properties>'
         '</text:list-level-style-bullet></text:list-style>'
         '<text:list-style style:name="Numbers"><text:list-level-style-number text:level="1" style:num-suffix="." '
         'style:num-format="1"><style:list-level-properties text:list-level-position-and-space-mode="label-alignment">'
         '<style:list-level-label-alignment text:label-followed-by="listtab" text:list-tab-stop-position="1.27cm" '
         'fo:text-indent="-0.635cm" fo:margin-left="1.27cm"/></style:list-level-properties>'
         '</text:list-level-style-number></text:list-style>')
AUTOMATIC = "".join([
    '<style:style style:name="Cover" style:family="paragraph" style:parent-style-name="Title"/>',
    '<style:style style:name="Cell" style:family="table-cell"><style:table-cell-properties '
    'fo:border="0.5pt solid #000000" fo:padding="0.08cm"/></style:style>',
    '<style:style style:name="TwoCols" style:family="section"><style:section-properties>'
    '<style:columns fo:column-count="2" fo:column-gap="0.8cm"/></style:section-properties></style:style>',
    '<style:style style:name="Figure" style:family="graphic"><style:graphic-properties '
    'style:wrap="none" style:vertical-pos="top" style:horizontal-pos="center" '
    'style:horizontal-rel="paragraph"/></style:style>',
])
PAGES = ('<style:page-layout style:name="A4"><style:page-layout-properties fo:page-width="21cm" '
         'fo:page-height="29.7cm" fo:margin-top="2cm" fo:margin-bottom="1.5cm" fo:margin-left="2cm" '
         'fo:margin-right="2cm"/><style:footer-style><style:header-footer-properties fo:min-height="0.6cm" '
         'fo:margin-top="0.4cm"/></style:footer-style></style:page-layout>')
MASTERS = ('<style:master-page style:name="Standard" style:page-layout-name="A4"><style:footer>'
           '<text:p text:style-name="Footer"><text:page-number text:select-page="current"/></text:p>'
           '</style:footer></style:master-page>')


def _p(style: str, text: str) -> str:
    return f'<text:p text:style-name="{style}">{escape(text)}</text:p>'


def _h(level: int, text: str) -> str:
    return f'<text:h text:style-name="Heading_20_{level}" text:outline-level="{level}">{escape(text)}</text:h>'


def _entry(style: str, text: str, page: int) -> str:
    return f'<text:p text:style-name="{style}">{escape(text)}<text:tab/>{page}</text:p>'


PAGE_BREAK = "<!--page-->"


def _breaks(xml: str) -> tuple[str, str]:
    """Each page's first paragraph in a copy of its style that starts a page (an empty paragraph for the
    break would add a blank page in the DOCX export), and those styles."""
    styles, pages = set(), xml.split(PAGE_BREAK)
    for n in range(1, len(pages)):
        match = re.search(r'text:style-name="([^"]+)"', pages[n])
        if match:
            styles.add(match.group(1))
            pages[n] = pages[n][:match.start(1)] + match.group(1) + "_brk" + pages[n][match.end(1):]
    auto = "".join(f'<style:style style:name="{name}_brk" style:family="paragraph" style:parent-style-name="{name}">'
                   '<style:paragraph-properties fo:break-before="page"/></style:style>' for name in sorted(styles))
    return "".join(pages), auto


def _body(doc: Document, folder: Path) -> list[str]:
    out, figures = [], 0
    for n, page in enumerate(doc.pages):
        if n:
            out.append(PAGE_BREAK)
        lst = None
        for item in page:
            k, t = item.kind, item.text
            if lst and k != lst:
                out.append("</text:list>")
                lst = None
            if k == "cover":
                out += [_p("Cover", doc.title), _p("Subtitle", doc.tagline), _p("Subtitle", doc.author),
                        _p("Legal", doc.legal)]
            elif k == "toc":
                # The title outside the index body: a page break on it survives the DOCX export.
                out.append(_p("Contents_20_Heading", TOC_TITLE) + '<text:table-of-content text:name="Sommaire">'
                           '<text:table-of-content-source text:outline-level="2"/><text:index-body>')
                for page_no, h in doc.headings():
                    out.append(_entry("Contents_20_1" if h.kind == "h1" else "Contents_20_2", h.text, page_no + 1))
                out.append("</text:index-body></text:table-of-content>")
            elif k == "lot":
                out.append(_p("Contents_20_Heading", LOT_TITLE) + '<text:table-index text:name="Tableaux">'
                           '<text:table-index-source/><text:index-body>')
                out += [_entry("Contents_20_2", t.text, page_no + 1) for page_no, t in doc.tables()]
                out.append("</text:index-body></text:table-index>")
            elif k == "index":
                out.append(_h(1, INDEX_TITLE))
                out += [_p("Text_20_body", f"{term}, {', '.join(map(str, where))}")
                        for term, where in doc.index_entries()]
            elif k in ("h1", "h2"):
                out.append(_h(int(k[1]), t))
            elif k in ("p", "menu"):
                out.append(_p("Text_20_body", t))
            elif k in ("li", "ol"):
                if lst is None:
                    style = "Bullets" if k == "li" else "Numbers"
                    out.append(f'<text:list text:style-name="{style}">')
                    lst = k
                start = f' text:start-value="{item.number}"' if k == "ol" and item.number != 1 else ""
                out.append(f"<text:list-item{start}>{_p('Text_20_body', t)}</text:list-item>")
            elif k == "step":
                out += [_p("Step_20_Title", t), _p("Text_20_body", item.detail)]
            elif k == "term":
                out += [_p("List_20_Heading", t), _p("List_20_Contents", item.detail)]
            elif k == "faq":
                out += [_h(3, t), _p("Text_20_body", item.detail)]
            elif k == "box":
                out.append(_p("Box", t))
            elif k == "figure":
                figures += 1
                png, _ = picture(folder, figures)
                data = base64.b64encode(png.read_bytes()).decode()
                out.append('<text:p text:style-name="Text_20_body"><draw:frame draw:style-name="Figure" '
                           f'draw:name="Image{figures}" text:anchor-type="paragraph" svg:width="8cm" '
                           f'svg:height="4cm"><draw:image><office:binary-data>{data}</office:binary-data>'
                           "</draw:image></draw:frame></text:p>")
                out.append(_p("Caption", t))
            elif k == "table":
                out.append(_p("Table_20_Caption", t))
                cols = len(item.rows[0])
                out.append(f'<table:table table:name="Tableau{len(out)}"><table:table-column '
                           f'table:number-columns-repeated="{cols}"/><table:table-header-rows><table:table-row>')
                out += [f'<table:table-cell table:style-name="Cell">{_p("Table_20_Heading", c)}</table:table-cell>'
                        for c in item.rows[0]]
                out.append("</table:table-row></table:table-header-rows>")
                for row in item.rows[1:]:
                    out.append("<table:table-row>" + "".join(
                        f'<table:table-cell table:style-name="Cell">{_p("Table_20_Contents", c)}</table:table-cell>'
                        for c in row) + "</table:table-row>")
                out.append("</table:table>")
            elif k == "cols":
                out.append('<text:section text:style-name="TwoCols" text:name="Colonnes">')
            elif k == "endcols":  # an empty paragraph after it: a page break next to a section is lost in DOCX
                out.append('</text:section><text:p text:style-name="Text_20_body"/>')
            elif k == "back":
                out.append(_p("Back", BACK))
            elif k == "legal":
                out.append(_p("Legal", t))
        if lst:
            out.append("</text:list>")
    return out


def fodt(doc: Document, folder: Path) -> str:
    body, breaks = _breaks("".join(_body(doc, folder)))
    return ('<?xml version="1.0" encoding="UTF-8"?>\n'
            f'<office:document {NS} office:version="1.3" office:mimetype="application/vnd.oasis.opendocument.text">'
            '<office:font-face-decls><style:font-face style:name="Liberation Serif" svg:font-family="\'Liberation '
            'Serif\'"/><style:font-face style:name="Liberation Sans" svg:font-family="\'Liberation Sans\'"/>'
            f"</office:font-face-decls><office:styles>{STYLES}{LISTS}</office:styles>"
            f"<office:automatic-styles>{AUTOMATIC}{breaks}{PAGES}</office:automatic-styles>"
            f"<office:master-styles>{MASTERS}</office:master-styles>"
            f'<office:body><office:text>{body}</office:text></office:body>'
            "</office:document>")


def _soffice(folder: Path, target: str, source: Path) -> Path:
    profile = folder / "lo-profile"
    subprocess.run(["soffice", f"-env:UserInstallation={profile.resolve().as_uri()}", "--headless",
                    "--convert-to", target, "--outdir", str(folder), str(source)], check=True,
                   capture_output=True, timeout=300)
    return folder / f"{source.stem}.{target.split(':')[0]}"


def libreoffice(doc: Document, folder: Path, via: str) -> Path:
    """`via`: "odt" or "docx", the file LibreOffice saves and then exports to PDF."""
    work = folder / f"{doc.name}-lo-{via}"
    work.mkdir(exist_ok=True)
    source = work / f"{doc.name}-libreoffice-{via}.fodt"
    source.write_text(fodt(doc, folder), "utf-8")
    saved = _soffice(work, via, source)
    pdf = _soffice(work, "pdf", saved)
    shutil.copy(pdf, folder / pdf.name)
    return folder / pdf.name
