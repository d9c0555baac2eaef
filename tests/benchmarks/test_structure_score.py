"""The structure benchmarks' scorer (benchmarks/structure_bench/score.py) on a gold of three units written by
hand (a paragraph, a term with its definition, a table row with its header) and imports written by hand: each
figure below is counted by hand from the rules in the scorer's docstring."""

from benchmarks.structure_bench.score import Passage, Score, score
from benchmarks.structure_bench.source import Nav, Unit

HEADING = "Mise en place"
PARAGRAPH = Unit("p", ("Chaque joueur prend cinq cartes au début.",), (HEADING,), 0)
TERM = Unit("term", ("Réserve", "Les pièces non distribuées."), (HEADING,), 0)
ROW = Unit("row", ("Cartes", "52"), ("Matériel", "Élément", "Nombre"), 1, header=("Élément", "Nombre"))
GOLD = [PARAGRAPH, TERM, ROW]
NAV = [Nav("toc", HEADING)]


def printed(index: int) -> int:
    """The PDF's first page (index 0) prints 3, as a rulebook after its cover and contents."""
    return index + 3


def test_a_faithful_import_scores_every_unit_whole_verbatim_and_on_its_page():
    passages = [Passage("Chaque joueur prend cinq cartes au début.", (3,)),
                Passage("Réserve : Les pièces non distribuées.", (3,)),
                Passage("Élément : Cartes ; Nombre : 52", (4,))]

    s = score(GOLD, NAV, passages, printed)

    assert (s.units, s.whole, s.verbatim, s.right_page) == (3, 3, 3, 3)
    assert (s.cells, s.cells_kept, s.rows, s.rows_with_header) == (2, 2, 1, 1)
    assert (s.passages, s.nav, s.fragments, s.glued) == (3, 0, 0, 0)
    assert s.gold_words == 7 + 1 + 4 + 1 + 1
    assert s.failures == []


def test_a_split_paragraph_a_row_without_its_header_a_wrong_page_and_the_contents_are_each_counted():
    passages = [Passage("Sommaire Mise en place 3", (3,)),  # the table of contents: navigation
                Passage("Chaque joueur prend", (3,)),  # the paragraph cut in two: both halves are fragments,
                Passage("cinq cartes au début.", (3,)),  # the longer one its passage (on the right page)
                Passage("Réserve : Les pièces non distribuées.", (4,)),  # whole and verbatim, one page late
                Passage("Cartes ; 52", (4,))]  # the row's cells without the header's words

    s = score(GOLD, NAV, passages, printed)

    assert (s.units, s.whole, s.verbatim, s.right_page) == (3, 2, 2, 2)
    assert (s.cells, s.cells_kept, s.rows, s.rows_with_header) == (2, 2, 1, 0)
    assert (s.passages, s.nav, s.fragments, s.glued) == (5, 1, 2, 0)
    assert [line.split()[0] for line in s.failures] == ["split/glued", "page", "navigation", "fragment",
                                                         "fragment"]
    assert [kind for kind, _, _ in s.strays] == ["navigation", "fragment", "fragment"]


def test_a_unit_found_nowhere_is_lost_with_its_cells():
    lost = Unit("row", ("Dés", "2"), ("Matériel", "Élément", "Nombre"), 1, header=("Élément", "Nombre"))

    s = score([ROW, lost], NAV, [Passage("Élément : Cartes ; Nombre : 52", (4,))], printed)

    assert (s.units, s.whole, s.verbatim, s.right_page) == (2, 1, 1, 1)
    assert (s.cells, s.cells_kept, s.rows, s.rows_with_header) == (4, 2, 2, 1)
    assert s.failures == ["lost      p.4 row: Dés / 2"]
    assert s.matches[1][1] is None


def test_every_word_in_another_order_is_whole_but_altered():
    s = score([TERM], NAV, [Passage("Réserve : non distribuées, les pièces.", (3,))], printed)

    assert (s.whole, s.verbatim, s.right_page) == (1, 0, 1)
    assert s.failures[0].startswith("altered")


def test_words_run_together_or_cut_apart_are_glued():
    s = score([PARAGRAPH], NAV, [Passage("Chaque joueur prend cinqcartes au dé but.", (3,))], printed)

    assert s.glued == 2  # "cinqcartes" (two gold words run together), "dé but" (one gold word cut apart)
    assert s.whole == 0


def test_the_covers_free_text_is_neither_navigation_nor_a_fragment():
    cover = Passage("Karuba", ())

    assert score(GOLD[:1], NAV, [cover], printed, free=["Karuba"]).fragments == 0
    assert score(GOLD[:1], NAV, [cover], printed).fragments == 1


def test_scores_add_up_over_documents():
    total = Score()
    for _ in range(2):
        total.add(score([TERM], NAV, [Passage("Réserve : Les pièces non distribuées.", (4,))], printed))

    assert (total.units, total.whole, total.right_page, total.passages, len(total.failures)) == (2, 2, 0, 2, 2)
