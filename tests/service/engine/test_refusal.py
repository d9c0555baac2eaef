"""Refusal signals and reasons, answer sets and common-mistake warnings, on hand-made data and the fake index."""

import math

import numpy as np

import pytest

from service.engine.decide.abstention import AbstentionPolicy

from service.engine.compose.answer_set import AnswerSetPolicy, conformal_gap
from service.engine.calibration import Calibration
from service.engine.compose.common_mistake import CommonMistakePolicy
from service.engine.retrieval.mistake_rows import is_mistakes_section
from service.engine.decide.refusal import RefusalPolicy
from service.engine.decide.signals import Signals
from service.engine.retrieval.protocol import Hit
from tests.fakes import FakeEmbedder, fake_answerer
from service.engine.question import Question


def signals(names=(), off=-0.1, beyond=-0.1, coverage=1.0, focus=1.0, in_game_words=False):
    return Signals(tuple(names), off, beyond, coverage, focus, in_game_words=in_game_words)


POLICY = RefusalPolicy(off_topic_margin=0.0, min_coverage=0.2, names=True, beyond_rules_margin=0.0, min_focus=0.3)


@pytest.mark.parametrize("given, game_known, reason", [
    (signals(), True, None),
    (signals(off=0.01), True, "off_topic"),
    (signals(off=0.01, in_game_words=True), True, None),  # near off-topic ones, but in the rulebook's words
    (signals(coverage=0.1, in_game_words=True), True, "off_topic"),
    (signals(coverage=0.1), True, "off_topic"),
    (signals(names=["Catan"]), True, "other_game"),
    (signals(names=["Lyon"], off=-0.001 + 0.002), True, "off_topic"),  # a place in a non-game question
    (signals(beyond=0.02), True, "not_in_rules"),
    (signals(focus=0.2), True, "not_in_rules"),
    (signals(focus=0.2), False, None),  # no game: nothing to be "not in the rules" of
])
def test_refusal_reasons_in_order(given, game_known, reason):
    assert POLICY.reason(given, game_known) == reason


def test_the_default_policy_refuses_nothing():
    assert RefusalPolicy().reason(signals(names=["X"], off=1.0, beyond=1.0, coverage=0.0, focus=0.0), True) is None


@pytest.fixture(scope="module")
def answerer(fake_index):
    return fake_answerer(fake_index, Calibration(abstention=AbstentionPolicy(threshold=0.2)))


@pytest.mark.parametrize("question, names", [
    ("Au Uno on peut poser un +4 sur un +2 ?", ("Uno",)),
    ("Dans Can't Stop, que faire d'un double ?", ()),  # an alias of a corpus game
    ("Quel temps fera-t-il demain à Lyon ?", ("Lyon",)),
    ("Karuba. Combien de Temples ?", ()),  # after a full stop, and a corpus word
    ("In Monopoly, can I build houses?", ("Monopoly",)),
    ("Les Pioches vides, on fait quoi ?", ()),  # an inflection of a corpus word ("pioche"), not a name
    ("Mes Envolées comptent double ?", ()),
])
def test_unknown_names_are_capitalised_words_the_corpus_lacks(answerer, question, names):
    assert answerer.signaller.unknown_names(Question.of(question)) == names


def test_an_other_game_question_is_refused_without_a_guessed_game(answerer):
    strict = answerer.reconfigured(refusal=RefusalPolicy(names=True))
    result = strict.ask("Au Catan, quand un 7 sort, on défausse combien de cartes ?")
    assert result.found is False and result.answer is None and result.game is None
    assert result.refusal.reason == "other_game" and "Catan" in result.refusal.message
    assert result.message == result.refusal.message and result.passages  # nearest passages still listed


def test_a_given_game_stays_when_refusing(answerer):
    strict = answerer.reconfigured(refusal=RefusalPolicy(names=True))
    result = strict.ask("Au Catan, on défausse combien de cartes ?", "karuba")
    assert result.refusal.reason == "other_game" and result.game.id == "karuba"


def hit(pid, score, dense):
    return Hit(type("P", (), {"id": pid})(), score, dense, 0.0)


def test_answer_set_keeps_close_neighbours_up_to_its_size():
    hits = [hit("a", 1.0, 0.90), hit("b", 0.95, 0.80), hit("c", 0.90, 0.89), hit("d", 0.5, 0.88)]
    ids = lambda chosen: [h.passage.id for h in chosen]  # noqa: E731
    assert ids(AnswerSetPolicy().select(hits)) == ["a"]
    assert ids(AnswerSetPolicy(0.06, 3, "fused").select(hits)) == ["a", "b"]
    assert ids(AnswerSetPolicy(0.02, 4, "dense").select(hits)) == ["a", "c", "d"]
    assert ids(AnswerSetPolicy(1.0, 2, "fused").select(hits)) == ["a", "b"]
    with pytest.raises(ValueError):
        AnswerSetPolicy(score="bm25")


def test_conformal_gap_is_the_finite_sample_quantile():
    gaps = [0.0] * 7 + [0.1, 0.2, math.inf]
    assert conformal_gap(gaps, 0.7) == 0.1  # ceil(11 * 0.7) = 8th smallest
    assert conformal_gap(gaps, 0.8) == 0.2  # 9th
    assert conformal_gap(gaps, 0.95) == math.inf  # 11th of 10: unreachable
    assert conformal_gap([], 0.9) == 0.0


def test_answer_set_and_warning_in_the_answer(answerer):
    generous = answerer.reconfigured(answer_set=AnswerSetPolicy(10.0, 3), common_mistake=CommonMistakePolicy(-1.0))
    result = generous.ask("Les pépites d'or rapportent combien à la fin ?", "karuba", k=5)
    assert result.answer.passage_ids == [p.id for p in result.passages[:3]]
    assert result.answer.passage_ids[0] == result.answer.passage_id
    warning = result.warning
    assert warning is not None and warning.passage_id not in result.answer.passage_ids
    assert warning.citation.startswith("Karuba, livret p.")
    assert warning.passage_id.startswith("karuba-")
    silent = answerer.reconfigured(common_mistake=CommonMistakePolicy(math.inf))
    assert silent.ask("Les pépites d'or rapportent combien à la fin ?", "karuba").warning is None


def test_mistakes_sections_are_found_by_their_heading():
    assert is_mistakes_section("Les erreurs fréquentes") and is_mistakes_section("Erreur frequente")
    assert is_mistakes_section("Common mistakes") and not is_mistakes_section("Fin de partie")
    assert not is_mistakes_section(None)


class CountingEmbedder(FakeEmbedder):
    def __init__(self, salt=""):
        super().__init__(salt)
        self.query_calls = 0

    def encode_queries(self, texts):
        self.query_calls += 1
        return super().encode_queries(texts)


def test_reference_vectors_are_cached_per_model_and_survive_a_bad_cache(tmp_path):
    from service.engine.decide.signals import reference_questions, reference_vectors

    first = CountingEmbedder()
    computed = reference_vectors(first, tmp_path)
    assert first.query_calls == len(reference_questions()) and len(list(tmp_path.glob("*.npz"))) == 1
    again = CountingEmbedder()
    cached = reference_vectors(again, tmp_path)
    assert again.query_calls == 0  # read, not encoded
    for kind, vectors in computed.items():
        np.testing.assert_array_equal(cached[kind], vectors)
    other = CountingEmbedder(salt="another model")
    reference_vectors(other, tmp_path)
    assert other.query_calls > 0 and len(list(tmp_path.glob("*.npz"))) == 2  # keyed by the fingerprint
    for f in tmp_path.glob("*.npz"):
        f.write_bytes(b"not numpy")
    broken = CountingEmbedder()
    for kind, vectors in reference_vectors(broken, tmp_path).items():
        np.testing.assert_array_equal(vectors, computed[kind])
    assert broken.query_calls > 0
    (tmp_path / "a-file").write_text("x")
    assert reference_vectors(CountingEmbedder(), tmp_path / "a-file" / "sub")  # unwritable: still answers


def test_a_question_in_the_asked_rulebook_s_own_words_is_marked_so(answerer):
    """Every content word (stopwords and the game's names aside) a word of the game's text, or not."""
    from service.engine.question import validate

    def marked(text):
        query = validate(text, "karuba")
        asked = answerer.read(query)
        return answerer.signaller.signals(asked, answerer.find(asked, answerer.retrieve(asked))).in_game_words

    assert marked("Dans Karuba, combien de points rapporte une pépite d'or ?")
    assert not marked("Quel temps fera-t-il demain à Lyon ?")
