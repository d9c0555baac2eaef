"""ask(): answer object, extractive answer, citation, abstention and routing, on the fake-embedder index."""

import pytest

from service.engine.routing.router import RoutingPolicy
from tests.fakes import fake_answerer
from service.engine.errors import QuestionError
from indexer.errors import UnknownGameError
from indexer.passages import Passage
from service.engine.decide.abstention import AbstentionPolicy
from service.engine.compose.quote import citation, extract_answer, short_citation
from service.engine.question import Question
from service.engine.decide.confidence import ConfidencePolicy
from service.engine.calibration import Calibration


@pytest.fixture
def answerer(fake_index):
    return fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.2)))


def test_answer_object_shape_and_citation(answerer):
    result = answerer.ask("Les pépites d'or rapportent combien à la fin ?", "karuba", k=3).to_dict()
    assert set(result) == {"question", "game", "game_detected", "found", "answer", "message", "passages",
                           "refusal", "warning", "sure", "choices", "ask_id"}
    assert result["ask_id"] is None  # set only by a face that logs the answer (service/questions_log/recorder.py)
    assert result["game"] == {"id": "karuba", "title": "Karuba"} and result["game_detected"] is False
    assert result["found"] is True and result["refusal"] is None
    top = result["passages"][0]
    assert top["pages"] == [6] and "2 points" in top["text"]
    assert set(top) == {"id", "game", "section", "pages", "text", "score", "citation", "short_citation"}
    assert (top["citation"], top["short_citation"]) == ("Karuba, livret p. 6", "p. 6")
    assert result["answer"]["passage_id"] == top["id"] and result["answer"]["passage_ids"][0] == top["id"]
    assert result["answer"]["citation"] == "Karuba, livret p. 6"
    assert result["answer"]["text"] in top["text"]  # extractive: the corpus's own words
    assert len(result["passages"]) == 3 and all(p["game"] == "karuba" for p in result["passages"])
    scores = [p["score"] for p in result["passages"]]
    assert scores == sorted(scores, reverse=True)


def test_weak_evidence_abstains_but_lists_nearest_passages(fake_index):
    strict = fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.99)))
    result = strict.ask("Les pépites d'or rapportent combien ?", "karuba")
    assert result.found is False and result.answer is None
    assert "ne trouve pas" in result.message and "Karuba" in result.message
    assert result.refusal.reason == "weak_evidence" and "Karuba" in result.refusal.message
    assert len(result.passages) == 5


def test_game_named_in_question_is_detected(answerer):
    result = answerer.ask("Dans Can't Stop, que faire d'un double total comme 7 et 7 ?")
    assert result.game.id == "sans-arret" and result.game_detected is True
    assert all(p.game == "sans-arret" for p in result.passages)


def test_game_detected_from_retrieval_evidence(answerer):
    result = answerer.ask("les pépites d'or et les cristaux ramassés rapportent combien de points ?")
    assert result.game.id == "karuba" and result.game_detected is True


def test_no_shared_word_means_no_game_even_when_the_policy_accepts_everything(fake_index):
    permissive = fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy()))
    result = permissive.ask("xylophone zeppelin quokka")
    assert result.game is None and result.found is False and len(result.passages) == 5


def test_off_topic_without_game_abstains_with_no_game(fake_index):
    strict = fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.99)))
    result = strict.ask("Quelle est la recette de la pâte à crêpes ?")
    assert result.found is False and result.game is None and result.game_detected is False
    assert "jeux que je connais" in result.message


@pytest.mark.parametrize(
    "question, kwargs, fragment",
    [
        ("", {}, "vide"),
        ("   \n ", {}, "vide"),
        ("x" * 1001, {}, "trop longue"),
        (42, {}, "texte"),
        ("ok ?", {"k": 0}, "entre 1 et 20"),
        ("ok ?", {"k": 21}, "entre 1 et 20"),
        ("ok ?", {"mode": "magic"}, "mode inconnu"),
    ],
)
def test_bad_questions_are_refused(answerer, question, kwargs, fragment):
    with pytest.raises(QuestionError, match=fragment):
        answerer.ask(question, **kwargs)


def test_unknown_game_lists_known_ones(answerer):
    with pytest.raises(UnknownGameError) as caught:
        answerer.ask("Comment gagner ?", "monopoly")
    assert caught.value.known == ["cubirds", "cubitos", "karuba", "sans-arret"]


def passage(text, title=None, pages=(), section="S"):
    return Passage("g-1", "g", section, title, tuple(pages), text, 1)


def test_citation_forms():
    assert citation(passage("x", pages=(10, 13)), "Cubitos") == "Cubitos, livret p. 10, 13"
    assert citation(passage("x", section="Fin de partie"), "Cubirds") == "Cubirds, section Fin de partie"
    assert citation(passage("x", section=None), "Cubirds") == "Cubirds"
    assert short_citation(passage("x", pages=(5, 6))) == "p. 5, 6"
    assert short_citation(passage("x", section="Fin de partie")) == "Fin de partie"
    assert short_citation(passage("x", section=None)) == ""
    card = Passage("g-2", "g", "Fiche du jeu", None, (), "Âge : 8 ans et +", 1, "card")
    assert citation(card, "Karuba") == "Karuba, fiche du jeu" and short_citation(card) == "fiche du jeu"


def test_extract_answer_of_a_question_passage_takes_its_lead_sentences():
    p = passage("Peut-on tourner ?\nNon. Le numéro doit rester lisible. On peut créer des impasses.", title="Peut-on tourner ?")
    assert extract_answer(p, Question.of("on peut tourner les tuiles ?")) == "Non. Le numéro doit rester lisible."


def test_extract_answer_elsewhere_takes_the_sentence_closest_to_the_question():
    p = passage(
        "Aux points\nAdditionne tes trésors de temple et les pépites d'or ramassées qui rapportent chacune deux points. "
        "Le plus haut total gagne la partie et tout le monde applaudit.",
        title="Aux points",
    )
    answer = extract_answer(p, Question.of("Combien rapporte une pépite d'or ?"))
    assert answer.startswith("Additionne tes trésors") and "plus haut total" not in answer


@pytest.mark.parametrize("question, game", [
    ("À Karouba, les pépites d'or rapportent combien ?", "karuba"),
    # The name read across a word boundary ("cubird s" is "cubirds"): the next word is not a name.
    ("Les cubird s'envolent quand il y a un vol d'oiseaux ?", "cubirds"),
])
def test_misspelt_title_routes_and_is_not_an_unknown_game(fake_index, question, game):
    from service.engine.decide.refusal import RefusalPolicy

    # Unknown capitalised names refused as another game's: the misspelt title must not be one.
    answerer = fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.2),
                                                                     refusal=RefusalPolicy(names=True)))
    result = answerer.ask(question)
    assert result.game.id == game and result.game_detected is True
    assert result.refusal is None or result.refusal.reason not in ("other_game", "off_topic")
    assert all(p.game == game for p in result.passages)


def test_close_evidence_between_games_asks_which_game(answerer):
    question = "les pépites d'or et les cristaux ramassés rapportent combien de points ?"
    # Every other game counts as close: the answerer must ask rather than pick one, unless the lexical
    # retriever alone settles it (test_a_dominant_lexical_game_routes): not here.
    answerer = answerer.reconfigured(routing=RoutingPolicy(ambiguity_margin=2.0, lexical_dominance=float("inf")))
    result = answerer.ask(question).to_dict()
    assert result["found"] is False and result["game"] is None and result["answer"] is None
    refusal = result["refusal"]
    assert refusal["reason"] == "ambiguous_game" and len(refusal["games"]) == 3
    assert refusal["games"][0] == {"id": "karuba", "title": "Karuba"}
    titles = [g["title"] for g in refusal["games"]]
    assert refusal["message"] == f"Précisez le jeu : {titles[0]}, {titles[1]} ou {titles[2]} ?"
    assert result["message"] == refusal["message"] and len(result["passages"]) == 5
    # With the game given, the same question is answered.
    assert answerer.ask(question, "karuba").found is True


def test_a_misspelt_name_near_two_games_asks_which(fake_index):
    from dataclasses import replace

    answerer = fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.2)))
    # Two games whose names are one letter from the question's "Cubirts", at the same place.
    retriever = answerer.retriever
    games = [replace(g, aliases=("Cubirys",)) if g.id == "cubitos" else g for g in retriever.games]
    from service.engine.question.names import GameNames

    answerer.names = GameNames(games, answerer.signaller.vocabulary)
    answerer = answerer.with_toggles()  # its router reads the names again
    result = answerer.ask("Cubirts : quand la partie se termine ?").to_dict()
    assert result["found"] is False and result["refusal"]["reason"] == "ambiguous_game"
    assert {g["id"] for g in result["refusal"]["games"]} == {"cubirds", "cubitos"}
    assert result["message"].startswith("Précisez le jeu : ")


def test_a_dominant_lexical_game_routes(answerer):
    answerer = answerer.reconfigured(routing=RoutingPolicy(ambiguity_margin=2.0))  # every game as close by cosine
    result = answerer.ask("les pépites d'or et les cristaux ramassés rapportent combien de points ?")
    assert result.game is not None and result.game.id == "karuba" and result.game_detected


def card_answerer(fake_index):
    return fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.2)))


def test_a_card_question_is_answered_by_the_card_line(fake_index):
    result = card_answerer(fake_index).ask("Karuba c'est à partir de quel âge ?")
    assert result.found and result.sure and result.choices == []
    assert (result.answer.text, result.answer.citation) == ("Âge : 8 ans et +", "Karuba, fiche du jeu")
    assert result.passages[0].id == result.answer.passage_id and result.passages[0].short_citation == "fiche du jeu"
    assert result.message == "Réponse trouvée : Karuba, fiche du jeu."


def test_a_field_the_card_lacks_is_not_in_the_rules(fake_index):
    result = card_answerer(fake_index).ask("Cubirds ça se joue à combien ?")  # Cubirds has no card
    assert not result.found and result.refusal.reason == "not_in_rules" and result.choices == []
    assert result.refusal.message == "Ni les règles ni la fiche du jeu de Cubirds ne donnent le nombre de joueurs."


def test_the_card_never_answers_a_rules_question(fake_index):
    result = card_answerer(fake_index).ask("les extensions changent quoi aux règles ?", "karuba", k=10)
    assert result.answer is None or not result.answer.citation.endswith("fiche du jeu")
    cards = [i for i, p in enumerate(result.passages) if p.short_citation == "fiche du jeu"]
    assert all(i > 0 for i in cards)  # listed, if at all, after the rule passages


def test_choices_unless_sure(fake_index):
    unsure = card_answerer(fake_index)
    result = unsure.ask("Les pépites d'or rapportent combien à la fin ?", "karuba", k=5)
    assert result.found and not result.sure and len(result.choices) == 3
    assert [c.passage_id for c in result.choices] == [p.id for p in result.passages[:3]]
    assert [c.best for c in result.choices] == [True, False, False]
    assert result.choices[0].text == result.answer.text and result.choices[0].citation == result.answer.citation
    assert result.message == f"Réponse probable : {result.answer.citation}. Tu parles de… ?"
    sure = unsure.reconfigured(confidence=ConfidencePolicy(min_gap=0.0))
    result = sure.ask("Les pépites d'or rapportent combien à la fin ?", "karuba", k=5)
    assert result.sure and result.choices == [] and result.message.startswith("Réponse trouvée")


def test_definitive_refusals_offer_no_choices(fake_index):
    result = card_answerer(fake_index).ask("comment on joue au poker ?", "karuba")
    assert result.refusal.reason == "other_game" and result.choices == [] and "poker" in result.message
