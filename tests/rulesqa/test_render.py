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


def test_a_calibration_kept_and_one_saved():
    from types import SimpleNamespace

    from eval.calibrate import Calibrated
    from rulesqa.render import eval_output

    chosen = SimpleNamespace(fusion="F", abstention="A")
    pairs = [{"metric": "hit@1", "score_a": 0.5, "score_b": 0.52, "p_value": 0.4}]
    notes, text = eval_output("calibrate", Calibrated(chosen, {"hit@1": 0.52}, pairs, None), as_json=True)
    lines = text.splitlines()
    assert notes == [] and lines[:3] == ["fusion : F", "abstention : A", "mesuré sur dev : {'hit@1': 0.52}"]
    assert lines[3] == "test apparié sur dev, calibrage enregistré -> nouveau : hit@1 0.500 -> 0.520 (p = 0.400)"
    assert lines[4].startswith("pas de gain significatif") and len(lines) == 5
    _, text = eval_output("calibrate", Calibrated(chosen, {}, None, "index/calibration.json"), as_json=False)
    assert text.splitlines()[3:] == ["index/calibration.json"]
