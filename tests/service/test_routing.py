import pytest

from indexer.corpus import Game
from service.routing import GameNames

GAMES = [
    Game("karuba", "Karuba"),
    Game("sans-arret", "Sans Arrêt", aliases=("Can't Stop",)),
    Game("cubitos", "Cubitos"),
    Game("cubirds", "Cubirds"),
]


@pytest.mark.parametrize(
    "question, expected",
    [
        ("À Karuba, les pépites rapportent combien ?", "karuba"),
        ("à KARUBA on peut tourner ?", "karuba"),
        ("Dans Can't Stop on relance combien de fois ?", "sans-arret"),
        ("Can’t stop: how do I win?", "sans-arret"),
        ("cant stop combien de bonzes", "sans-arret"),
        ("Au sans arret, une voie gagnée ?", "sans-arret"),
        ("Cubirds : la grande envolée ?", "cubirds"),
        ("Combien de dés peut-on acheter ?", None),
        ("Le karubateau existe ?", None),  # a word that merely starts with a title is not the title
    ],
)
def test_game_named_in_question(question, expected):
    assert GameNames(GAMES).find(question) == expected


def test_two_games_named_the_longest_name_wins():
    assert GameNames(GAMES).find("Sans Arrêt ressemble à Cubitos ?") == "sans-arret"
