"""A rulebook's structure survives the import (issue 27): one small PDF per way it used to break
(tests/pdf_structure.py). Each unit is one passage, verbatim, on its page; navigation is left out and
counted; and every written line is in poppler's `pdftotext` text of the page it cites."""

import re
import shutil
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from indexer.corpus import read_game
from indexer.page_refs import extract_pages
from indexer.passages import passages_of
from indexer.pdf import import_pdf
from tests import pdf_structure


@pytest.fixture(scope="session")
def pdftotext():
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext is missing (make pdf-bench-deps)")


def imported(tmp_path: Path, make):
    pdf = tmp_path / "regles.pdf"
    expected = make(pdf)
    result = import_pdf(pdf, tmp_path, "jeu", "Jeu")
    return pdf, result, expected


def passages(result) -> dict[str, tuple[int, ...]]:
    return {p.text: p.pages for p in passages_of(read_game(result.markdown)) if not p.is_card}


def squash(text: str) -> str:
    text = unicodedata.normalize("NFKC", text).replace("\u2019", "'").replace("\u2060", "")
    return re.sub(r"[\s\-\u00ad]+", "", text)


def assert_lines_in_pdftotext(pdf: Path, md: Path) -> None:
    """Every written line (each cell of a table row, a term and its text apart) is in pdftotext's text of
    the pages it cites: no letter moved, no word glued or split, nothing invented."""
    text = subprocess.run(["pdftotext", "-enc", "UTF-8", str(pdf), "-"], capture_output=True, check=True).stdout
    pages = [squash(page) for page in text.decode("utf-8").split("\f")]
    checked = 0
    for raw in md.read_text("utf-8").split("---", 2)[2].splitlines():
        line, cited = extract_pages(re.sub(r"^(?:#+|-|Q:)\s+", "", raw.strip()))
        if not cited:
            continue
        if line.startswith("|"):
            parts = [cell.strip() for cell in line.strip("|").split("|")]
        else:
            term = re.match(r"^\*\*([^*]+)\*\*\s+(.*)$", line)
            parts = list(term.groups()) if term else [line]
        source = "".join(pages[p - 1] for p in cited)
        for part in filter(None, parts):
            assert squash(part) in source, (part, cited)
            checked += 1
    assert checked


def test_glyphs_boxed_without_ascent_or_descent_stay_in_their_words(tmp_path, pdftotext):
    # LibreOffice's fonts declare no ascent or descent: pdfium boxes each glyph's ink, and p, q, g, j, y
    # used to leave their words for a line of their own ("vrais sé uences ... q pq"), a paragraph's
    # last word too ("rangée." under a line opening with a "p").
    pdf, result, paragraphs = imported(tmp_path, pdf_structure.deep_descenders)
    assert {text: pages for text, pages in passages(result).items()} == {p: (1,) for p in paragraphs}
    assert_lines_in_pdftotext(pdf, result.markdown)


def test_table_rows_keep_every_cell_in_order_on_their_own_page(tmp_path, pdftotext):
    # Cells holding a lone number or letter were dropped ("Europe Afrique Asie ... 2"); a table ruled only
    # above, under its header and below had its rows run together.
    # The caption joins its table: each row carries it (not cited: the row's own page is), never alone.
    pdf, result, rows = imported(tmp_path, pdf_structure.tables)
    got = passages(result)
    caption = "Tableau 1 : bonus gagnés par continent"
    for row, page in rows.items():
        key = f"{caption}\n{row}" if row.startswith("Continent") else row
        assert got.get(key) == (page,), (row, got.get(key))
    text = result.markdown.read_text("utf-8")
    assert f"{caption} (p. 1)\n| Continent | Bonus |\n|---|---|\n| Amérique du Nord | 5 | (p. 1)\n" in text
    assert "| Océanie | N | (p. 2)\n| Antarctique | 12 | (p. 2)\n" in text  # the table goes on, its header once
    assert text.count("| Continent | Bonus |") == 1
    assert caption not in got  # not a passage of its own
    assert_lines_in_pdftotext(pdf, result.markdown)


def test_terms_steps_and_questions_stay_with_their_text(tmp_path, pdftotext):
    # A definition list, a glossary, numbered steps and a numbered FAQ: the term ("Brelan (3 id.)",
    # "Modifier", "1. Le talon") or the question ("5.2 Puis-je ... ?") was a passage of its own.
    pdf, result, units = imported(tmp_path, pdf_structure.units)
    got = passages(result)
    for title, text in units:
        assert f"{title}\n{text}" in got, (title, text)
    assert not any(p in got for p, _ in units)  # no term, step or question alone
    assert len(got) == len(units)
    markdown = result.markdown.read_text("utf-8")
    assert "- **Modifier** Changer la valeur d'un dé" in markdown
    assert "Q: 5.2 Puis-je utiliser le clavier plutôt que la souris ? (p. 2)\nOui." in markdown
    assert_lines_in_pdftotext(pdf, result.markdown)


def test_navigation_is_left_out_and_counted(tmp_path, pdftotext):
    # A table of contents without dot leaders, a list of tables, links without page numbers, an index,
    # menu paths and "retour au sommaire" lines, copyright and licence: none is a rule.
    pdf, result, (kept, navigation) = imported(tmp_path, pdf_structure.navigation)
    assert set(passages(result)) == set(kept)
    assert result.left_out == {"sommaire": 5, "liste des tableaux ou figures": 1, "index": 5, "chemins de menu": 3,
                               "liens de retour": 2, "mentions légales": 2}
    assert_lines_in_pdftotext(pdf, result.markdown)


def test_the_cli_says_what_it_left_out(tmp_path):
    pdf = tmp_path / "regles.pdf"
    pdf_structure.navigation(pdf)
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    out = subprocess.run([sys.executable, "-m", "rulesqa", "import", str(pdf), "--game", "jeu", "--title", "Jeu",
                          "--corpus", str(corpus)], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    line = next(x for x in out.stderr.splitlines() if "laissé de côté" in x)
    assert "sommaire 5" in line and "index 5" in line and "chemins de menu 3" in line and "mentions légales 2" in line


def test_an_author_line_is_no_heading_and_a_range_is_no_year(tmp_path):
    _, result, author = imported(tmp_path, pdf_structure.title_page)
    text = result.markdown.read_text("utf-8")
    assert not re.search(rf"^#+ {author}", text, re.M)
    assert result.card.get("author") == "Léa Marchal-Oudin" and "year" not in result.card
    assert "year:" not in text.split("---")[1]


def test_two_columns_ten_points_apart_are_read_one_after_the_other(tmp_path):
    # (pdftotext itself runs these two columns together: the paragraphs are checked against the source.)
    _, result, paragraphs = imported(tmp_path, pdf_structure.close_columns)
    assert passages(result) == {paragraph: (1,) for paragraph in paragraphs}


def test_a_listings_line_numbers_at_the_pages_foot_are_no_page_numbers(tmp_path):
    # "12 Description: …", "13 …" at the foot of pages that print no number went up by one per page and
    # were read as printed numbers: every citation shifted by 11.
    _, result, texts = imported(tmp_path, pdf_structure.listing_numbers)
    assert result.numbering == "physical"
    got = passages(result)
    assert [got[t] for t in texts] == [(1,), (2,), (3,), (4,)]
