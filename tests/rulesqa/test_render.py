"""The terminal rendering of an answer: the same object --json prints, in French lines."""

from rulesqa.render import render_answer


def passage(pid, citation):
    return {"id": pid, "game": "karuba", "section": "S", "pages": [5], "text": "Titre\\nCorps", "score": 1.0,
            "citation": citation, "short_citation": "p. 5"}


def test_answer_with_its_set_and_a_common_mistake():
    result = {
        "question": "q", "game": {"id": "karuba", "title": "Karuba"}, "game_detected": True, "found": True,
        "answer": {"text": "Deux points.", "citation": "Karuba, livret p. 6", "passage_id": "a",
                   "passage_ids": ["a", "b"]},
        "message": "Réponse trouvée : Karuba, livret p. 6.",
        "passages": [passage("a", "Karuba, livret p. 6"), passage("b", "Karuba, livret p. 5")],
        "refusal": None,
        "warning": {"text": "Compter l'or resté : non.", "citation": "Karuba, livret p. 6", "passage_id": "c"},
    }
    lines = render_answer(result).splitlines()
    assert lines[:5] == ["Jeu : Karuba (détecté)", "Réponse : « Deux points. »", "Source : Karuba, livret p. 6",
                         "Voir aussi : Karuba, livret p. 5",
                         "Erreur fréquente : Compter l'or resté : non. (Karuba, livret p. 6)"]


def test_refusal_prints_its_message():
    result = {"question": "q", "game": None, "game_detected": False, "found": False, "answer": None,
              "message": "Je réponds aux questions sur les règles des jeux de société ; celle-ci n'en est pas une.",
              "passages": [], "refusal": {"reason": "off_topic", "message": "…"}, "warning": None}
    assert render_answer(result) == result["message"]
