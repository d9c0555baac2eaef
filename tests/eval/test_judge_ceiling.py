"""The judge's ceiling measurements on tiny hand-computed data."""

import numpy as np
import pytest

from eval.judge_ceiling import Rows, leave_one_game_out, precision_of_most_confident, refused_within_budget

P = np.array([0.9, 0.8, 0.2, 0.7, 0.1, 0.3, 0.85])
ANSWERABLE = np.array([1, 1, 1, 1, 0, 0, 0])


@pytest.mark.parametrize(("budget", "refused"), [
    (0.25, 2 / 3),  # one answerable question of four may go: refuse below 0.7, which takes 0.1 and 0.3
    (0.0, 1 / 3),  # none may: refuse below 0.2, the lowest answerable, which takes 0.1 only
    (1.0, 1.0),  # all may: every question is refused
])
def test_the_refusal_is_counted_at_the_threshold_the_budget_allows(budget, refused):
    assert refused_within_budget(P, ANSWERABLE, budget) == pytest.approx(refused)


@pytest.mark.parametrize(("share", "expected"), [(0.4, (0.5, 2)), (0.6, (2 / 3, 3)), (0.01, (1.0, 1))])
def test_precision_is_read_on_the_most_confident_answers(share, expected):
    confidence = np.array([0.9, 0.1, 0.8, 0.5, 0.7])
    right = np.array([1, 0, 0, 1, 1])
    precision, count = precision_of_most_confident(confidence, right, share)
    assert (precision, count) == (pytest.approx(expected[0]), expected[1])


def rows(seed: int, games: list[str], flip: str | None = None) -> Rows:
    rng = np.random.default_rng(seed)
    x = rng.normal(size=(len(games), 3))
    answerable = (x[:, 0] > 0).astype(int)
    if flip is not None:
        answerable = np.where(np.array(games) == flip, 1 - answerable, answerable)
    return Rows(x, answerable, answerable.copy(), np.zeros(len(games)), np.array(games))


def test_a_dev_game_is_predicted_by_a_model_that_never_saw_its_labels():
    train = rows(1, ["t"] * 60)
    games = ["a"] * 20 + ["b"] * 20
    plain = leave_one_game_out(train, rows(2, games), "answerable", 10.0)
    flipped = leave_one_game_out(train, rows(2, games, flip="a"), "answerable", 10.0)
    a = np.array(games) == "a"
    assert np.allclose(plain[a], flipped[a])  # game a's own labels changed nothing of its predictions
    assert not np.allclose(plain[~a], flipped[~a])  # they did change game b's, whose model learned from them
