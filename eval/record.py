"""One question asked in one mode, as the eval records it (eval.run.make_record) and the metrics read it
(eval/metrics.py); `rulesqa eval --outcomes` writes these records, timing aside (eval/outcomes.py).

A dict, typed: the records are written to JSON as they are, and the metrics' tests build small ones by hand."""

from typing import TypedDict


class QuestionRecord(TypedDict, total=False):
    id: str
    split: str
    mode: str  # dense, lexical or hybrid
    question: str
    lang: str
    game: str | None  # the game the question was asked about; None: the router chose
    gold_game: str | None  # the game the gold set says it is about; None: off-topic
    answerable: bool
    gold_pages: list[int]
    found: bool  # an answer was given (not refused)
    detected_game: str | None
    answer_passage_id: str | None
    passage_ids: list[str]  # the returned passages, in order
    scores: list[float]
    answer_text: str | None
    warning_id: str | None
    choice_ids: list[str]
    pages: list[list[int]]  # the pages of each returned passage
    relevant: list[bool]  # one per returned passage, in order
    answer_set_relevant: list[bool] | None  # one per passage of the answer set
    refusal: str | None  # the reason given, None when answered
    gold_refusal: str | None  # the refusal the gold set expects, None for an answerable question
    sure: bool  # the answer is shown as sure
    choices_relevant: list[bool] | None  # one per "Tu parles de… ?" choice offered, None when none is
    tags: list[str]
    latency_ms: float
