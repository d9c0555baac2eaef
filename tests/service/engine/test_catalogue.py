"""The game search behind the type-ahead picker: ranking, typos, pagination, on a shelf of games."""

from indexer.corpus import Game
from service.engine.catalogue import Catalogue

GAMES = [
    Game("karuba", "Karuba"),
    Game("karuba-junior", "Karuba Junior"),
    Game("sans-arret", "Sans Arrêt", aliases=("Can't Stop",)),
    Game("cubitos", "Cubitos"),
    Game("cubirds", "Cubirds"),
    Game("le-petit-prince", "Le Petit Prince"),
    Game("prince-of-persia", "Persian Prince"),
]


def ids(page):
    return [g.id for g in page.games]


def test_no_query_lists_every_game_by_title_and_pages():
    catalogue = Catalogue(GAMES)
    page = catalogue.search(None, 3)
    assert page.total == 7 and ids(page) == ["cubirds", "cubitos", "karuba"]
    assert ids(catalogue.search("", 3, offset=6)) == ["sans-arret"]


def test_exact_then_prefix_then_word_then_substring():
    catalogue = Catalogue(GAMES)
    assert ids(catalogue.search("karuba", 10)) == ["karuba", "karuba-junior"]
    assert ids(catalogue.search("prince", 10)) == ["prince-of-persia", "le-petit-prince"]  # id prefix, then word
    assert ids(catalogue.search("CUBI", 10)) == ["cubirds", "cubitos"]
    assert ids(catalogue.search("irds", 10)) == ["cubirds"]


def test_accents_aliases_and_typos():
    catalogue = Catalogue(GAMES)
    assert ids(catalogue.search("sans arret", 10)) == ["sans-arret"]
    assert ids(catalogue.search("can't", 10)) == ["sans-arret"]
    assert ids(catalogue.search("karouba", 10))[0] == "karuba"  # no exact match: near spellings
    assert catalogue.search("zzzzqqq", 10).total == 0


def test_ten_thousand_games_paginate_and_find_one():
    shelf = [Game(f"jeu-{i}", f"Jeu numéro {i}") for i in range(10_000)] + [Game("karuba", "Karuba")]
    catalogue = Catalogue(shelf)
    page = catalogue.search("jeu numero 12", 5, offset=5)
    assert page.total == 111 and len(page.games) == 5  # 12, 120-129, 1200-1299
    assert ids(catalogue.search("kruba", 5))[0] == "karuba"


def test_an_offset_past_any_shelf_is_an_empty_page_not_an_overflow():
    # Found by schemathesis: the fuzzy search took offset + limit as its own limit, a C long.
    catalogue = Catalogue(GAMES)
    for query in (None, "karouba"):
        page = catalogue.search(query, 135, offset=99218816281867215437824)
        assert page.games == [] and page.total == catalogue.search(query, 200).total
