"""run_eval and write_report on four questions and a scripted answerer; expected values by hand."""

import types

import pytest

import eval.run as run_mod
from eval.gold import GoldQuestion
from eval.report import HIT_PLOT, LATENCY_PLOT, write_report
from eval.run import run_eval
from service.engine.answer import Answer, CitedPassage, GameRef, Quote, Refusal

PEPITE = {"id": "karuba-a", "game": "karuba", "section": "Comment on gagne", "pages": [6],
          "text": "Aux points\nAdditionne tes trésors de temple, 2 points par pépite d'or et 1 par cristal."}
TRESOR = {"id": "karuba-x", "game": "karuba", "section": "Q", "pages": [3],
          "text": "Le plus précieux est posé au sommet de la pile."}
DEUX = {"id": "karuba-b", "game": "karuba", "section": "Erreurs", "pages": [5],
        "text": "Une plaquette ne porte jamais deux aventuriers."}
ENVOLEE = {"id": "cubirds-c", "game": "cubirds", "section": "Faire une envolée", "pages": [],
           "text": "Contrairement à la pose, l\u2019envolée est facultative."}

QUESTIONS = [
    GoldQuestion("t001", "une pépite ça vaut combien ?", "karuba", "karuba", True,
                 ("2 points par pépite d'or",), (6,), "fr", split="test"),
    GoldQuestion("t002", "deux aventuriers sur une tuile ?", None, "karuba", True,
                 ("Une plaquette ne porte jamais deux aventuriers",), (5,), "fr", split="test"),
    # ASCII apostrophe in the span, typographic one in the passage: still relevant
    GoldQuestion("t003", "envolée obligatoire ?", "cubirds", "cubirds", True,
                 ("l'envolée est facultative",), (), "fr", split="test"),
    GoldQuestion("t004", "recette des crêpes ?", None, None, False, (), (), "fr", split="test", refusal="off_topic"),
]

# mode -> question id -> (passages, found, detected game, latency ms)
SCRIPT = {
    "dense": {
        "t001": ([PEPITE, TRESOR], True, "karuba", 10.0),
        "t002": ([TRESOR, DEUX], True, "karuba", 20.0),
        "t003": ([ENVOLEE], True, "cubirds", 30.0),
        "t004": ([TRESOR], True, "karuba", 40.0),
    },
    "lexical": {
        "t001": ([TRESOR, PEPITE], True, "karuba", 1.0),
        "t002": ([DEUX], True, "karuba", 2.0),
        "t003": ([], False, "cubirds", 3.0),
        "t004": ([], False, None, 4.0),
    },
}


class FakeClock:
    def __init__(self):
        self.now = 0.0

    def perf_counter(self) -> float:
        return self.now


class ScriptedAnswerer:
    """Answers from SCRIPT and advances the fake clock by the scripted latency."""

    def __init__(self, clock: FakeClock):
        self.clock = clock
        self.calls = []
        self.by_question = {q.question: q.id for q in QUESTIONS}

    def ask(self, question, game=None, k=5, mode="hybrid"):
        self.calls.append((question, game, k, mode))
        passages, found, detected, latency = SCRIPT[mode][self.by_question[question]]
        self.clock.now += latency / 1000
        return Answer(
            question=question,
            game=GameRef(detected, detected.title()) if detected else None,
            game_detected=game is None,
            found=found,
            answer=Quote(passages[0]["text"], "", passages[0]["id"], [passages[0]["id"]]) if found else None,
            message="",
            # equal scores: order must come from the list
            passages=[CitedPassage(**p, score=1.0, citation="", short_citation="") for p in passages],
            refusal=None if found else Refusal("weak_evidence", ""),
            warning=None,
        )


@pytest.fixture
def result(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(run_mod, "time", types.SimpleNamespace(perf_counter=clock.perf_counter))
    answerer = ScriptedAnswerer(clock)
    out = run_eval(answerer, QUESTIONS, modes=("dense", "lexical"), k=10)
    out["_calls"] = answerer.calls
    return out


def test_every_question_is_asked_once_per_mode_with_k_and_game(result):
    calls = result.pop("_calls")
    assert len(calls) == 8
    assert {(c[2], c[3]) for c in calls} == {(10, "dense"), (10, "lexical")}
    assert ("deux aventuriers sur une tuile ?", None, 10, "dense") in calls
    assert ("envolée obligatoire ?", "cubirds", 10, "lexical") in calls


def test_overall_metrics_dense(result):
    dense = result["results"]["dense"]["overall"]
    assert dense["hit@1"] == pytest.approx(2 / 3)  # t002 ranks its passage second
    assert dense["hit@3"] == pytest.approx(1.0)
    assert dense["mrr@10"] == pytest.approx((1 + 0.5 + 1) / 3)
    assert dense["page@1"] == pytest.approx(2 / 3)  # t002's first passage cites p. 3, not 5
    assert dense["abstain_precision"] is None  # never refused
    assert dense["abstain_recall"] == 0.0
    assert dense["false_refusal"] == 0.0
    assert dense["routing"] == pytest.approx(1 / 2)  # t002 right, t004 answered as karuba
    assert dense["latency_p50"] == pytest.approx(25.0)
    assert dense["latency_p95"] == pytest.approx(38.5)


def test_overall_metrics_lexical(result):
    lexical = result["results"]["lexical"]["overall"]
    assert lexical["hit@1"] == pytest.approx(1 / 3)
    assert lexical["hit@3"] == pytest.approx(2 / 3)  # t003 refused with no passage
    assert lexical["mrr@10"] == pytest.approx((0.5 + 1 + 0) / 3)
    assert lexical["page@1"] == pytest.approx(1 / 3)
    assert lexical["abstain_precision"] == pytest.approx(1 / 2)  # t004 right, t003 wrong
    assert lexical["abstain_recall"] == 1.0
    assert lexical["false_refusal"] == pytest.approx(1 / 3)
    assert lexical["routing"] == 1.0
    assert lexical["latency_p50"] == pytest.approx(2.5)


def test_per_game_and_counts(result):
    per_game = result["results"]["dense"]["per_game"]
    assert list(per_game) == ["cubirds", "karuba", "hors-corpus"]
    assert per_game["karuba"]["hit@1"] == pytest.approx(1 / 2)
    assert per_game["karuba"]["mrr@10"] == pytest.approx(3 / 4)
    assert per_game["cubirds"]["page@1"] == 1.0  # no gold page: relevant first passage counts
    assert per_game["hors-corpus"]["hit@1"] is None
    assert per_game["hors-corpus"]["abstain_recall"] == 0.0
    assert result["counts"]["overall"] == {"questions": 4, "answerable": 3, "unanswerable": 1, "off_topic": 1,
                                           "no_game": 2}
    assert result["counts"]["per_game"]["karuba"]["questions"] == 2
    assert result["split"] == "test"


def test_hit_curve(result):
    assert result["results"]["dense"]["hit_curve"][:3] == pytest.approx([2 / 3, 1.0, 1.0])
    assert result["results"]["lexical"]["hit_curve"][:2] == pytest.approx([1 / 3, 2 / 3])
    assert len(result["results"]["lexical"]["hit_curve"]) == 10


def test_records_keep_what_error_analysis_needs(result):
    by_id = {r["id"]: r for r in result["records"]["dense"]}
    assert by_id["t002"]["relevant"] == [False, True]
    assert by_id["t002"]["pages"] == [[3], [5]]
    assert by_id["t002"]["detected_game"] == "karuba"
    assert by_id["t003"]["relevant"] == [True]
    assert by_id["t001"]["answer_passage_id"] == "karuba-a"
    assert by_id["t004"]["latency_ms"] == pytest.approx(40.0)


def test_significance_pairs_use_the_same_scores(result):
    sig = result["significance"]
    assert sig["test"] == "fisher"
    assert [(p["a"], p["b"], p["metric"]) for p in sig["pairs"]] == [
        ("dense", "lexical", "mrr@10"),
        ("dense", "lexical", "hit@1"),
        ("dense", "lexical", "outcome"),
        ("dense", "lexical", "routing"),
    ]
    mrr, hit1, outcome, routing = sig["pairs"]
    assert routing["better"] + routing["worse"] <= 2  # the two game-less questions
    # The outcome test reads every question: what each run gave, right or not (eval/paired.py).
    from eval.paired import outcome as right

    for run, score in (("dense", outcome["score_a"]), ("lexical", outcome["score_b"])):
        records = result["records"][run]
        assert score == pytest.approx(sum(map(right, records)) / len(records))
    # ranx recomputes from qrels/runs: must agree with our own metrics, empty run included
    assert mrr["score_a"] == pytest.approx(5 / 6) and mrr["score_b"] == pytest.approx(1 / 2)
    assert hit1["score_a"] == pytest.approx(2 / 3) and hit1["score_b"] == pytest.approx(1 / 3)
    for pair in sig["pairs"]:
        assert 0.0 <= pair["p_value"] <= 1.0
        # three questions cannot make a difference significant at 0.05
        assert pair["significant"] is False


def test_single_mode_has_no_comparison(monkeypatch):
    clock = FakeClock()
    monkeypatch.setattr(run_mod, "time", types.SimpleNamespace(perf_counter=clock.perf_counter))
    out = run_eval(ScriptedAnswerer(clock), QUESTIONS, modes=("dense",))
    assert out["significance"]["pairs"] == []
    assert list(out["results"]) == ["dense"]


def test_write_report(result, tmp_path):
    path = write_report(result, tmp_path / "rapport", "test")
    assert path == tmp_path / "rapport" / "REPORT.md"
    for plot in (HIT_PLOT, LATENCY_PLOT):
        data = (path.parent / plot).read_bytes()
        assert data.startswith(b"\x89PNG") and len(data) > 1000
    text = path.read_text(encoding="utf-8")
    headings = [line for line in text.splitlines() if line.startswith("## ")]
    assert len(headings) >= 6 and all("split `test`" in h for h in headings)
    assert f"]({HIT_PLOT})" in text and f"]({LATENCY_PLOT})" in text
    # Answer sets (one passage each here): t001 and t003 quote a right passage, t002 does not;
    # t004, to be refused as off_topic, was answered; no refusal happened, so no reason to judge.
    # No answer is shown as sure (sure_precision n/a, sure_rate 0) and none offers choices, so one tap
    # resolves what the first passage does (t001 and t003).
    assert ("| `dense` | 0.667 | 1.000 | 0.833 | 0.667 | n/a | 0.000 | 0.000 | 0.500 | 0.667 | 1.000 | 0.000 "
            "| n/a | n/a | n/a | n/a | 0.000 | 0.667 | n/a | 25.0 | 38.5 |") in text
    assert "| t002 | karuba | deux aventuriers sur une tuile ? | premier passage pertinent au rang 2" in text
    assert "| t004 | hors-corpus | recette des crêpes ? | réponse donnée au lieu de s'abstenir ; routage : karuba" in text
    assert "| t003 | cubirds | envolée obligatoire ? | refus à tort ; aucun passage pertinent dans le top 10 |" in text


def test_write_report_refuses_a_wrong_split_label(result, tmp_path):
    with pytest.raises(ValueError, match="split 'test'"):
        write_report(result, tmp_path, "dev")
    assert not (tmp_path / "REPORT.md").exists()
