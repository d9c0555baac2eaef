"""The training corpus (training/): its format, its labels checked by a third voice, and nothing shared with
the served corpus or the gold questions."""

import json
from collections import Counter

import pytest

from eval.training_set import MECHANICS, ROOT, VOICES, check, examples, load, subset
from tests.fakes import CORPUS


@pytest.fixture(scope="module")
def games():
    return load()


@pytest.fixture(scope="module")
def checked():
    return check()


def test_the_training_corpus_has_no_problem(checked):
    result = checked
    assert result["problems"] == []
    counts = result["counts"]
    assert counts["games"] >= 40 and counts["games_validation"] >= 6
    assert counts["checked"] == counts["questions"] >= 40 * 100


def test_no_training_game_shares_an_id_title_or_alias_with_the_corpus(games):
    from indexer.corpus import read_corpus

    served = {n.casefold() for d in read_corpus(CORPUS) for n in (d.game.id, d.game.title, *d.game.aliases)}
    for game in games:
        names = {n.casefold() for n in (game.doc.game.id, game.doc.game.title, *game.doc.game.aliases)}
        assert not names & served, game.entry.id


def test_voices_mechanics_and_splits(games):
    authors = Counter(g.entry.author for g in games)
    assert set(authors) <= set(VOICES) and len(authors) >= 4
    for g in games:  # the questions in another voice, the labels checked by a third
        assert len({g.entry.author, g.entry.questions_by, g.entry.checked_by}) == 3
    assert {m for g in games for m in g.entry.mechanics} == set(MECHANICS)
    # Split by game: no validation game is trained on.
    train = {g.entry.id for g in games if g.entry.split == "train"}
    validation = {g.entry.id for g in games if g.entry.split == "validation"}
    assert train and validation and not train & validation


def test_no_gold_question_is_trained_on():
    from rulesqa.train import training_examples

    gold = {json.loads(raw)["question"].casefold() for split in ("dev", "test")
            for raw in (CORPUS.parent / "eval" / "questions" / f"{split}.jsonl").read_text("utf-8").splitlines()
            if raw.strip()}
    _, items = training_examples()
    assert len(items) > 8000 and not gold & {e.question.casefold() for e in items}


def test_training_examples_are_the_checked_answered_questions(games):
    validation = [g for g in games if g.entry.split == "validation"]
    assert not {e.game.id for e in examples([g for g in games if g.entry.split == "train"])} & \
        {g.entry.id for g in validation}
    game = next(g for g in games if any(v != "ok" for v in g.verdicts.values()))
    ids_out = {q for q, v in game.verdicts.items() if v != "ok"}
    kept = examples([game])
    answered_ok = [q for q in game.questions if q.answerable and q.id not in ids_out]
    assert len(kept) == len(answered_ok) and kept
    assert all(e.passage.game == game.entry.id for e in kept)


def test_learning_curve_subsets_are_nested_and_spread(games):
    train = [g for g in games if g.entry.split == "train"]
    ten, twenty = subset(train, 10), subset(train, 20)
    assert len(ten) == 10 and len(twenty) == 20 and len({g.entry.author for g in ten}) >= 4
    one, two = subset(train, 8, writers=1), subset(train, 8, writers=2)
    assert len({g.entry.author for g in one}) == 1 and len({g.entry.author for g in two}) == 2
    assert subset(train, 10) == ten  # seeded


def test_the_readme_counts_are_the_corpus_s(checked):
    text = (ROOT / "README.md").read_text("utf-8")
    counts = checked["counts"]
    assert f"{counts['games']} games" in text and f"{counts['questions']:,}".replace(",", " ") in text
