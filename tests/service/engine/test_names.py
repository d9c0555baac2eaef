import pytest

from indexer.corpus import Game
from service.engine.question.names import GameNames
from service.engine.question import Question

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
    assert GameNames(GAMES).find(Question.of(question)) == expected


def test_two_games_named_the_longest_name_wins():
    assert GameNames(GAMES).find(Question.of("Sans Arrêt ressemble à Cubitos ?")) == "sans-arret"


@pytest.mark.parametrize(
    "question, expected",
    [
        ("karouba : combien de points par pépite ?", "karuba"),  # one letter added
        ("Dans Cubitso, on achète combien de dés ?", "cubitos"),  # two letters swapped
        ("les cubird s'envolent quand ?", "cubirds"),  # one letter missing
        ("can't stp : on relance ?", "sans-arret"),  # typo in the English alias
        ("au sans aret qui gagne ?", "sans-arret"),
        ("Règles du Petit Prince ?", "petit-prince"),  # the title's article dropped or changed
        ("petit prince : combien de cartes ?", "petit-prince"),
    ],
)
def test_typos_articles_and_english_names(question, expected):
    games = [*GAMES, Game("petit-prince", "Le Petit Prince")]
    assert GameNames(games, frozenset({"combien", "cartes", "points"})).find(Question.of(question)) == expected


def test_corpus_words_and_short_names_are_never_read_as_misspelt_titles():
    games = [Game("carte", "Carte"), Game("hive", "Hive"), Game("sans-arret", "Sans Arrêt")]
    names = GameNames(games, frozenset({"cartes", "sans", "arreter", "dix"}))
    assert names.find(Question.of("combien de cartes en main ?")) is None  # "cartes" is a word of the rules
    assert names.find(Question.of("on relance sans arrêter ?")) is None  # two edits from a 9-letter name: too far
    assert names.find(Question.of("dix points")) is None
    assert names.find(Question.of("hivr : qui commence ?")) is None  # "Hive" is too short for a typo
    assert names.find(Question.of("une carte de plus ?")) == "carte"  # but the exact name is still found


def test_match_gives_the_span_of_the_name_in_the_question():
    question = "Dans Karouba, les pépites ?"
    match = GameNames(GAMES).match(Question.of(question))
    assert (match.game, question[match.start : match.end], match.distance) == ("karuba", "Karouba", 1)


def test_thousands_of_games_each_found_by_its_title_with_one_typo():
    import random

    rng = random.Random(4)
    syllables = ["ka", "ru", "bo", "ti", "zen", "mar", "lo", "vi", "dra", "pu", "nor", "sel", "qua", "fi"]
    titles = sorted({"".join(rng.choice(syllables) for _ in range(rng.randint(3, 4))).capitalize()
                     for _ in range(3000)})
    games = [Game(f"g{i}", t) for i, t in enumerate(titles)]
    names = GameNames(games)
    right = wrong = 0
    for i, title in enumerate(titles[:300]):
        typo = title[:2] + title[3:]  # one letter dropped
        found = names.find(Question.of(f"Dans {typo}, qui commence ?"))
        right += found == f"g{i}"
        wrong += found not in (None, f"g{i}")
    # Invented titles from 14 syllables often sit one edit from each other: such a typo is then as near to
    # two titles (not guessed: None) or nearer to another one (wrong). Most route right, almost none wrong.
    assert right >= 250 and wrong <= 6, (right, wrong)


def test_a_typo_as_near_to_two_titles_is_not_guessed():
    games = [Game("marolo", "Marolo"), Game("maroli", "Maroli"), Game("karuba", "Karuba")]
    match = GameNames(games).match(Question.of("À Marolu, qui commence ?"))  # one letter from both, at the same place
    assert match.game is None and set(match.games) == {"marolo", "maroli"}
    assert GameNames(games).find(Question.of("À Marollo, qui commence ?")) == "marolo"


def test_between_two_names_as_many_edits_away_the_shared_beginning_decides():
    games = [Game("banzenti", "Banzenti"), Game("banzeri", "Banzeri")]
    # One edit from both; "banzen…" is the longer shared beginning (Jaro-Winkler 0.975 against 0.943).
    assert GameNames(games).find(Question.of("À Banzeni, qui commence ?")) == "banzenti"


def test_a_typo_in_a_longer_variant_name_routes_to_the_variant():
    games = [Game("karuba", "Karuba"), Game("karuba-junior", "Karuba Junior")]
    assert GameNames(games).find(Question.of("karouba junior : on joue à combien ?")) == "karuba-junior"
    assert GameNames(games).find(Question.of("karouba : on joue à combien ?")) == "karuba"


def test_a_misspelt_variant_name_wins_over_the_exact_name_inside_it():
    games = [Game("vicas", "Vicas"), Game("vicas-junior", "Vicas Junior")]
    assert GameNames(games).find(Question.of("À Vicas Junnior, on relance ?")) == "vicas-junior"
    assert GameNames(games).find(Question.of("À Vicas, on relance ?")) == "vicas"
