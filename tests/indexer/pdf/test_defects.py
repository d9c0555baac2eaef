"""One generated rulebook per trap that real producers set (tests/pdf_defects.py). Each import must write
exactly the expected lines, nothing more (no running header, number, symbol row or leader), each whole,
with clean words, citing the printed page it is on."""

import json
import re
import subprocess
import sys

import pytest

from indexer.errors import PdfError
from indexer.pdf import import_pdf
from tests.pdf_defects import tex_like

LINE = re.compile(r"^(?:#+ |- )?(.*) \(p\. ([\d, -]+)\)$")


def imported(tmp_path, **traps):
    pdf = tmp_path / "regles.pdf"
    expected = tex_like(pdf, **traps)
    result = import_pdf(pdf, tmp_path, "zorglub", "Zorglub")
    return result, result.markdown.read_text("utf-8"), expected


def lines_of(markdown: str) -> dict[str, str]:
    out = {}
    for line in markdown.split("---", 2)[2].splitlines():
        match = LINE.match(line)
        assert match or not line.strip(), f"line without page: {line!r}"
        if match:
            out[match.group(1)] = match.group(2)
    return out


def pages(expected) -> str:
    return f"{expected.pages[0]}-{expected.pages[-1]}" if len(expected.pages) > 1 else str(expected.pages[0])


def assert_exactly(expected, markdown: str) -> None:
    got = lines_of(markdown)
    for e in expected:
        assert got.get(e.text) == pages(e), (e.text, got.get(e.text))
    assert set(got) == {e.text for e in expected}, set(got) - {e.text for e in expected}


@pytest.mark.parametrize("gap", [0.2, 0.33])
def test_text_drawn_without_space_glyphs_keeps_its_words(gap, tmp_path):
    # TeX draws no space: words are placed apart, the gap squeezed to a fifth of an em on tight lines.
    _, text, expected = imported(tmp_path, spaces=False, word_gap=gap)
    assert_exactly(expected, text)


def test_accents_drawn_as_their_own_glyph_are_composed(tmp_path):
    # "e" then "´" over it, some accents drawn at the end of the page's content; "À" under a raised grave.
    _, text, expected = imported(tmp_path, accents=True)
    assert_exactly(expected, text)
    assert not re.search(r"[´`ˆ¨¸]", text)
    assert "À ton tour" in text and "Ça n'arrive" in text and "règles" in text


def test_page_number_inside_a_decorated_footer_away_from_the_edge(tmp_path):
    # "© Éditions Zorglub 2021 · 4 · Règles du jeu" at 13 % of the height, no page labels.
    result, text, expected = imported(tmp_path, footer="decorated", footer_y=110)
    assert result.numbering == "printed"
    assert_exactly(expected, text)
    assert "Éditions" not in text and "2021" not in text


def test_emphasis_in_other_fonts_stays_in_its_sentence(tmp_path):
    # Italic in a taller face, bold, monospace 0.6 pt below the baseline: their box tops differ by 2 pt.
    _, text, expected = imported(tmp_path, emphasis=True, spaces=False)
    assert_exactly(expected, text)
    assert "La commande relance s'écrit en entier : Secure Shell n'y est pour rien" in text


def test_running_headers_that_carry_the_chapter_title_are_removed(tmp_path):
    # "2     Chapitre 1. Mise en place" on even pages, "1.1. Mise en place     1" on odd ones: each text
    # appears once or twice, the page number is what they share. No footer.
    _, text, expected = imported(tmp_path, chapter_headers=True, footer=None)
    assert_exactly(expected, text)
    assert "Chapitre" not in text
    # The header of page 2 no longer stands between "dé-" and "fausse".
    assert "à côté de la défausse, toujours face cachée. (p. 1-2)" in text


def test_symbol_rows_are_neither_headings_nor_passages(tmp_path):
    _, text, expected = imported(tmp_path, symbols=True)
    assert_exactly(expected, text)
    assert "h h" not in text and "hhh" not in text


def test_dot_leaders_of_a_table_of_contents_are_left_out(tmp_path):
    _, text, expected = imported(tmp_path, leaders=True)
    assert_exactly(expected, text)
    assert "...." not in text and "934" not in text


def test_a_dash_that_goes_on_a_sentence_is_no_bullet(tmp_path):
    _, text, _ = imported(tmp_path)
    assert "le joueur actif, à la fin de son tour de jeu – s'il le souhaite – peut relancer" in text.lower()
    assert not re.search(r"^(- )?– s'il", text, re.M)  # neither a bullet nor a paragraph of its own


def test_a_cover_labelled_1_is_not_a_second_page_1(tmp_path):
    result, text, expected = imported(tmp_path, cover_label_1=True)
    assert result.numbering == "labels" and "1" in result.skipped[:1]
    assert_exactly(expected, text)
    layout = json.loads((tmp_path / "zorglub.layout.json").read_text("utf-8"))
    assert layout["pages"]["1"] == 2  # the page that prints 1, after the cover and one front page


def test_stripped_page_labels_the_printed_numbers_give_the_pages(tmp_path):
    # A cover and three unnumbered pages: the page's position would cite every line 4 pages off.
    result, text, expected = imported(tmp_path, front_pages=3)
    assert result.numbering == "printed"
    assert_exactly(expected, text)


def test_every_trap_at_once(tmp_path):
    result, text, expected = imported(tmp_path, spaces=False, word_gap=0.2, accents=True, emphasis=True,
                                      chapter_headers=True, footer="decorated", footer_y=110, symbols=True,
                                      leaders=True, front_pages=2)
    assert result.numbering == "printed"
    assert_exactly(expected, text)


def test_no_printed_number_the_position_is_used_said_in_the_header_and_warned(tmp_path):
    pdf = tmp_path / "sans-numeros.pdf"
    expected = tex_like(pdf, footer=None)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    out = subprocess.run([sys.executable, "-m", "rulesqa", "import", str(pdf), "--game", "zorglub", "--title", "Z",
                          "--corpus", str(corpus)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "attention" in out.stderr and "position" in out.stderr
    text = (corpus / "zorglub.md").read_text("utf-8")
    assert "pages: physical" in text.split("---")[1]
    # The cover is position 1 and a front page position 2: page 1 of the rules is position 3.
    got = lines_of(text)
    assert got[expected[1].text] == "3"


def test_the_page_limit_is_one_french_line(labelled_pdf, tmp_path):
    out = subprocess.run([sys.executable, "-m", "rulesqa", "import", str(labelled_pdf[0]), "--game", "z",
                          "--title", "Z", "--corpus", str(tmp_path), "--max-pages", "3"],
                         capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and out.stderr.count("\n") == 1 and "limite de 3" in out.stderr
    assert list(tmp_path.iterdir()) == []
    env = {**__import__("os").environ, "RULESQA_IMPORT_MAX_PAGES": "2"}
    out = subprocess.run([sys.executable, "-m", "rulesqa", "import", str(labelled_pdf[0]), "--game", "z",
                          "--title", "Z", "--corpus", str(tmp_path)], capture_output=True, text=True, timeout=120,
                         env=env)
    assert out.returncode == 2 and "limite de 2" in out.stderr


@pytest.mark.parametrize("share", [0.3, 0.6, 0.9])
def test_a_truncated_pdf_says_so_in_french(labelled_pdf, tmp_path, share):
    data = labelled_pdf[0].read_bytes()
    cut = tmp_path / "coupe.pdf"
    cut.write_bytes(data[: int(len(data) * share)])
    with pytest.raises(PdfError) as error:  # never read as if whole, whatever pdfium could repair
        import_pdf(cut, tmp_path, "z", "Z")
    message = str(error.value)
    assert "coupe.pdf" in message and "tronqué" in message
    assert not re.search(r"PDFium|Failed|error|Error|Data format", message)
    assert not (tmp_path / "z.md").exists()


def test_highlight_boxes_cover_the_lines_they_name(tmp_path):
    # Line boxes are fractions of the rendered page: the first paragraph sits under the title, at the left.
    result, _, expected = imported(tmp_path, spaces=False, accents=True)
    layout = json.loads(result.layout.read_text("utf-8"))
    first = next(item for item in layout["lines"] if item["text"] == expected[1].text)
    page, x0, y0, x1, y1 = first["boxes"][0]
    assert page == 1 and len(first["boxes"]) == 2  # two printed lines
    assert abs(x0 - 70 / 595) < 0.01 and 0.13 < y0 < 0.2 and x1 <= 365 / 595 and y1 > y0


@pytest.mark.parametrize("rotation", [0, 90, 270])
def test_highlight_boxes_land_on_the_ink_of_the_rendered_page(rotation, tmp_path):
    # The page image is rendered as shown (the page's /Rotate applied): every line's box must cover ink there.
    import pypdfium2 as pdfium
    from reportlab.pdfgen.canvas import Canvas

    pdf = tmp_path / "tourne.pdf"
    c = Canvas(str(pdf), pagesize=(595, 842))
    for number, what in ((1, "un plateau"), (2, "trois cartes"), (3, "un pion")):
        # A rotated page is drawn in its own frame, landscape here, and shown turned to portrait.
        turned = number == 2 and rotation in (90, 270)
        c.setPageRotation(rotation if number == 2 else 0)
        c.setPageSize((842, 595) if turned else (595, 842))
        top = 595 if turned else 842
        c.setFont("Helvetica-Bold", 16)
        c.drawString(70, top - 80, f"Chapitre {number}")
        c.setFont("Helvetica", 10)
        c.drawString(70, top - 110, f"Chaque joueur prend {what} et le place devant lui.")
        c.drawString(400, top - 250, f"Une règle tout à droite, page {number}.")
        c.drawCentredString(297, 30, str(number))
        c.showPage()
    c.save()
    result = import_pdf(pdf, tmp_path, "tourne", "Tourne")
    layout = json.loads(result.layout.read_text("utf-8"))
    doc = pdfium.PdfDocument(str(pdf))
    image = doc[1].render(scale=1).to_pil().convert("L")
    doc.close()
    assert (image.width > image.height) == (rotation in (90, 270))
    boxes = [box for item in layout["lines"] for box in item["boxes"] if box[0] == 2]
    assert len(boxes) == 3
    for _, x0, y0, x1, y1 in boxes:
        crop = image.crop((int(x0 * image.width), int(y0 * image.height), int(x1 * image.width) + 1,
                           int(y1 * image.height) + 1))
        assert crop.getextrema()[0] < 100, (x0, y0, x1, y1)  # dark glyph pixels inside the box


def test_a_page_box_inherited_from_the_page_tree_keeps_its_header_and_numbers(tmp_path):
    # Text near the top of an A4 page whose MediaBox sits on the page tree is on the page: its header is
    # removed and its "2 / 3" gives the printed number.
    from tests.pdf_defects import inherited_box

    pdf = tmp_path / "herite.pdf"
    expected = inherited_box(pdf)
    result = import_pdf(pdf, tmp_path, "herite", "Hérité")
    text = result.markdown.read_text("utf-8")
    assert result.numbering == "printed"
    assert_exactly(expected, text)
    layout = json.loads(result.layout.read_text("utf-8"))
    box = layout["lines"][0]["boxes"][0]
    assert abs(box[2] - (841.89 - 700 - 10) / 841.89) < 0.02  # fractions of the A4 page, not of a letter page
