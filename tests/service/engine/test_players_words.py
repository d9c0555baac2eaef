"""The players' words read as the rulebook's."""

from indexer.analysis import folded_words
from service.engine.players_words import Lexicon, lexicon
from service.engine.question import Question

KARUBA_WORDS = folded_words("Pose ta plaquette sur une case libre. Chacun explore son île. L'aventurier avance.".split())


def test_a_word_the_rulebook_lacks_becomes_the_group_word_it_uses():
    rewrite = lexicon().rewrite(Question.of("je peux tourner mes tuiles ?"), KARUBA_WORDS)
    assert rewrite.text == "je peux tourner mes plaquette ?" and rewrite.replaced == (("tuiles", "plaquette"),)
    assert rewrite.changed


def test_uses_is_judged_on_words_not_stems():
    # "explore" and "explorateur" share a stem; the rulebook says "aventurier" for the figure.
    rewrite = Lexicon([["aventurier", "explorateur"]]).rewrite(Question.of("mes explorateurs avancent ?"), KARUBA_WORDS)
    assert rewrite.text == "mes aventurier avancent ?"


def test_words_the_rulebook_uses_stay_and_nothing_changes_without_a_match():
    assert not Lexicon([["plaquette", "tuile"]]).rewrite(Question.of("ma plaquette ?"), KARUBA_WORDS).changed
    assert lexicon().rewrite(Question.of("combien de points ?"), KARUBA_WORDS).text == "combien de points ?"
    assert not Lexicon([["voie", "colonne"]]).rewrite(Question.of("la colonne 7 ?"), KARUBA_WORDS).changed  # no group word used


def test_the_game_s_own_names_come_first_and_longest_first():
    own = [("bonze", ("pion neutre", "grimpeur")), ("jeton", ("pion",))]
    rewrite = Lexicon([]).rewrite(Question.of("mon pion neutre et mon pion ?"), frozenset(), own)
    assert rewrite.text == "mon bonze et mon jeton ?"
    assert rewrite.replaced == (("pion neutre", "bonze"), ("pion", "jeton"))


def test_verb_forms_count_as_the_rulebook_s_words():
    words = folded_words("Défausse-la pour avancer.".split())
    assert Lexicon([["défausser", "jeter"]]).rewrite(Question.of("je peux jeter ma carte ?"), words).text == "je peux défausser ma carte ?"
