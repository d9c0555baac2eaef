"""Poppler's layout (pdftotext -bbox-layout) read into pages, on tiny hand-written XHTML: what poppler gives, and
what indexer/pdf/page/poppler.py mends in it."""

import pytest

from indexer.errors import PdfError
from indexer.pdf.page.poppler import parse_bbox_layout


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


def test_a_paragraph_under_a_table_is_not_cut_where_the_tables_gaps_run_down():
    # Four rows of cells leave white at x 60-100; the paragraph below has an ordinary word space there.
    rows = [block(line(word("Suite", 10, 10 + 12 * r, 60), word("3", 100, 10 + 12 * r, 106))) for r in range(4)]
    right = "un point par carte restée en main.".split()
    para = block(line(word("La", 10, 70, 20), word("brume", 23, 70, 47), word("coûte", 50, 70, 78),
                      *(word(w, 82 + 30 * i, 70, 108 + 30 * i) for i, w in enumerate(right))))
    pages = parse_bbox_layout(page(*rows, para))
    assert texts(pages)[-1] == ["La brume coûte un point par carte restée en main."]


def test_glossary_terms_beside_one_line_definitions_go_at_the_head_of_their_lines():
    # groff's tagged paragraphs: each term a block, its definition another on its baseline, far to the right.
    pages = parse_bbox_layout(page(
        block(line(word("Balise", 10, 10, 40))),
        block(line(word("Petit", 100, 10, 120), word("drapeau.", 123, 10, 160))),
        block(line(word("Courant", 10, 30, 48))),
        block(line(word("Direction", 100, 30, 140), word("du", 143, 30, 150), word("vent.", 153, 30, 175)))))
    assert texts(pages) == [["Balise Petit drapeau."], ["Courant Direction du vent."]]


def test_a_glossary_with_a_definition_of_several_lines_keeps_its_blocks():
    # Read as terms over hanging definitions downstream (units.py).
    blocks = [block(line(word("Pioche", 10, 10, 40)), ),
              block(line(word("La", 100, 10, 110), word("pile", 113, 10, 130)), line(word("cachée.", 100, 22, 140))),
              block(line(word("Courant", 10, 40, 48))), block(line(word("Direction", 100, 40, 140), word("nord.", 143, 40, 170)))]
    assert texts(parse_bbox_layout(page(*blocks))) == [["Pioche"], ["La pile", "cachée."], ["Courant"], ["Direction nord."]]


def test_a_column_short_last_line_beside_the_next_column_stays_apart():
    # Once, not row after row: a column's last line "autrement." beside the next column's first line.
    pages = parse_bbox_layout(page(block(line(word("Il", 10, 10, 20), word("joue", 23, 10, 50)),
                                         line(word("autrement.", 10, 22, 60))),
                                   block(line(word("Les", 300, 22, 320), word("dés", 323, 22, 340),
                                              word("roulent.", 343, 22, 380)))))
    assert texts(pages) == [["Il joue", "autrement."], ["Les dés roulent."]]


def test_a_list_marker_alone_in_its_block_goes_on_its_item():
    pages = parse_bbox_layout(page(block(line(word("1.", 10, 10, 18))),
                                   block(line(*(word(w, 32 + 30 * i, 10, 58 + 30 * i) for i, w in
                                                enumerate("Posez les quatre tuiles aux quatre coins.".split()))))))
    assert texts(pages) == [["1. Posez les quatre tuiles aux quatre coins."]]


def test_dot_leaders_cut_from_their_entry_go_back_on_its_line():
    # Twelve dots, more words than a loose line's piece, one word space after the entry.
    leaders = [word(".", 60 + 6 * i, 10, 62 + 6 * i) for i in range(12)] + [word("5", 140, 10, 146)]
    pages = parse_bbox_layout(page(block(line(word("Avancer", 10, 10, 50))), block(line(*leaders))))
    assert texts(pages) == [["Avancer " + ". " * 12 + "5"]]


def test_words_of_a_font_with_tall_boxes_keep_their_spaces():
    # Azul's font gives 10-point words boxes 37 points tall: a 1.8-point word space was read as touching.
    words = [word(w, 10 + 41.8 * i, 10, 10 + 41.8 * i + 40, 47) for i, w in enumerate("Mathilde choisit ensuite".split())]
    assert texts(parse_bbox_layout(page(block(line(*words))))) == [["Mathilde choisit ensuite"]]
