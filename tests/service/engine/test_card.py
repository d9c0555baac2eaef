"""Card questions: a field's cue, and nothing else than the game's name and card words."""

import pytest

from service.engine.question.card_question import CardQuestions, card_questions
from service.engine.question import Question

NAMES = frozenset({"karuba", "sans", "arret", "cubirds"})


@pytest.mark.parametrize("question, field", [
    ("Karuba c'est à partir de quel âge ?", "age"),
    ("ma fille a 7 ans, elle peut jouer ?", "age"),
    ("Le jeu est conseillé à partir de quel âge ?", "age"),  # what the box advises
    ("Cubirds ça se joue à combien ?", "players"),
    ("on peut jouer à 5 ?", "players"),
    ("on est 6 ce soir, ça passe ?", "players"),
    ("une partie dure combien de temps en général ?", "duration"),
    ("how long does a game take?", "duration"),
    ("Qui est l'auteur de Sans Arrêt ?", "author"),
    ("qui a inventé ce jeu ?", "author"),
    ("c'est quel éditeur ?", "publisher"),
    ("il est sorti en quelle année ?", "year"),
    ("il y a des extensions ?", "expansions"),
])
def test_card_questions_name_their_field(question, field):
    asked = card_questions().asked(Question.of(question), NAMES)
    assert asked is not None and asked.field == field and asked.missing


@pytest.mark.parametrize("question", [
    "A deux joueurs, on met quels trésors sur chaque temple ?",  # the players' count inside a rules question
    "à combien de joueurs on utilise 4 trésors ?",
    "combien de temps dure un tour ?",  # a turn is no game
    "l'extension change quoi ?",  # what the expansion changes: not the count the card gives
    "Il faut combien de voies pour gagner ?",
])
def test_rules_questions_holding_a_cue_are_not_card_questions(question):
    assert card_questions().asked(Question.of(question), NAMES) is None


def test_the_longest_cue_decides_the_field_and_unknown_fields_are_refused():
    data = {"fields": {"age": {"cues": ["age"], "missing": "l'âge"},
                       "duration": {"cues": ["combien de temps"], "missing": "la durée"}},
            "residual": ["jeu"]}
    cards = CardQuestions(data)
    assert cards.asked(Question.of("combien de temps, le jeu ?")).field == "duration"
    assert cards.asked(Question.of("combien de temps pour ranger le jeu ?")) is None  # "ranger" is no card word
    with pytest.raises(ValueError, match="unknown"):
        CardQuestions({"fields": {"weight": {"cues": ["poids"], "missing": "le poids"}}, "residual": []})
