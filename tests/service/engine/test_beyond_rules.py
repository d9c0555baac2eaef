"""What no rulebook answers, and topics the game's own text does not cover."""

import pytest

from service.engine.decide.beyond_rules import BeyondRules
from service.engine.phrases import folded
from service.engine.question import Question

TEXT = folded("Le chef d'expédition retourne une plaquette. Le plus haut total gagne.")


@pytest.mark.parametrize("question", [
    "Combien coûte la boîte de Karuba ?",  # the game's name reads as "le jeu"
    "Karuba ça coûte combien en magasin ?",
    "c'est quoi la meilleure strat ?",
    "il existe une appli pour y jouer ?",
    "Qui commence à Karuba ?",  # no first player in the text
    "on peut jouer en équipes ?",
])
def test_beyond_the_rules(question):
    assert BeyondRules().detect(Question.of(question), TEXT, ["Karuba"])


@pytest.mark.parametrize("question", [
    "Combien de points rapporte une pépite ?",
    "un dé noir ça coûte combien au marché ?",  # a price inside the game is a rule
    "Je peux poser ma plaquette où je veux ?",
])
def test_rules_questions_are_not(question):
    assert BeyondRules().detect(Question.of(question), TEXT, ["Karuba"]) == ()


def test_a_topic_the_text_covers_is_a_rules_question():
    covered = folded("Le plus jeune joueur commence la partie.")
    assert BeyondRules().detect(Question.of("qui commence ?"), covered) == ()
    assert BeyondRules().detect(Question.of("qui commence ?"), TEXT) == ("qui commence",)


@pytest.mark.parametrize("question", [
    "tu me conseilles quelle stratégie ?",
    "Vous recommandez quoi pour gagner ?",
    "quelle ouverture conseilles-tu ?",
])
def test_advice_asked_of_the_assistant_is_beyond_the_rules(question):
    assert BeyondRules().detect(Question.of(question), TEXT, ["Karuba"])


@pytest.mark.parametrize("question", [
    "Le jeu est conseillé à partir de quel âge ?",  # the card's age
    "c'est conseillé de trier ma main par couleur ?",  # what the rulebook advises
])
def test_what_the_box_or_the_rulebook_advises_is_not_advice_asked(question):
    assert BeyondRules().detect(Question.of(question), TEXT, ["Karuba"]) == ()


@pytest.mark.parametrize("text", [
    "Le joueur qui a vu la mer le plus récemment commence.",
    "Le joueur le plus âgé joue en premier.",
    "La plus âgée des joueuses prend le dé.",
    "Celui qui a le plus long souffle annonce en premier.",
])
def test_the_usual_ways_a_rulebook_names_the_first_player_cover_who_starts(text):
    assert BeyondRules().detect(Question.of("qui commence ?"), folded(text)) == ()


@pytest.mark.parametrize("question", [
    "la boite coute cb",  # "cb": a player's "combien"
    "qui a fait les illus ?",
    "Mon fils est daltonien, il y a des symboles ?",
    "les pions en bois, on peut les laver ?",
    "on peut s'échanger des cartes entre joueurs ?",
    "je peux prêter des pièces à un autre joueur ?",
])
def test_the_box_its_care_and_trading_between_players_are_beyond_a_rulebook_that_says_nothing_of_them(question):
    assert BeyondRules().detect(Question.of(question), TEXT, ["Karuba"])


def test_trading_is_a_rules_question_where_the_rulebook_speaks_of_it():
    trading = folded("À ton tour, tu peux échanger deux cartes avec un autre joueur, s'il accepte.")
    question = Question.of("on peut s'échanger des cartes entre joueurs ?")
    assert BeyondRules().detect(question, trading) == ()
    assert BeyondRules().detect(Question.of("je peux échanger une plaquette contre une autre ?"), TEXT) == ()


@pytest.mark.parametrize("question", [
    "Il y a un temps limite pour choisir sa carte ?",
    "j'ai combien de temps pour jouer mon tour ?",
    "on peut utiliser un dictionnaire pour vérifier un mot ?",
    "Peut-on faire des alliances ?",
    "on a le droit de montrer ses cartes aux autres ?",
    "La ville est inspirée d'une vraie ville ?",
    "Les cartes sont en quelle matière ?",
    "On peut jouer à 6 avec une deuxième boîte ?",
])
def test_a_time_limit_a_dictionary_alliances_or_a_shown_hand_are_beyond_a_rulebook_that_says_nothing_of_them(
        question):
    assert BeyondRules().detect(Question.of(question), TEXT, ["Karuba"])


@pytest.mark.parametrize("text, question", [
    ("Retournez le sablier : quand il est vide, la manche s'arrête.", "Il y a un temps limite pour choisir sa carte ?"),
    ("Les mots du dictionnaire sont acceptés.", "on peut utiliser un dictionnaire pour vérifier un mot ?"),
    ("Chacun garde sa main cachée.", "on a le droit de montrer ses cartes aux autres ?"),
])
def test_the_same_topics_are_rules_questions_where_the_rulebook_speaks_of_them(text, question):
    assert BeyondRules().detect(Question.of(question), folded(text)) == ()


def test_how_long_a_game_lasts_is_the_card_s_not_a_time_limit():
    assert BeyondRules().detect(Question.of("il faut prévoir combien de temps pour une partie ?"), TEXT) == ()


def test_which_piece_is_strongest_is_a_rules_question():
    """"La meilleure case" asks for a strategy; "la plus forte tuile" asks which tile wins, a rule."""
    assert BeyondRules().detect(Question.of("quelle est la meilleure case pour commencer ?"), TEXT)
    assert BeyondRules().detect(Question.of("quelle est la plus forte tuile ?"), TEXT) == ()
