"""Follow-ups: elliptic questions keep the previous turn's game and topic."""

import pytest

from service.answer import Answerer, validate
from service.calibration import AbstentionPolicy, Calibration
from service.follow_up import Turn, combined, elliptic
from indexer.errors import QuestionError
from tests.fakes import FakeEmbedder


@pytest.mark.parametrize("question, expected", [
    ("et à deux joueurs ?", True),
    ("Et si je relance encore ?", True),
    ("mais pour le cristal ?", True),
    ("à deux ?", True),  # too short to stand alone
    ("combien de points rapporte une pépite d'or à la fin ?", False),
    ("etonnant : on peut poser une plaquette sur une autre ?", False),  # "et" opens no word here
])
def test_elliptic(question, expected):
    assert elliptic(question) is expected


def test_combined_text_carries_both_questions():
    assert combined(Turn("Combien de trésors par temple ?", "karuba"), "et à deux ?") == (
        "Combien de trésors par temple ?\net à deux ?")


def test_a_follow_up_keeps_the_previous_game(fake_index):
    answerer = Answerer.load(fake_index, FakeEmbedder(), Calibration(abstention=AbstentionPolicy(threshold=-1.0)))
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
