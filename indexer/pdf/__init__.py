"""Rulebook PDF -> one corpus Markdown file citing the printed pages (`rulesqa import`).

The Markdown stays the single source `rulesqa index` reads, so a person can review and correct an import;
the PDF is copied beside it (header `source:`) for the page images, with a layout sidecar for highlights.
"""

import re
import tempfile
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from indexer.errors import CorpusError, PdfError
from indexer.pdf.document.writer import LAYOUT_SUFFIX

GAME_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")


@dataclass
class ImportResult:
    markdown: Path
    pdf: Path
    layout: Path
    pages: int  # pages of the PDF
    imported_pages: list[int]  # printed pages whose text was imported
    skipped: list[str]  # PDF pages left out (no arabic number: cover, front matter), by label or position
    numbering: str  # labels | printed | physical
    ocr_pages: int
    blocks: int
    card: dict  # the card fields read on the cover or box pages (header keys), to be checked
    lexique_todo: list  # component nouns the lexique proposal could not fill
    left_out: dict = field(default_factory=dict)  # navigation lines left out, by kind (navigation.py)
    kinds: dict = field(default_factory=dict)  # passages written, by kind (indexer.passages.KINDS), card aside
    fragments: int = 0  # of them, passages too short to say anything alone (indexer.passages.is_fragment)
    reader: str = "poppler"  # the text layer that read the pages (READERS)


MAX_PAGES = 500  # default page limit of an import (RULESQA_IMPORT_MAX_PAGES, `rulesqa import --max-pages`)
REOPEN_EVERY = 50  # pages read with one pdfium document before it is reopened (its caches dropped)


def import_pdf(pdf: Path, corpus_dir: Path, game_id: str, title: str, aliases: list[str] = (),
               ocr: bool = False, force: bool = False, max_pages: int = MAX_PAGES,
               lexicon_groups: list[list[str]] = (), reader: str = "auto") -> ImportResult:
    """`lexicon_groups`: the generic players' lexicon (service/engine/data/lexicon.json), from which the `lexique:`
    proposal for the rulebook's components is drawn. `reader`: the text layer (READERS)."""
    from indexer.passages import is_fragment
    from indexer.pdf.page.layout import finish
    from indexer.pdf.page.numbering import mark_running, number_pages
    from indexer.pdf.document.writer import render_markdown

    pdf, corpus_dir = Path(pdf), Path(corpus_dir)
    target = _checked_target(corpus_dir, game_id, title, force)
    reader_name(reader)  # an unknown reader refused before the PDF is opened
    labels, pages, scanned, reader = _read_pages(pdf, max_pages, ocr, reader)
    sheets = len(pages)
    labels, pages = _spreads_cut(labels, pages)
    numbering, numbers = number_pages(labels, pages)
    mark_running(pages, numbers)
    pages = [finish(page) if page is not None else None for page in pages]
    left_out = Counter()
    blocks = _blocks(pages, numbers, left_out)
    if not blocks:
        raise PdfError(f"{pdf.name} : aucun texte de règle trouvé sur les pages numérotées")
    card, lexique, todo = _box_facts(pages, numbers, blocks, lexicon_groups)
    where = [page.where() if page is not None else i for i, page in enumerate(pages)]
    # The pages' lines are no longer needed: released before the Markdown is written and read back.
    del pages
    for block in blocks:
        block._first = block._last = None
    header = {"id": game_id, "title": title.strip(), "aliases": ", ".join(a.strip() for a in aliases if a.strip()),
              **card, "lexique": lexique,
              "source": f"{game_id}.pdf", "pages": numbering, "ocr": "tesseract" if ocr and scanned else ""}
    markdown, lines = render_markdown(header, blocks, _notes(card, lexique, todo))
    page_map = {n: where[i] for i, n in enumerate(numbers) if n is not None}
    written = _passages_as_indexed(markdown, game_id)
    copy, layout = _write(pdf, target, markdown, page_map, lines)
    skipped = [labels[i] or str(i + 1) for i, n in enumerate(numbers) if n is None]
    return ImportResult(target, copy, layout, sheets, sorted(page_map), skipped, numbering,
                        len(scanned) if ocr else 0, len(blocks), card, todo, dict(left_out),
                        dict(Counter(p.kind for p in written).most_common()), sum(map(is_fragment, written)), reader)


def _checked_target(corpus_dir: Path, game_id: str, title: str, force: bool) -> Path:
    """The game's Markdown file in the corpus folder, once the id, the title and the folder allow the import."""
    if not GAME_ID.match(game_id):
        raise PdfError(f"id « {game_id} » invalide (minuscules, chiffres et tirets, ex. « zorglub »)")
    if not title.strip():
        raise PdfError("titre vide (--title)")
    if not corpus_dir.is_dir():
        raise PdfError(f"dossier de corpus introuvable : {corpus_dir}")
    target = corpus_dir / f"{game_id}.md"
    if target.exists() and not force:
        raise PdfError(f"le jeu « {game_id} » existe déjà ({target}) : --force pour le remplacer")
    other = _file_with_id(corpus_dir, game_id, target)
    if other is not None:
        raise PdfError(f"l'id « {game_id} » est déjà celui de {other} : choisissez un autre --game")
    return target


READERS = ("auto", "poppler", "glyphs")  # the text layer: poppler's layout, or our own glyph grouping (pdfium)


# A web page printed by Chromium (Skia): its glyph layer reads better than poppler's layout on the real-documents
# benchmark (docs/IMPORT.md: 83.6 % of units whole against 74.1 %), where poppler cuts a line at each inline run.
GLYPHS_PRODUCERS = re.compile(r"^Skia/PDF\b")


def reader_name(reader: str, producer: str = "") -> str:
    """The text layer an import uses: `auto` is poppler's where pdftotext is installed, but for the producers whose
    own glyph layer measures better (GLYPHS_PRODUCERS)."""
    from indexer.pdf.page import poppler

    if reader not in READERS:
        raise PdfError(f"lecteur « {reader} » inconnu : {', '.join(READERS)}")
    if reader == "auto":
        return "poppler" if poppler.available() and not GLYPHS_PRODUCERS.match(producer or "") else "glyphs"
    return reader


def _read_pages(pdf: Path, max_pages: int, ocr: bool, reader: str) -> tuple[list[str], list, list[int], str]:
    """(page labels, each page's text or None for a page without text, the indexes of those, the text layer that
    read them): the scanned pages read by OCR when `ocr`."""
    from indexer.pdf.page.layout import open_pdf, page_labels, read_page

    doc = open_pdf(pdf)
    try:
        if len(doc) > max_pages:
            raise PdfError(f"{pdf.name} a {len(doc)} pages, plus que la limite de {max_pages} : "
                           "relevez-la avec --max-pages (ou RULESQA_IMPORT_MAX_PAGES)")
        labels = page_labels(doc)
        reader = reader_name(reader, doc.get_metadata_dict().get("Producer", ""))
        # Page by page: each page's characters are released once its lines are built. pdfium keeps what it
        # parsed (fonts, images) for the document's life: reopened every few pages, memory stays flat.
        pages = []
        for start in range(0, len(doc), REOPEN_EVERY):
            if start:
                doc.close()
                _release_freed_memory()
                doc = open_pdf(pdf)
            end = min(start + REOPEN_EVERY, len(doc))
            laid_out = _laid_out(pdf, start, end) if reader == "poppler" else [None] * (end - start)
            pages += [read_page(doc, i, laid_out[i - start]) for i in range(start, end)]
        scanned = [i for i, page in enumerate(pages) if page is None]
        if len(scanned) == len(pages) and not ocr:
            raise PdfError(f"{pdf.name} n'a pas de texte (un scan ?) : relancez avec --ocr pour le lire par OCR")
        if ocr and scanned:
            from indexer.pdf.page.ocr import ocr_pages

            for i, page in ocr_pages(doc, scanned).items():
                pages[i] = page
    finally:
        doc.close()
    return labels, pages, scanned, reader


def _laid_out(pdf: Path, start: int, end: int) -> list:
    """Poppler's layout of the PDF pages start..end-1; a page it did not give is read from the glyphs."""
    from indexer.pdf.page.poppler import poppler_pages

    pages = poppler_pages(pdf, start + 1, end)
    return pages + [None] * (end - start - len(pages)) if len(pages) <= end - start else pages[:end - start]


def _spreads_cut(labels: list[str], pages: list) -> tuple[list[str], list]:
    """Each spread (two printed pages on one PDF page) cut into its two pages; the pages re-indexed by their
    position, a half's label left empty (the PDF labels the sheet, not the printed page)."""
    from indexer.pdf.page.layout import spread_halves

    out_labels, out = [], []
    for label, page in zip(labels, pages):
        halves = spread_halves(page) if page is not None else None
        for cut in halves or [page]:
            if cut is not None:
                cut.sheet = page.index
                cut.index = len(out)
            out.append(cut)
            out_labels.append("" if halves else label)
    return out_labels, out


def _blocks(pages: list, numbers: list[int | None], left_out: Counter) -> list:
    """The numbered pages' text as blocks, each stage once and in order: lines, navigation's lines left out,
    blocks, units, navigation's blocks left out, kinds. `left_out` counts what navigation left out, by kind."""
    from indexer.pdf.document.kinds import mark_kinds
    from indexer.pdf.document.navigation import drop_blocks, drop_lines
    from indexer.pdf.document.structure import build_blocks, numbered_lines
    from indexer.pdf.document.units import group_units

    lines = drop_lines(numbered_lines(pages, numbers), left_out)
    return mark_kinds(drop_blocks(group_units(build_blocks(lines)), left_out))


def _notes(card: dict, lexique: str, todo: list) -> list[str]:
    """The header's comments: what a person should check or complete."""
    notes = []
    if card or lexique:
        notes.append(f"à vérifier : {', '.join([*card, *(['lexique'] if lexique else [])])} lus par rulesqa import "
                     "(couverture, boîte, liste du matériel)")
    if todo:
        notes.append(f"lexique à compléter (mot du livret: mots des joueurs) : {', '.join(todo)}")
    return notes


def _passages_as_indexed(markdown: str, game_id: str) -> list:
    """The passages `rulesqa index` will read in the Markdown, card aside: checked before anything is written
    (outside the corpus folder, where an index build running meanwhile would read it as a game)."""
    from indexer.corpus import read_game
    from indexer.passages import passages_of

    with tempfile.TemporaryDirectory(prefix="rulesqa-import-") as tmp:
        probe = Path(tmp) / f"{game_id}.md"
        probe.write_text(markdown, encoding="utf-8")
        try:
            return [p for p in passages_of(read_game(probe)) if not p.is_card]
        except CorpusError as exc:
            raise PdfError(f"import incohérent ({exc.reason}) : signalez ce PDF") from None


def _write(pdf: Path, target: Path, markdown: str, page_map: dict[int, int], lines: list) -> tuple[Path, Path]:
    """(the PDF's copy, the layout sidecar), written beside the Markdown, which is written last: the game
    exists once its text does."""
    from indexer.pdf.document.writer import layout_json, write_atomic

    layout = target.with_name(f"{target.stem}{LAYOUT_SUFFIX}")  # the game's id, as the Markdown's name
    copy = target.with_name(f"{target.stem}.pdf")
    if pdf.resolve() != copy.resolve():
        write_atomic(copy, pdf.read_bytes())
    write_atomic(layout, layout_json(page_map, lines))
    write_atomic(target, markdown.encode("utf-8"))
    return copy, layout


def _box_facts(pages, numbers, blocks, lexicon_groups) -> tuple[dict, str, list]:
    """(card fields, lexique proposal, component nouns left to complete): the card read on the pages without
    a printed number (cover, back of the box) and the first and last numbered pages."""
    from indexer.pdf.document.card_fields import card_fields, component_nouns, propose_lexique

    numbered = [i for i, n in enumerate(numbers) if n is not None]
    chosen = [i for i, n in enumerate(numbers) if n is None] + numbered[:1] + numbered[-1:]
    texts = ["\n".join(line.text for line in pages[i].lines) for i in dict.fromkeys(chosen) if pages[i] is not None]
    card = card_fields(texts)
    if "year" in card and not re.fullmatch(r"\d{4}", card["year"]):
        del card["year"]
    lexique, todo = propose_lexique(component_nouns(blocks), list(lexicon_groups))
    return card, lexique, todo


def _release_freed_memory() -> None:
    """Hand what pdfium freed back to the system (glibc keeps freed native memory otherwise); a no-op where
    there is no glibc."""
    import ctypes
    import ctypes.util

    try:
        ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):
        pass


def _file_with_id(corpus_dir: Path, game_id: str, target: Path) -> Path | None:
    """Another corpus file that declares this id (two files with one id would stop the index build)."""
    wanted = re.compile(rf"^id:\s*{re.escape(game_id)}\s*$", re.M)
    for path in sorted(corpus_dir.glob("*.md")):
        if path.name.lower() == "readme.md" or path == target:
            continue
        try:
            head = path.read_text("utf-8", errors="replace")[:4000]
        except OSError:
            continue
        if wanted.search(head.split("\n---", 1)[0] if head.startswith("---") else ""):
            return path
    return None
