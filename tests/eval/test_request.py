"""`rulesqa eval`'s options as one EvalRequest: the combinations refused before anything loads, and the one
workflow each request names."""

import pytest

from eval.errors import EvalError
from eval.request import EvalRequest


@pytest.mark.parametrize("options, message", [
    ({"split": "pooled"}, "--split pooled (test et new-games ensemble) ne vaut qu'avec --compare-index"),
    ({"split": "train"}, "split inconnu « train » (dev, test, new-games, publishers-dev ou publishers-test ; pooled "
                         "avec --compare-index)"),
    ({"split": "new-games", "calibrate": True}, "--split new-games mesure des jeux hors corpus"),
    ({"split": "publishers-test", "questions": "q.jsonl"}, "--split publishers-test mesure des jeux hors corpus"),
    ({"split": "publishers-dev", "publishers_text": "ocr"}, "--publishers-text inconnu « ocr » (import, glyphs, "
                                                            "reference)"),
    ({"split": "test", "publishers_text": "reference"}, "--publishers-text ne vaut qu'avec --split publishers-dev"),
    ({"mode": "fuzzy"}, "mode inconnu « fuzzy » (dense, lexical, hybrid ou all)"),
    ({"compare_adapt": True, "model": "rules-fr"}, "--compare-adapt compare les deux modèles e5"),
    ({"leave_one_game_out": True, "calibrate": True}, "--leave-one-game-out mesure l'adaptation d'e5"),
])
def test_impossible_combinations_are_refused(options, message):
    with pytest.raises(EvalError) as refused:
        EvalRequest(**options).check()
    assert str(refused.value).startswith(message)


@pytest.mark.parametrize("options, workflow", [
    ({}, "measure"),
    ({"ablation": True, "leave_one_game_out": True}, "measure"),
    ({"calibrate": True}, "calibrate"),
    ({"calibrate": True, "compare_index": "other"}, "compare-index"),
    ({"compare_adapt": True, "compare_index": "other"}, "compare-adapt"),
])
def test_each_request_names_one_workflow(options, workflow):
    request = EvalRequest(**options)
    request.check()
    assert request.workflow == workflow


def test_the_new_games_and_pooled_splits_load_their_questions_later():
    assert EvalRequest(split="new-games").gold() is None
    assert EvalRequest(split="publishers-test").gold() is None
    assert EvalRequest(split="pooled", compare_index="other").gold() is None
    assert EvalRequest(mode="lexical").modes == ("lexical",) and len(EvalRequest().modes) == 3
