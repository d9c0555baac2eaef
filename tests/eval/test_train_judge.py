"""The learned judge's trainer on a tiny recorded corpus: the right passage always holds the question's words, so
the trained ranker puts it first, and the file it writes is one the engine loads."""

import json

import pytest

from eval.train_judge import train
from service.engine.judge.learned import LearnedJudge

WORDS = ["pépite", "cristal", "temple", "explorateur", "tuile", "jungle"]


def record(i: int, answerable: bool = True) -> dict:
    word = WORDS[i % len(WORDS)]
    other = WORDS[(i + 1) % len(WORDS)]
    candidates = []
    for j in range(6):
        right = answerable and j == 3  # retrieval puts the right one fourth
        text = f"Une {word} rapporte {j + 1} points." if right else f"Une {other} se pose face cachée ({j})."
        candidates.append({"id": f"g-{i}-{j}", "game": "g", "kind": "rule", "section": "Tour", "title": None,
                           "text": text, "pages": [1], "score": 1.0 - 0.1 * j, "dense": 0.9 - 0.01 * j,
                           "lexical": 2.0 if right else 0.5, "relevant": right})
    return {"id": f"q{i}", "question": f"Combien rapporte une {word} ?", "game": "g", "answerable": answerable,
            "candidates": candidates}


@pytest.fixture
def data(tmp_path):
    folder = tmp_path / "data"
    folder.mkdir()
    for name, count in (("train", 40), ("validation", 12)):
        lines = [record(i) for i in range(count)] + [record(100 + i, answerable=False) for i in range(6)]
        (folder / f"{name}.jsonl").write_text("\n".join(json.dumps(r, ensure_ascii=False) for r in lines) + "\n")
    return folder


def test_the_trained_ranker_puts_the_passage_holding_the_question_s_words_first(data, tmp_path):
    model = train(data, tmp_path / "no-games", "multilingual-e5-small")
    ranked = model["trained"]["ranker"]
    assert ranked["validation_hit@1_retrieval"] == 0.0  # retrieval puts it fourth
    assert max(ranked["validation_hit@1"].values()) == 1.0
    path = tmp_path / "judge.json"
    path.write_text(json.dumps(model), "utf-8")
    judge = LearnedJudge.load(path, "multilingual-e5-small")
    assert judge.top_n == 20 and judge.ranker.hidden_weights.shape[1] == len(model["features"])
