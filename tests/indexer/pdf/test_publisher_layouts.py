"""Rulebooks set the way publishers' layout tools set them (issue 42), one failure class each, on a small PDF made
in the test (testbed/publisher_pdfs.py): each paragraph must come out whole, as one passage, on its printed page,
its words neither cut apart nor glued. Each of these failed before the import read pages through poppler's layout
and took the text matrix's scale into the glyphs' size."""

import shutil

import pytest

from indexer.corpus import read_game
from indexer.passages import is_fragment, passages_of
from indexer.pdf import import_pdf
from testbed import publisher_pdfs

pytestmark = pytest.mark.skipif(shutil.which("pdftotext") is None, reason="poppler-utils (make pdf-deps)")


def imported(tmp_path, make):
    pdf = tmp_path / "regles.pdf"
    expected = make(pdf)
    result = import_pdf(pdf, tmp_path, "jeu", "Jeu")
    passages = [p for p in passages_of(read_game(result.markdown)) if not p.is_card]
    return result, {p.text: p.pages for p in passages}, passages, expected


def assert_whole(got: dict, expected: list) -> None:
    for text, page in expected:
        assert got.get(text) == (page,), (text, sorted(got))


def test_justified_text_set_at_one_point_and_scaled_keeps_its_paragraphs(tmp_path):
    # InDesign's Tf 1 and a text matrix of 10: read as 1-point glyphs, every line was a passage of its own.
    result, got, passages, expected = imported(tmp_path, publisher_pdfs.scaled_justified)
    assert result.reader == "poppler"
    assert_whole(got, expected)
    assert not any(is_fragment(p) for p in passages)


def test_tracked_and_kerned_words_are_not_cut_apart(tmp_path):
    # "Po ur vo s pr em i èr es pa rt i es": tracking and optical kerning read as word spaces.
    _, got, _, expected = imported(tmp_path, publisher_pdfs.tracked_and_justified)
    assert_whole(got, expected)
    assert "Pour vos premières parties" in " ".join(got)


def test_a_drop_cap_goes_back_into_its_word(tmp_path):
    # "ne chaude brise" for "Une chaude brise": the initial set three lines high was left out of its word.
    _, got, _, expected = imported(tmp_path, publisher_pdfs.drop_cap)
    assert_whole(got, expected)
    assert not any(text.startswith("ne chaude") or "Ujoueur" in text for text in got)


def test_four_narrow_columns_are_read_one_after_the_other(tmp_path):
    # A leaflet of four columns twelve points apart was read row by row across them.
    _, got, _, expected = imported(tmp_path, publisher_pdfs.four_columns)
    assert_whole(got, expected)
    assert [t for t in got if t in dict(expected)] == [t for t, _ in expected]


def test_a_lead_in_set_larger_opens_its_paragraph_and_is_no_heading(tmp_path):
    # "Quand plus personne ne peut jouer," in 12.5 points bold, run into a 10-point sentence: read as "# …" and
    # the paragraph cut under it.
    result, got, _, expected = imported(tmp_path, publisher_pdfs.lead_in)
    assert_whole(got, expected)
    assert "# Quand plus personne" not in result.markdown.read_text("utf-8")


def test_without_poppler_the_import_reads_the_glyphs_and_says_so(tmp_path, monkeypatch):
    from rulesqa.render import import_notes

    monkeypatch.setattr(shutil, "which", lambda name: None)
    pdf = tmp_path / "regles.pdf"
    publisher_pdfs.scaled_justified(pdf)
    result = import_pdf(pdf, tmp_path, "jeu", "Jeu")
    assert result.reader == "glyphs"
    assert any("pdftotext introuvable" in note for note in import_notes(result))


def test_a_spread_is_cut_into_its_two_printed_pages_and_each_opens_its_half(tmp_path):
    # A booklet exported as spreads printed pages 6 and 7 on one PDF page: the whole spread was one page.
    import json

    from PIL import Image

    from indexer.corpus import read_game as read
    from service.web.page_images import PageImages

    result, got, _, expected = imported(tmp_path, publisher_pdfs.spread)
    assert_whole(got, expected)
    assert result.pages == 1 and result.imported_pages == [6, 7]
    layout = json.loads(result.layout.read_text("utf-8"))
    assert layout["pages"] == {"6": {"page": 0, "half": 1}, "7": {"page": 0, "half": 2}}
    # Each printed page's image is its half of the sheet, its passage highlighted there.
    images, game = PageImages(tmp_path, max_side=400), read(result.markdown).game
    left = Image.open(__import__("io").BytesIO(images.image(game, "6")))
    assert left.height == 400 and abs(left.width - 400 * 595 / 842) <= 2
    # The right page's text starts 60 points into its half, not into the sheet (0.55 of its width).
    boxes = images.boxes(game, "7", [expected[1][0]])
    assert boxes and all(abs(x0 - 60 / 595) < 0.01 and x1 < 0.62 for x0, _, x1, _ in boxes)


def test_a_landscape_page_with_circled_figures_is_no_spread():
    # "❶" is a digit to Python: a landscape page of numbered steps crashed the import (int("❶")).
    from indexer.pdf.page.layout import TextLine, spread_halves, split_page

    lines = [TextLine("❶", 100, 500, 110, 510, 10, False, baseline=508),
             TextLine("❷", 700, 500, 710, 510, 10, False, baseline=508),
             TextLine("Placez les tuiles.", 100, 100, 200, 110, 10, False, baseline=108)]
    assert spread_halves(split_page(0, 842, 595, lines)) is None


def test_a_page_printed_by_chromium_is_read_from_its_glyphs(tmp_path):
    # Chromium's PDFs (Skia) read better from their glyphs than through poppler's layout (docs/IMPORT.md).
    from indexer.pdf import reader_name

    assert reader_name("auto", "Skia/PDF m156") == "glyphs"
    assert reader_name("auto", "Adobe PDF Library 15.0") == "poppler"
    assert reader_name("poppler", "Skia/PDF m156") == "poppler"
    with pytest.raises(Exception, match="lecteur « ocr » inconnu"):
        reader_name("ocr")


def test_indented_paragraphs_set_without_space_between_stay_apart(tmp_path):
    # Poppler gives the three paragraphs one block: a sentence ended short of the column's edge, and the next
    # line indented, start another paragraph.
    _, got, _, expected = imported(tmp_path, publisher_pdfs.indented_paragraphs)
    assert_whole(got, expected)


def test_narrow_columns_of_prose_are_no_table_and_an_item_wraps_under_its_bullet(tmp_path):
    # Two role descriptions side by side were read as a table of two columns; a potion's item, wrapped under its
    # bullet in a narrow column, was cut after its first line.
    result, got, _, expected = imported(tmp_path, publisher_pdfs.narrow_columns)
    assert_whole(got, expected)
    markdown = result.markdown.read_text("utf-8")
    assert "|" not in markdown
    assert f"- {publisher_pdfs.POTION} (p. 1)" in markdown
