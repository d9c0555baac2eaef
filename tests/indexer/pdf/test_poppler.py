"""Poppler's layout (pdftotext -bbox-layout) read into pages, on tiny hand-written XHTML: what poppler gives, and
what indexer/pdf/poppler.py mends in it."""

import pytest

from indexer.errors import PdfError
from indexer.pdf.poppler import parse_bbox_layout


def word(text, x0, top, x1, bottom=None):
    bottom = top + 10 if bottom is None else bottom
    return f'<word xMin="{x0}" yMin="{top}" xMax="{x1}" yMax="{bottom}">{text}</word>'


def line(*words):
    return "<line>" + "".join(words) + "</line>"


def block(*lines):
    return "<block>" + "".join(lines) + "</block>"


def page(*blocks, width=600):
    return (f'<html xmlns="http://www.w3.org/1999/xhtml"><body><doc><page width="{width}" height="800"><flow>'
            + "".join(blocks) + "</flow></page></doc></body></html>").encode()


def texts(pages):
    return [[" ".join(w.text for w in ln.words) for ln in b.lines] for b in pages[0].blocks]


def test_blocks_lines_and_words_in_poppler_order():
    pages = parse_bbox_layout(page(block(line(word("Chaque", 10, 10, 50), word("joueur", 53, 10, 90)),
                                         line(word("pioche.", 10, 22, 50))),
                                   block(line(word("Fin", 10, 50, 30)))))
    assert texts(pages) == [["Chaque joueur", "pioche."], ["Fin"]]


def test_a_justified_line_cut_at_its_wide_spaces_is_one_line_again():
    # "deux | points | à | la": one-word blocks on the baseline of the line they end, 10 points apart (1 line height).
    pages = parse_bbox_layout(page(block(line(word("rapporte", 10, 10, 60), word("deux", 64, 10, 90)),
                                         line(word("partie.", 10, 22, 50))),
                                   block(line(word("points", 100, 10, 130))), block(line(word("à", 140, 10, 146)))))
    assert texts(pages) == [["rapporte deux points à", "partie."]]


def test_a_gutter_of_two_font_sizes_is_no_word_space():
    pages = parse_bbox_layout(page(block(line(word("gauche", 10, 10, 60))), block(line(word("droite", 90, 10, 130)))))
    assert texts(pages) == [["gauche"], ["droite"]]


def test_words_touching_are_one_and_an_accent_drawn_apart_is_no_word():
    # Poppler cut "72" at an empty glyph, and gave TeX's "ˆ" over "cote" as a word of its own.
    pages = parse_bbox_layout(page(block(line(word("7", 10, 10, 15), word("2", 14.9, 10, 20), word("tuiles", 23, 10, 50)),
                                         line(word("ˆ", 30, 22, 33)),
                                         line(word("à", 10, 22, 15), word("cote", 18, 22, 40)))))
    assert texts(pages) == [["72 tuiles", "à cote"]]


def test_two_columns_set_close_are_cut_at_the_white_running_down_them():
    rows = [line(word(f"gauche{i}", 10, 10 + 12 * i, 280), word(f"droite{i}", 290, 10 + 12 * i, 560)) for i in range(4)]
    pages = parse_bbox_layout(page(block(*rows)))
    assert texts(pages) == [[f"gauche{i}" for i in range(4)], [f"droite{i}" for i in range(4)]]


def test_three_rows_of_white_are_no_gutter():
    rows = [line(word(f"gauche{i}", 10, 10 + 12 * i, 280), word(f"droite{i}", 290, 10 + 12 * i, 560)) for i in range(3)]
    assert texts(parse_bbox_layout(page(block(*rows)))) == [[f"gauche{i} droite{i}" for i in range(3)]]


def test_control_characters_are_dropped_and_broken_output_is_one_line():
    assert texts(parse_bbox_layout(page(block(line(word("a\x01b", 10, 10, 30)))))) == [["ab"]]
    with pytest.raises(PdfError, match="pdftotext"):
        parse_bbox_layout(b"<html><body><doc><page")
