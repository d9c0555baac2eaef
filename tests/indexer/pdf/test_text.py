"""Character normalisation, hyphenated line ends and printed page numbers, on their own."""

import pytest

from indexer.pdf.numbering import printed_number
from indexer.pdf.text import join_hyphenated, normalise
from indexer.pdf.writer import page_ref


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
    from indexer.pdf.layout import TextLine, split_page

    body = [TextLine("Une règle du jeu.", 56, 400, 300, 410, 10, False, baseline=408)]
    foot = [TextLine(footer, 290, 810, 300, 820, 9, False, baseline=818)] if footer else []
    return split_page(index, 595, 842, body + foot)


def test_numbering_labels_then_printed_then_physical():
    from indexer.pdf.numbering import number_pages

    pages = [_page(0, None), _page(1, "1"), _page(2, "2"), _page(3, "3")]
    assert number_pages(["Couverture", "1", "2", "3"], pages) == ("labels", [None, 1, 2, 3])
    # Labels equal to the positions are an exporter's default: the printed numbers win.
    assert number_pages(["1", "2", "3", "4"], pages) == ("printed", [None, 1, 2, 3])
    assert number_pages(["", "", "", ""], pages) == ("printed", [None, 1, 2, 3])
    assert number_pages(["", "", "", ""], [_page(i, None) for i in range(4)]) == ("physical", [1, 2, 3, 4])
