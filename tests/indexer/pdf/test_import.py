"""`rulesqa import` on generated rulebooks from two producers: printed pages, clean verbatim text, bad inputs."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from indexer.corpus import read_game
from indexer.errors import PdfError
from indexer.passages import passages_of
from indexer.pdf import import_pdf

RULESQA = [sys.executable, "-m", "rulesqa"]


def cli(*args):
    return subprocess.run([*RULESQA, *map(str, args)], capture_output=True, text=True, timeout=300)


def body_lines(md: Path) -> dict[str, tuple[int, ...]]:
    """Each imported line (marker and list dash removed) -> its cited pages."""
    doc = read_game(md)
    out = {}
    for block in doc.blocks:
        for line in block.lines:
            out[line.text] = line.pages
    for heading in re.findall(r"^#+ (.+?) \(p\. [\d, -]+\)$", md.read_text("utf-8"), re.M):
        out[heading] = ()
    return out


def squash(text: str) -> str:
    # Line wrapping and hyphenation are the only differences allowed between the PDF and an imported line.
    # pdfium reports a line-end hyphen as U+FFFE.
    return re.sub(r"[\s\-\u00ad\ufffe\x00-\x1f]+", "", text)


def pdf_pages_text(path: Path, labels: dict[int, int]) -> dict[int, str]:
    """pdfium's own text of each printed page (its label -> text), lines repeated on several pages (running
    header, footer) and lone page numbers left out so that a paragraph over a page break reads on."""
    from collections import Counter

    import pypdfium2 as pdfium

    from indexer.pdf.text import normalise

    doc = pdfium.PdfDocument(str(path))
    raw = {i: doc[i].get_textpage().get_text_range().replace("\r\n", "\n").split("\n") for i in range(len(doc))}
    doc.close()
    seen = Counter(line.strip() for lines in raw.values() for line in set(lines))
    return {n: squash(normalise("\n".join(line for line in raw[i]
                                          if seen[line.strip()] < 2 and not line.strip().isdigit())))
            for n, i in labels.items()}


def check_pages(md: Path, expected) -> None:
    doc = read_game(md)
    cited = {line.text: line.pages for block in doc.blocks for line in block.lines}
    headings = dict(re.findall(r"^#+ (.+?) \(p\. ([\d-]+)\)$", md.read_text("utf-8"), re.M))
    for e in expected:
        if e.kind in ("h1", "h2"):
            assert headings.get(e.text) == "-".join(map(str, e.pages)), e.text
        else:
            assert cited.get(e.text) == e.pages, (e.text, cited.get(e.text))


@pytest.mark.parametrize("fixture, numbering", [("labelled_pdf", "labels"), ("printed_pdf", "printed"),
                                               ("chromium_pdf", "printed")])
def test_every_passage_cites_the_printed_page_of_its_text(fixture, numbering, request, tmp_path):
    pdf, expected = request.getfixturevalue(fixture)
    result = import_pdf(pdf, tmp_path, "zorglub", "Zorglub", ["Le Zorglub"])
    md = result.markdown
    check_pages(md, expected)
    header = md.read_text("utf-8").split("---")[1]
    assert f"pages: {numbering}" in header and "source: zorglub.pdf" in header and "ocr:" not in header
    assert (tmp_path / "zorglub.pdf").read_bytes() == pdf.read_bytes()
    # Headings keep their hierarchy: chapters (#) above sub-sections (##).
    text = md.read_text("utf-8")
    assert re.search(r"^# (Mise en place|Préparer la partie) \(p\. 1\)$", text, re.M)
    assert re.search(r"^## (Le matériel|Le matériel des joueurs) \(p\. 1\)$", text, re.M)
    # Every passage cites pages: none fell outside a printed page.
    assert all(p.pages for p in passages_of(read_game(md)))


def test_cover_and_front_matter_are_left_out_and_running_text_removed(labelled_pdf, printed_pdf, tmp_path):
    for n, (pdf, _) in enumerate((labelled_pdf, printed_pdf)):
        result = import_pdf(pdf, tmp_path, f"z{n}", "Zorglub")
        text = result.markdown.read_text("utf-8")
        assert result.skipped == (["Couverture", "i"] if n == 0 else ["1", "2"])
        for gone in ("ZORGLUB", "Sommaire", "Règles du jeu", "Édition 2026", "(p. 4)", "(p. 5)"):
            assert gone not in text, gone
        assert not re.search(r"^\d+ \(p\.", text, re.M)  # no page number left as text


def test_every_imported_line_is_in_the_pdfs_own_text(labelled_pdf, chromium_pdf, tmp_path):
    for n, (pdf, _) in enumerate((labelled_pdf, chromium_pdf)):
        md = import_pdf(pdf, tmp_path, f"g{n}", "Jeu").markdown
        layout = json.loads((tmp_path / f"g{n}.layout.json").read_text("utf-8"))
        pages = pdf_pages_text(pdf, {int(k): v for k, v in layout["pages"].items()})
        lines = body_lines(md)
        rows = {line.text for block in read_game(md).blocks if block.kind == "table" for line in block.lines}
        assert len(lines) >= 10
        for line, cited in lines.items():
            # Found in the text of exactly the pages it cites (headings: anywhere in the rulebook); a table
            # row (no header here) is its cells in order, " ; " between them.
            source = "".join(pages[p] for p in cited) if cited else "".join(pages.values())
            text = line.replace(" ; ", " ") if line in rows else line
            assert squash(text.lstrip("• ")) in source, line


def test_hyphenation_joined_and_compounds_kept(labelled_pdf, tmp_path):
    text = import_pdf(labelled_pdf[0], tmp_path, "z", "Zorglub").markdown.read_text("utf-8")
    assert "pile de défausse, face visible" in text and "dé-" not in text
    assert "c'est peut-être le plus rusé" in text


def test_cli_writes_the_game_prints_its_path_last_and_refuses_to_overwrite(labelled_pdf, tmp_path):
    pdf, _ = labelled_pdf
    out = cli("import", pdf, "--game", "zorglub", "--title", "Zorglub", "--alias", "Le Zorglub", "--corpus", tmp_path)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == str(tmp_path / "zorglub.md")
    assert "aliases: Le Zorglub" in (tmp_path / "zorglub.md").read_text("utf-8")
    before = (tmp_path / "zorglub.md").read_text("utf-8")
    again = cli("import", pdf, "--game", "zorglub", "--title", "Autre", "--corpus", tmp_path)
    assert again.returncode == 2 and "existe déjà" in again.stderr and "--force" in again.stderr
    assert (tmp_path / "zorglub.md").read_text("utf-8") == before
    forced = cli("import", pdf, "--game", "zorglub", "--title", "Autre", "--corpus", tmp_path, "--force")
    assert forced.returncode == 0 and "title: Autre" in (tmp_path / "zorglub.md").read_text("utf-8")


def _bad_inputs(tmp: Path, good: Path) -> dict[str, tuple[Path, str]]:
    from reportlab.pdfgen.canvas import Canvas

    enc = tmp / "chiffre.pdf"
    c = Canvas(str(enc), encrypt="secret")
    c.drawString(72, 720, "Texte secret")
    c.save()
    corrupt = tmp / "abime.pdf"
    corrupt.write_bytes(good.read_bytes()[:400] + b"\n%%EOF\n")  # ends as a PDF does, its body cut: damaged
    empty = tmp / "vide.pdf"
    empty.write_bytes(b"")
    text = tmp / "regles.pdf"
    text.write_text("Ceci n'est pas un PDF.", encoding="utf-8")
    return {"encrypted": (enc, "chiffré"), "corrupt": (corrupt, "endommagé"), "empty": (empty, "n'est pas un PDF"),
            "not a pdf": (text, "n'est pas un PDF")}


def test_bad_inputs_are_one_french_line_exit_2_nothing_written(labelled_pdf, tmp_path):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    for name, (path, fragment) in _bad_inputs(tmp_path, labelled_pdf[0]).items():
        out = cli("import", path, "--game", "zorglub", "--title", "Zorglub", "--corpus", corpus)
        assert out.returncode == 2, name
        assert out.stderr.count("\n") == 1 and fragment in out.stderr and "Traceback" not in out.stderr, name
        assert list(corpus.iterdir()) == [], name
    missing = cli("import", tmp_path / "absent.pdf", "--game", "zorglub", "--title", "Z", "--corpus", corpus)
    assert missing.returncode == 2 and "introuvable" in missing.stderr
    with pytest.raises(PdfError, match="id « Zorglub! » invalide"):
        import_pdf(labelled_pdf[0], corpus, "Zorglub!", "Zorglub")


def test_a_scan_is_refused_without_ocr(scanned_pdf, tmp_path):
    out = cli("import", scanned_pdf[0], "--game", "zorglub", "--title", "Zorglub", "--corpus", tmp_path)
    assert out.returncode == 2 and "--ocr" in out.stderr and out.stderr.count("\n") == 1
    assert list(tmp_path.iterdir()) == []


def test_a_scan_is_read_by_tesseract_with_printed_pages(scanned_pdf, tesseract, tmp_path):
    result = import_pdf(scanned_pdf[0], tmp_path, "zorglub", "Zorglub", ocr=True)
    text = result.markdown.read_text("utf-8")
    assert "ocr: tesseract" in text and "pages: printed" in text and result.ocr_pages == 5
    lines = body_lines(result.markdown)
    # Every paragraph, bullet and table row whole (tesseract's paragraphs, not its lines), on its page;
    # a paragraph over the page break cites both.
    for e in scanned_pdf[1]:
        if e.kind not in ("h1", "h2"):
            assert lines.get(e.text) == e.pages, (e.text, e.pages)
    # No sentence read as a heading, no running header or page number kept.
    headings = re.findall(r"^#+ (.+?) \(p\. [\d-]+\)$", text, re.M)
    assert headings and set(headings) <= {e.text for e in scanned_pdf[1] if e.kind in ("h1", "h2")}, headings
    assert "Règles du jeu" not in text and "Édition 2026" not in text
    assert not re.search(r"^\d+ \(p\.", text, re.M)


def test_lists_and_table_rows_stay_one_line_each(labelled_pdf, tmp_path):
    text = import_pdf(labelled_pdf[0], tmp_path, "z", "Zorglub").markdown.read_text("utf-8")
    assert ("- 48 cartes Zorglub (p. 1)\n- 6 dés spéciaux à huit faces (p. 1)\n"
            "- 1 sac en tissu pour les jetons (p. 1)\n") in text
    # The table's rows in the corpus's table syntax (no header: its columns are not named).
    assert ("|  |  |\n|---|---|\n| Carte Zorglub | 3 points | (p. 3)\n| Dé doré | 1 point | (p. 3)\n"
            "| Jeton bonus caché | 2 points | (p. 3)\n") in text
    # Each bullet and each row is its own passage, citing its page.
    passages = {p.text: p.pages for p in passages_of(read_game(tmp_path / "z.md"))}
    assert passages["48 cartes Zorglub"] == (1,)
    assert passages["Dé doré ; 1 point"] == (3,)


def test_an_id_already_declared_by_another_file_is_refused(labelled_pdf, tmp_path):
    (tmp_path / "zorglub-v1.md").write_text("---\nid: zorglub\ntitle: Zorglub\n---\n\nUne règle. (p. 1)\n", "utf-8")
    with pytest.raises(PdfError, match="déjà celui de .*zorglub-v1.md"):
        import_pdf(labelled_pdf[0], tmp_path, "zorglub", "Zorglub", force=True)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["zorglub-v1.md"]
