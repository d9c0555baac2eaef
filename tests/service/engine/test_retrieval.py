"""Retriever: one encoding and at most one dense search per question, shared by routing and retrieval;
`rank` filters the shared scores per game in memory and equals a brute-force ranking."""

import numpy as np

from indexer.analysis import analyze
import pytest

from service.engine.retrieval import single as retrieval
from service.engine.decide.abstention import AbstentionPolicy
from service.engine.calibration import Calibration
from service.engine.retrieval.fusion import MODES
from service.engine.retrieval.protocol import FusionConfig
from service.engine.retrieval.single import SingleIndexRetriever as Retriever
from tests.fakes import FakeEmbedder, fake_answerer
from service.engine.question import Question

QUESTIONS = [
    "Les pépites d'or rapportent combien à la fin ?",
    "Combien de dés peut-on acheter ?",
    "Que se passe-t-il si je relance et que je ne peux pas avancer ?",
    "Quand un vol d'oiseaux s'envole-t-il ?",
    "Karuba : peut-on tourner une tuile ?",
    "xyzzy plugh",  # no word of the corpus: no lexical candidate at all
]


class CountingEmbedder(FakeEmbedder):
    def __init__(self):
        super().__init__()
        self.query_calls = 0

    def encode_queries(self, texts):
        self.query_calls += 1
        return super().encode_queries(texts)


class CountingIndex:
    """A FAISS index that counts its searches."""

    def __init__(self, index):
        self.index = index
        self.searches = 0

    def search(self, *args, **kwargs):
        self.searches += 1
        return self.index.search(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.index, name)


@pytest.fixture
def counted(fake_index):
    embedder = CountingEmbedder()
    answerer = fake_answerer(fake_index, embedder=embedder, calibration=Calibration(abstention=AbstentionPolicy(threshold=0.2)))
    index = CountingIndex(answerer.retriever.data.dense)
    answerer.retriever.data.dense = index
    return answerer, embedder, index


# float32's unit roundoff: a sum of n float32 products may differ, by summation order alone (BLAS kernels:
# AVX2 against AVX-512, gemv against dot), by up to n * U times the sum of the products' magnitudes.
U = float(np.finfo(np.float32).eps) / 2


def brute_force(retriever: Retriever, question: str, game, mode: str) -> tuple[dict[str, float], dict[str, float]]:
    """The documented ranking, from scratch: every passage of the game scored both ways, the top CANDIDATES
    by cosine ∪ the top CANDIDATES with a positive BM25 score, scores min-max normalised over that set and
    weighted. Returns each candidate's score, computed in float64 from the stored float32 values, and the
    float32 rounding the served computation may carry on it (its forward error bound)."""
    q = retriever.embedder.encode_queries([question])[0]
    terms = [t for t in analyze(question) if t in retriever.data.lexical.vocab_dict]
    bm25 = np.asarray(retriever.data.lexical.get_scores(terms), dtype=np.float64) if terms else None
    pool = [i for i, p in enumerate(retriever.passages) if game is None or p.game == game]
    vectors = retriever.data.vectors.astype(np.float64)
    cosine = {i: float(vectors[i] @ q.astype(np.float64)) for i in pool}
    # |error| <= n U sum|v_i q_i| for a dot product of n float32 terms (Higham, Accuracy and Stability, 3.1).
    dense_err = {i: len(q) * U * float(np.abs(vectors[i]) @ np.abs(q.astype(np.float64))) for i in pool}
    lexical = {i: float(bm25[i]) if bm25 is not None else 0.0 for i in pool}
    # bm25s adds one float32 score per query term: len(terms) roundings of at most the total.
    lexical_err = {i: (len(terms) + 1) * U * lexical[i] for i in pool}
    by_cosine = sorted(pool, key=lambda i: (-cosine[i], i))[: retrieval.CANDIDATES]
    by_bm25 = [i for i in sorted(pool, key=lambda i: (-lexical[i], i)) if lexical[i] > 0][: retrieval.CANDIDATES]
    candidates = sorted(set(by_cosine) | set(by_bm25))

    def minmax(values, errors):
        """Normalised values and their error: (x - lo) / (hi - lo) moves by at most the errors of x, lo and
        hi over the range, plus its own rounding."""
        lo, hi = min(values.values()), max(values.values())
        if hi <= lo:
            return {i: 0.0 for i in values}, {i: 0.0 for i in values}
        worst = max(errors.values())
        return ({i: (v - lo) / (hi - lo) for i, v in values.items()},
                {i: (errors[i] + 2 * worst) / (hi - lo) + 4 * U for i in values})

    dense_n, dense_n_err = minmax({i: cosine[i] for i in candidates}, dense_err)
    lexical_n, lexical_n_err = minmax({i: lexical[i] for i in candidates}, lexical_err)
    weight = retriever.fusion.dense_weight
    scores, errors = {
        "dense": ({i: cosine[i] for i in candidates}, dense_err),
        "lexical": ({i: lexical[i] for i in candidates}, lexical_err),
        "hybrid": ({i: weight * dense_n[i] + (1 - weight) * lexical_n[i] for i in candidates},
                   {i: weight * dense_n_err[i] + (1 - weight) * lexical_n_err[i] + 4 * U for i in candidates}),
    }[mode]
    ids = {i: retriever.passages[i].id for i in candidates}
    # The served code rounds to 9 decimals before ordering: half a unit of that is one more error.
    return {ids[i]: scores[i] for i in candidates}, {ids[i]: errors[i] + 5e-10 for i in candidates}


def assert_ranks_as_brute_force(got: list[tuple[str, float]], want: dict[str, float], err: dict[str, float], k: int):
    """`got` is a ranking of the brute-force scores: each hit is a candidate, with its score within its
    float32 rounding; the hits are in descending order and no candidate left out beats one kept, except
    for scores closer than their roundings, whose order rounding may decide either way."""
    assert len(got) == min(k, len(want))
    for passage, score in got:
        assert passage in want
        assert abs(score - want[passage]) <= err[passage], (passage, score, want[passage], err[passage])
    for (a, _), (b, _) in zip(got, got[1:]):
        assert want[a] >= want[b] - err[a] - err[b], (a, b)
    kept = {p for p, _ in got}
    last = got[-1][0] if got else None
    for passage in set(want) - kept:
        assert want[passage] <= want[last] + err[passage] + err[last], (passage, last)


def test_one_encoding_and_no_dense_search_per_question(counted):
    answerer, embedder, index = counted
    for question in QUESTIONS:
        for game in (None, "karuba"):
            embedder.query_calls = index.searches = 0
            answerer.ask(question, game, 10, "hybrid")
            # The index is exact here: the cosines come from one product with the stored vectors.
            assert (embedder.query_calls, index.searches) == (1, 0), (question, game)


def test_one_dense_search_per_question_with_an_approximate_index(counted, monkeypatch):
    answerer, embedder, index = counted
    exact = {q: answerer.ask(q, None, 10, "hybrid").to_dict() for q in QUESTIONS}
    monkeypatch.setattr(answerer.retriever, "exact", False)  # as above EXACT_SEARCH_MAX passages (HNSW)
    for question in QUESTIONS:
        embedder.query_calls = index.searches = 0
        # Routing ranks over all games, then within the routed game: one search serves them all. A game
        # named in the question needs none: only its own passages are scored.
        assert answerer.ask(question, None, 10, "hybrid").to_dict() == exact[question]
        named = answerer.names.find(Question.of(question)) is not None
        assert (embedder.query_calls, index.searches) == (1, 0 if named else 1), question


def test_scoring_one_game_ranks_as_filtering_all_games(fake_index):
    """A question with a game scores that game's row range only; its rankings equal the shelf-wide
    scores filtered to the game, scores included, in every mode."""
    retriever = Retriever.load(fake_index, FakeEmbedder())
    assert set(retriever._range_of_game) == set(retriever.game_ids) and retriever.lexical.postings_sorted
    for question in QUESTIONS:
        shelf = retriever.score(Question.of(question))
        for game in retriever.game_ids:
            alone = retriever.score(Question.of(question), game)
            assert alone.game == game and len(alone.lexical) == len(retriever._rows_of_game[game])
            for mode in MODES:
                assert retriever.rank(alone, game, 10, mode) == retriever.rank(shelf, game, 10, mode)
            with pytest.raises(ValueError):
                retriever.rank(alone, None, 10, "hybrid")


def test_likely_games_are_distinct_and_ordered(fake_index):
    retriever = Retriever.load(fake_index, FakeEmbedder())
    likely = retriever.likely_games(retriever.score(Question.of("Les pépites d'or rapportent combien ?")), 3)
    games = [g for g, _ in likely]
    assert len(set(games)) == 3 and [c for _, c in likely] == sorted((c for _, c in likely), reverse=True)
    assert games[0] == "karuba"


@pytest.mark.parametrize("candidates", [retrieval.CANDIDATES, 4])
@pytest.mark.parametrize("approximate", [False, True])
def test_rank_equals_brute_force(fake_index, monkeypatch, candidates, approximate):
    # 4 candidates: the shared search (4 per game) leaves some game short, which is then completed exactly.
    monkeypatch.setattr(retrieval, "CANDIDATES", candidates)
    retriever = Retriever.load(fake_index, FakeEmbedder(), FusionConfig(dense_weight=0.7))
    monkeypatch.setattr(retriever, "exact", not approximate)
    for question in QUESTIONS:
        scores = retriever.score(Question.of(question))
        for game in (None, *retriever.game_ids):
            for mode in MODES:
                got = [(h.passage.id, h.score) for h in retriever.rank(scores, game, 10, mode)]
                want, err = brute_force(retriever, question, game, mode)
                assert_ranks_as_brute_force(got, want, err, 10)


def test_rank_of_a_game_stays_in_the_game(fake_index):
    retriever = Retriever.load(fake_index, FakeEmbedder())
    scores = retriever.score(Question.of("Combien de points à la fin ?"))
    for game in retriever.game_ids:
        hits = retriever.rank(scores, game, 20, "hybrid")
        assert hits and {h.passage.game for h in hits} == {game}


def test_an_ivf_index_above_the_exact_limit_answers_questions_with_a_game_identically(tmp_path, monkeypatch):
    """Above EXACT_SEARCH_MAX passages the build writes IVF-SQ8; a question with a game never reads it (the
    game's own rows are scored), so its answer is the exact one; a question without still routes."""
    from indexer import build
    from tests.fakes import CORPUS

    monkeypatch.setattr(build, "EXACT_SEARCH_MAX", 10)
    result = build.build_index(CORPUS, tmp_path / "ivf", FakeEmbedder(), progress=False)
    assert result.manifest.dense_index == "IVF9,SQ8"  # sqrt(81 passages)
    monkeypatch.undo()
    exact_dir = tmp_path / "exact"
    build.build_index(CORPUS, exact_dir, FakeEmbedder(), progress=False)
    policy = Calibration(abstention=AbstentionPolicy(threshold=0.2))
    ivf, exact = fake_answerer(tmp_path / "ivf", policy), fake_answerer(exact_dir, policy)
    assert not ivf.retriever.exact and exact.retriever.exact
    for question in QUESTIONS:
        for game in exact.retriever.game_ids:
            assert ivf.ask(question, game, 5).to_dict() == exact.ask(question, game, 5).to_dict()
    routed = ivf.ask("les pépites d'or et les cristaux ramassés rapportent combien de points ?")
    assert routed.game is not None and routed.game.id == "karuba"


def test_a_passage_is_found_among_its_games_rows_only(fake_index):
    from indexer.errors import UnknownGameError

    retriever = Retriever.load(fake_index, FakeEmbedder())
    everything = list(retriever.passages)
    karuba = next(p for p in everything if p.game == "karuba")
    assert retriever.passage("karuba", karuba.id) == karuba
    assert retriever.passage("cubirds", karuba.id) is None  # another game's passage is not this game's
    assert retriever.passage("karuba", "karuba-000000000000") is None
    with pytest.raises(UnknownGameError):
        retriever.passage("monopoly", karuba.id)


def test_a_start_reads_no_vector_and_no_passage_until_one_is_asked_for(tmp_path, monkeypatch):
    """On a shelf the vectors are memory-mapped and the passages on disk: a start that read them all would
    hold them all in memory (docs/SCALE.md)."""
    from indexer import store
    from indexer.build import build_index
    from indexer.passages import Passage
    from tests.fakes import CORPUS

    class Unread:
        def __getattr__(self, name):
            raise AssertionError(f"the start read the vectors ({name})")

        def __len__(self):
            raise AssertionError("the start read the vectors (len)")

    build_index(CORPUS, tmp_path / "idx", FakeEmbedder(), progress=False)
    parsed = []
    original = Passage.from_dict.__func__
    monkeypatch.setattr(Passage, "from_dict", classmethod(lambda cls, d: parsed.append(d["id"]) or original(cls, d)))
    data = store.load(tmp_path / "idx")
    vectors, data.vectors = data.vectors, Unread()
    answerer = fake_answerer(tmp_path / "idx", data=data)
    assert parsed == []  # the start reads offsets, rows and words, not the passages
    data.vectors = vectors
    result = answerer.ask("Les pépites d'or rapportent combien ?", "karuba", k=3)
    assert result.found and set(parsed) >= {p.id for p in result.passages}
    # The passages of the question's own game only (its words are read once, service/engine/routing/players_words.py), none of
    # the other games': what a question reads does not grow with the shelf.
    assert parsed and all(pid.startswith("karuba-") for pid in parsed)
    parsed.clear()
    answerer.ask("Les pépites d'or rapportent combien ?", "karuba", k=3)
    assert len(parsed) < 20  # asked again: the passages shown and the few their answer reads, out of 81


@pytest.mark.parametrize("k", [1, 3, 50, 1000])
def test_top_is_the_beginning_of_a_stable_sort_of_every_positive_score(k):
    rng = np.random.default_rng(k)
    for _ in range(20):
        scores = rng.integers(-1, 6, 300).astype(np.float64)  # many ties, zeros and negatives
        positive = np.flatnonzero(scores > 0)
        full = positive[np.argsort(-scores[positive], kind="stable")]
        assert retrieval.top_rows(scores, k).tolist() == full[:k].tolist()
