"""The judge's data: each question's record, from the engine's own stages, with the gold relevance of its
candidates."""

import json

from eval.gold import load_questions
from eval.judge_data import K, counted, first_stage, records, write_jsonl

# An answerable question with its game given, its follow-up (the game from the previous turn), a question about
# something else.
PICKED = ("d157", "d158", "d044")
PASSAGE_KEYS = {"id", "game", "kind", "section", "title", "text", "pages", "score", "dense", "lexical", "relevant"}


def test_each_question_is_recorded_with_its_candidates_and_their_gold_relevance(fake_index, tmp_path):
    from tests.fakes import fake_answerer

    by_id = {q.id: q for q in load_questions("dev")}
    picked = [by_id[i] for i in PICKED]
    totals = {}
    path = tmp_path / "dev.jsonl"
    assert write_jsonl(path, counted(records(first_stage(fake_answerer(fake_index)), picked), totals)) == 3
    rows = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    assert [r["id"] for r in rows] == list(PICKED) and {r["split"] for r in rows} == {"dev"}
    given, follow_up, elsewhere = rows
    assert (given["game"], given["route"], given["gold_game"], given["answerable"]) == ("cubirds", "given",
                                                                                     "cubirds", True)
    assert given["card_question"] is None
    assert (follow_up["game"], follow_up["route"], follow_up["previous"]) == ("cubirds", "previous", "d157")
    assert elsewhere["refusal"] == "off_topic" and not elsewhere["answerable"] and elsewhere["reason"]
    for row, question in zip(rows, picked):
        assert 0 < len(row["candidates"]) <= K
        assert row["question"] == question.question and isinstance(row["signals"]["off_topic"], float)
        for c in row["candidates"]:
            assert set(c) == PASSAGE_KEYS
            assert c["relevant"] == question.is_relevant(c["game"], c["text"])
        if row["game"] is not None:
            assert {c["game"] for c in row["candidates"]} == {row["game"]}
            assert 0 <= row["coverage"] <= 1 and row["mean_cosine"] is not None
    assert not any(c["relevant"] for c in elsewhere["candidates"])
    assert totals["questions"] == 3 and totals["answerable"] == 2
    assert totals["relevant@20"] == sum(any(c["relevant"] for c in r["candidates"]) for r in rows)
