"""judge/features.py: each feature family on tiny hand-made passages, with values computed by hand."""

import math

import numpy as np
import pytest

from indexer.corpus import Game
from indexer.passages import KINDS, Passage
from service.engine.findings import Hit
from service.engine.judge.features import FEATURES, explain, feature_rows, form_of
from service.engine.question import Question

KARUBA = Game(id="karuba", title="Karuba", aliases=("karuba le jeu",))
QUESTION = Question.of("Combien de points rapporte une pépite à Karuba ?")  # content stems: point, rapport, pepit


def passage(text, kind="rule", section=None, title=None):
    return Passage(f"karuba-{abs(hash(text)) % 10**6}", "karuba", section, title, (6,), text, 1, kind)


RULE = Hit(passage("Chaque pépite rapporte 2 points.", section="Fin de partie"), 0.030, 0.80, 6.0)
HEADING = Hit(passage("Décompte des points", section="Décompte"), 0.025, 0.85, 3.0)
ASKED = Hit(passage("Oui, toujours.", kind="question", title="Q: Une pépite rapporte-t-elle des points ?"),
            0.010, 0.60, 0.0)
HITS = [RULE, HEADING, ASKED]


def column(matrix, name):
    return matrix[:, FEATURES.index(name)].tolist()


@pytest.fixture(scope="module")
def matrix():
    return feature_rows(QUESTION, HITS, KARUBA)


def test_names_are_unique_and_match_the_columns(matrix):
    assert len(set(FEATURES)) == len(FEATURES)
    assert matrix.shape == (3, len(FEATURES)) and matrix.dtype == np.float64
    assert {f"kind_{k}" for k in KINDS} <= set(FEATURES)
    assert list(explain(matrix[0])) == list(FEATURES)


def test_no_hit_gives_no_row():
    assert feature_rows(QUESTION, [], KARUBA).shape == (0, len(FEATURES))


def test_retrieval_scores_ranks_and_gaps(matrix):
    assert column(matrix, "dense") == [0.80, 0.85, 0.60]
    assert column(matrix, "lexical") == [6.0, 3.0, 0.0]
    assert column(matrix, "lexical_share") == [1.0, 0.5, 0.0]
    assert column(matrix, "fused") == [0.030, 0.025, 0.010]
    assert column(matrix, "position") == [0, 1, 2]
    assert column(matrix, "dense_rank") == [1, 0, 2]
    assert column(matrix, "lexical_rank") == [0, 1, 2]
    assert column(matrix, "dense_gap_top") == pytest.approx([0.05, 0.0, 0.25])
    assert column(matrix, "fused_gap_next") == pytest.approx([0.005, 0.015, 0.0])
    assert column(matrix, "fused_gap_top") == pytest.approx([0.0, 0.005, 0.020])


def test_ties_share_a_rank_and_no_bm25_shares_nothing():
    hits = [Hit(RULE.passage, 0.02, 0.7, 0.0), Hit(HEADING.passage, 0.02, 0.7, 0.0)]
    out = feature_rows(QUESTION, hits, KARUBA)
    assert column(out, "dense_rank") == [0, 0] and column(out, "lexical_share") == [0, 0]
    assert column(out, "fused_gap_next") == [0, 0]


def test_kind_one_hot_and_length(matrix):
    assert column(matrix, "kind_rule") == [1, 1, 0] and column(matrix, "kind_question") == [0, 0, 1]
    kinds = matrix[:, [FEATURES.index(f"kind_{k}") for k in KINDS]]
    assert kinds.sum(axis=1).tolist() == [1, 1, 1]
    assert column(matrix, "log_length")[0] == pytest.approx(math.log1p(len("Chaque pépite rapporte 2 points.")))


def test_content_stems_found_in_text_and_heading(matrix):
    # The game's name is not a content word: 3 stems (point, rapport, pepit), not 4.
    assert column(matrix, "stems_in_passage") == pytest.approx([1.0, 1 / 3, 0.0])
    assert column(matrix, "stems_missing") == [0, 2, 3]
    # RULE's section "Fin de partie" holds none; HEADING's "Décompte" none; ASKED's title holds all three.
    assert column(matrix, "stems_in_section") == pytest.approx([0.0, 0.0, 1.0])
    without_game = feature_rows(QUESTION, [RULE])
    assert column(without_game, "stems_in_passage") == [0.75] and column(without_game, "stems_missing") == [1]


def test_a_question_without_content_shares_nothing():
    out = feature_rows(Question.of("Combien ?"), [RULE])
    assert column(out, "stems_in_passage") == [0] and column(out, "stems_missing") == [0]


def test_numbers_asked_and_given(matrix):
    assert column(matrix, "asks_number") == [1, 1, 1]
    assert column(matrix, "passage_has_number") == [1, 0, 0]  # "2 points"; the heading and "Oui" have none
    assert column(matrix, "number_match") == [1, 0, 0]
    words = feature_rows(Question.of("À partir de quel âge ?"), [Hit(passage("Dès douze ans."), 0.1, 0.5, 1.0)])
    assert column(words, "asks_number") == [1] and column(words, "number_match") == [1]
    rule = feature_rows(Question.of("Quand pioche-t-on ?"), [RULE])
    assert column(rule, "asks_number") == [0] and column(rule, "number_match") == [0]


def test_rulebook_question_overlap_only_for_question_passages(matrix):
    assert column(matrix, "qa_overlap") == pytest.approx([0.0, 0.0, 1.0])


@pytest.mark.parametrize("text, form", [
    ("Combien de points rapporte une pépite ?", "combien"),
    ("Quand peut-on échanger une tuile ?", "quand"),
    ("Qui commence la partie ?", "qui"),
    ("Peut-on passer son tour ?", "peut"),
    ("Est-ce qu'on peut passer son tour ?", "peut"),
    ("A-t-on le droit de passer ?", "peut"),
    ("Can I pass my turn?", "peut"),
    ("Comment peut-on gagner ?", "comment"),
    ("How many tiles do I draw?", "combien"),
    ("Que se passe-t-il quand la pioche est vide ?", "quoi"),
    ("Qu'est-ce qu'un temple ?", "quoi"),
    ("Où pose-t-on le temple ?", "ou"),
    ("Je pose une tuile ou une carte ?", "other"),
    ("Pourquoi défausser ?", "pourquoi"),
    ("Quelle carte jouer en premier ?", "other"),
])
def test_question_form(text, form):
    assert form_of(Question.of(text)) == form


def test_form_one_hot(matrix):
    forms = [n for n in FEATURES if n.startswith("form_")]
    assert matrix[:, [FEATURES.index(n) for n in forms]].sum(axis=1).tolist() == [1, 1, 1]
    assert column(matrix, "form_combien") == [1, 1, 1]


def test_explain_names_each_value(matrix):
    named = explain(matrix[1])
    assert named["position"] == 1.0 and named["dense"] == 0.85 and named["form_combien"] == 1.0
    with pytest.raises(ValueError):
        explain(matrix[1][:-1])
