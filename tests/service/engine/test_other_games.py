"""Other games by name or vocabulary, in any case; the corpus's own games and words never count."""

import pytest

from indexer.corpus import Game
from service.engine.decide.everyday import EverydaySenses
from service.engine.decide.other_games import OtherGames
from service.engine.phrases import folded
from service.engine.question import Question

GAMES = [Game("karuba", "Karuba"), Game("uno-flip", "Uno Flip", aliases=("Uno Flip!",))]


@pytest.mark.parametrize("question, found", [
    ("comment on joue au poker ?", ("poker",)),
    ("Au CATAN, quand un 7 sort ?", ("CATAN",)),
    ("on joue au go ce soir ?", ("go",)),  # an everyday word, after a game context
    ("au tarot le petit au bout ça rapporte combien ?", ("tarot", "petit au bout")),
    ("le mot compte triple marche avec une lettre ?", ("mot compte triple",)),
])
def test_other_games_are_found_as_typed(question, found):
    assert OtherGames(GAMES).detect(Question.of(question)) == found


@pytest.mark.parametrize("question", [
    "le go c'est quoi",  # no game context: the word is not the game
    "je dois y go maintenant",
    "Karuba ça se joue comment ?",
    "à Uno Flip on pioche combien ?",  # the corpus holds that game: its name is no other game's
])
def test_everyday_words_and_corpus_games_are_not_other_games(question):
    assert OtherGames(GAMES).detect(Question.of(question)) == ()


def test_a_term_the_corpus_passages_use_is_theirs():
    question = "le voleur se déplace où ?"
    games = OtherGames(GAMES, {"names": [], "needs_context": [], "context": "au", "terms": ["le voleur"]})
    assert games.detect(Question.of(question)) == ("le voleur",)
    assert games.detect(Question.of(question), ["Le voleur se déplace sur une case désert."]) == ()


def test_everyday_senses_unless_the_passages_say_so():
    senses = EverydaySenses(["des? a coudre", "cartes? bancaires?"])
    assert senses.detect(Question.of("le dé à coudre ça se met sur quel doigt ?")) == ("dé à coudre",)
    bank_card = ["Chaque carte bancaire vaut 2 points."]
    assert senses.detect(Question.of("je paie avec ma carte bancaire ?"), bank_card) == ()
    assert senses.detect(Question.of("combien de dés on lance ?")) == ()


def test_a_term_the_asked_game_s_rulebook_uses_is_its_own():
    """"atout" is tarot's and belote's, and also any trick-taking game's that says so."""
    question = Question.of("un atout bat toujours une autre couleur ?")
    games = OtherGames(GAMES, {"names": [], "needs_context": [], "context": "au", "terms": ["atouts?"]})
    assert games.detect(question) == ("atout",)
    assert games.detect(question, (), folded("La couleur d'atout est choisie par le meneur.")) == ()
    senses = EverydaySenses(["des? a coudre"])
    thimble = folded("Posez le dé à coudre sur la case.")
    assert senses.detect(Question.of("le dé à coudre va où ?"), (), thimble) == ()


def test_a_term_the_asked_game_s_lexicon_gives_is_its_own():
    """A trick-taking game whose rulebook says "carte Calme" and whose lexicon gives the players' "excuse" for it:
    "l'excuse" is that game's card, not tarot's; another game's lexicon changes nothing."""
    question = Question.of("l'excuse gagne jamais ?")
    games = OtherGames(GAMES, {"names": [], "needs_context": [], "context": "au", "terms": ["excuses?"]})
    girouette = Game("girouette", "Girouette", lexicon=(("carte Calme", ("carte zéro", "Excuse")),))
    other = Game("karuba", "Karuba", lexicon=(("plaquette", ("tuile",)),))
    assert games.detect(question) == ("excuse",)
    assert games.detect(question, game=other) == ("excuse",)
    assert games.detect(question, game=girouette) == ()
