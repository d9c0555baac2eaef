"""Character normalisation, hyphenated line ends and printed page numbers, on their own."""

import pytest

from indexer.pdf.page.numbering import printed_number
from indexer.pdf.text import join_hyphenated, normalise
from indexer.pdf.document.writer import page_ref


def test_normalise_ligatures_spaces_and_quotes():
    assert normalise("Le ﬁnal\u00a0: l\u2019ofﬁcier  dit \u201cstop\u201d\u202f!") == "Le final : l'officier dit \"stop\" !"
    assert normalise("(cid:127) 3 cartes (cid:3)") == "• 3 cartes"
    assert normalise("de\u0301fausse") == "défausse"  # a combining accent becomes one character


@pytest.mark.parametrize("head, tail, vocabulary, joined", [
    ("la pile de dé-", "fausse, face visible", set(), "la pile de défausse, face visible"),
    ("c'est peut-", "être le plus rusé", set(), "c'est peut-être le plus rusé"),
    ("une carte arc-", "en-ciel", set(), "une carte arc-en-ciel"),
    ("la tuile porte-", "clé", {"porte-clé"}, "la tuile porte-clé"),
    ("la cou-", "leur", {"couleur"}, "la couleur"),
    ("vingt-", "deux points", set(), "vingt-deux points"),
    ("le jeu Saint-", "Malo", set(), "le jeu Saint-Malo"),
])
def test_hyphenated_line_ends(head, tail, vocabulary, joined):
    assert join_hyphenated(head, tail, vocabulary) == joined


@pytest.mark.parametrize("text, number", [("12", "12"), ("Page 3", "3"), ("4 / 40", "4"), ("iv", "iv"),
                                          ("Zorglub · Règles du jeu", None), ("12 cartes", None)])
def test_printed_number(text, number):
    assert printed_number(text) == number


def test_page_ref_ranges():
    assert page_ref([2]) == "(p. 2)" and page_ref([3, 2]) == "(p. 2-3)" and page_ref([2, 5]) == "(p. 2, 5)"


def _page(index, footer):
    from indexer.pdf.page.layout import TextLine, split_page

    body = [TextLine("Une règle du jeu.", 56, 400, 300, 410, 10, False, baseline=408)]
    foot = [TextLine(footer, 290, 810, 300, 820, 9, False, baseline=818)] if footer else []
    return split_page(index, 595, 842, body + foot)


def test_numbering_labels_then_printed_then_physical():
    from indexer.pdf.page.numbering import number_pages

    pages = [_page(0, None), _page(1, "1"), _page(2, "2"), _page(3, "3")]
    assert number_pages(["Couverture", "1", "2", "3"], pages) == ("labels", [None, 1, 2, 3])
    # Labels equal to the positions are an exporter's default: the printed numbers win.
    assert number_pages(["1", "2", "3", "4"], pages) == ("printed", [None, 1, 2, 3])
    assert number_pages(["", "", "", ""], pages) == ("printed", [None, 1, 2, 3])
    assert number_pages(["", "", "", ""], [_page(i, None) for i in range(4)]) == ("physical", [1, 2, 3, 4])


HOCR = """<div class='ocr_carea' id='block_1_1'><p class='ocr_par' id='par_1_1'>
<span class='ocr_line' id='line_1_1' title="bbox 100 100 400 130; baseline 0 -6; x_size 30; x_descenders 6; x_ascenders 8">
<span class='ocrx_word' title='bbox 100 100 200 130; x_wconf 95'>Fin</span>
<span class='ocrx_word' title='bbox 210 100 300 130; x_wconf 95'>de partie</span></span>
<span class='ocr_line' id='line_1_2' title="bbox 100 150 900 170; baseline 0 -4; x_size 20; x_descenders 4; x_ascenders 6">
<span class='ocrx_word' title='bbox 100 150 300 170; x_wconf 95'>La partie</span>
<span class='ocrx_word' title='bbox 310 150 600 170; x_wconf 95'>s&#39;arrête une fois par</span></span>
<span class='ocr_line' id='line_1_3' title="bbox 100 180 700 204; baseline 0 -4; x_size 22; x_descenders 4; x_ascenders 6">
<span class='ocrx_word' title='bbox 100 180 200 204; x_wconf 95'>tour.</span></span>
</p><p class='ocr_par' id='par_1_2'>
<span class='ocr_line' id='line_1_4' title="bbox 100 220 500 240; baseline 0 -4; x_size 20; x_descenders 4; x_ascenders 6">
<span class='ocrx_word' title='bbox 100 220 160 240; x_wconf 60'>_5</span>
<span class='ocrx_word' title='bbox 170 220 300 240; x_wconf 95'>plateaux</span></span>
<span class='ocr_line' id='line_1_5' title="bbox 100 250 500 270; baseline 0 -4; x_size 20; x_descenders 4; x_ascenders 6">
<span class='ocrx_word' title='bbox 100 254 108 262; x_wconf 30'>e</span>
<span class='ocrx_word' title='bbox 120 250 300 270; x_wconf 95'>6 dés</span></span></p></div>"""


def test_hocr_lines_keep_tesseract_paragraphs_titles_and_bullets():
    from indexer.pdf.page.ocr import hocr_lines

    lines = hocr_lines(HOCR, 0.5)
    assert [line.text for line in lines] == ["Fin de partie", "La partie s'arrête une fois par", "tour.",
                                             "• 5 plateaux", "• 6 dés"]
    title, first, second = lines[:3]
    # The larger first line is a paragraph of its own; the two others share one paragraph and one size.
    assert title.para != first.para and first.para == second.para and first.size == second.size == 10.5
    assert title.size == 15 and first.baseline == (170 - 4) * 0.5


@pytest.mark.parametrize("text, numbers", [
    ("© Éditeur 2021 · 4", {2021, 4}), ("1.1. Le matériel 3", {3}), ("12/40", {12}), ("Page 7 / 40", {7}),
    ("2     Chapitre 1. Mise en place", {2, 1}), ("Version 2.3, le 12-05", set()), ("3e édition", set()),
])
def test_numbers_printed_in_a_header_or_footer_row(text, numbers):
    from indexer.pdf.page.numbering import numbers_in

    assert numbers_in(text) == numbers


def test_printed_numbers_must_go_up_by_one_per_page():
    from indexer.pdf.page.numbering import number_pages

    # A year and a chapter number repeat; only the page number makes a run. Page 3 prints nothing (a full-
    # page picture): the run numbers it.
    footers = [None, "© Zorglub 2021 · Chapitre 1 · 1", "© Zorglub 2021 · Chapitre 1 · 2", None,
               "© Zorglub 2021 · Chapitre 2 · 4"]
    pages = [_page(i, f) for i, f in enumerate(footers)]
    assert number_pages([""] * 5, pages) == ("printed", [None, 1, 2, 3, 4])
