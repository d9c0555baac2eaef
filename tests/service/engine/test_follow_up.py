"""Follow-ups: elliptic questions keep the previous turn's game and topic."""

import pytest


from service.engine.question import validate
from service.engine.decide.abstention import AbstentionPolicy
from service.engine.calibration import Calibration
from indexer.analysis import fold
from service.engine.question import Turn
from service.engine.question import Question
from service.engine.question.follow_up import combined, elliptic, known_terms
from service.engine.errors import QuestionError
from tests.fakes import fake_answerer


@pytest.mark.parametrize("question, expected", [
    ("et à deux joueurs ?", True),
    ("Et si je relance encore ?", True),
    ("mais pour le cristal ?", True),
    ("à deux ?", True),  # too short to stand alone
    ("combien de points rapporte une pépite d'or à la fin ?", False),
    ("etonnant : on peut poser une plaquette sur une autre ?", False),  # "et" opens no word here
])
def test_elliptic(question, expected):
    assert elliptic(Question.of(question)) is expected


def test_combined_text_carries_both_questions():
    assert combined(Turn("Combien de trésors par temple ?", "karuba"), "et à deux ?") == (
        "Combien de trésors par temple ?\net à deux ?")


def test_a_follow_up_keeps_the_previous_game(fake_index):
    answerer = fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=-1.0)))
    follow = answerer.ask("et à deux ?", previous=Turn("Combien de trésors par temple ?", "karuba"))
    assert follow.game.id == "karuba" and follow.game_detected
    # A game named in the follow-up wins over the previous turn's.
    other = answerer.ask("et à Cubitos ?", previous=Turn("Combien de trésors par temple ?", "karuba"))
    assert other.game.id == "cubitos"
    # A previous turn about a game the index lacks keeps nothing.
    lost = answerer.ask("et à deux ?", previous=Turn("Combien ?", "monopoly"))
    assert lost.game is None or lost.game.id != "monopoly"


def test_a_bad_previous_turn_is_refused():
    with pytest.raises(QuestionError, match="précédente"):
        validate("et à deux ?", previous=Turn("  "))
    with pytest.raises(QuestionError, match="précédente"):
        validate("et à deux ?", previous=Turn("x" * 1001))


def test_a_word_the_rules_never_use_opens_a_new_topic():
    known = known_terms(fold("À deux joueurs, chacun joue avec sa plaquette."))
    assert elliptic(Question.of("et à deux joueurs ?"), known)
    # Short, but "licornes" and "volantes" are no words of the game: not the previous topic.
    assert not elliptic(Question.of("Peut-on jouer avec des licornes volantes ?"), known)
    assert elliptic(Question.of("et avec des licornes ?"), known)  # "et": the player says it follows on


def test_an_unknown_topic_after_a_found_answer_is_asked_on_its_own(fake_index):
    answerer = fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.2)))
    previous = Turn("Les pépites d'or rapportent combien à la fin ?", "karuba")
    alone = answerer.ask("Peut-on jouer avec des licornes volantes ?", game="karuba")
    after = answerer.ask("Peut-on jouer avec des licornes volantes ?", game="karuba", previous=previous)
    assert not alone.found
    # Before, the previous question's words were added and the points passage came back as the answer.
    assert after.found is False and after.refusal.reason == alone.refusal.reason
