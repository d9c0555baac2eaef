from indexer.analysis import analyze, fold, words


def test_fold_removes_accents_and_ligatures():
    assert fold("Arrêt Épée ŒUVRE Çà") == "arret epee oeuvre ca"


def test_elisions_are_split_with_both_apostrophes():
    assert words("L'aventurier d’or qu'il jusqu'à l’Arrivée") == ["aventurier", "or", "il", "à", "arrivée"]
    assert analyze("l'aventurier") == analyze("l’aventurier") == analyze("aventurier")


def test_accents_do_not_matter_at_query_time():
    assert analyze("pépites") == analyze("pepites") == analyze("PÉPITES")


def test_stemming_joins_singular_and_plural():
    assert analyze("les plaquettes") == analyze("la plaquette")
    assert analyze("aventuriers") == analyze("aventurier")


def test_stopwords_and_question_words_are_dropped_but_dice_and_digits_stay():
    terms = analyze("Combien de dés peut-on acheter par tour ? 2 points")
    assert "combien" not in terms and "par" not in terms
    assert analyze("dés")[0] in terms  # "dés" (dice) must not be folded into the stopword "des"
    assert "2" in terms and "achet" in terms


def _sentences() -> list[str]:
    """Every line of the corpus and every gold question: the texts the index and the questions are made of."""
    import json
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    lines = [line for path in sorted((root / "corpus").glob("*.md")) for line in path.read_text("utf-8").splitlines()]
    questions = [json.loads(raw)["question"] for path in sorted((root / "eval" / "questions").glob("*.jsonl"))
                 for raw in path.read_text("utf-8").splitlines() if raw.strip()]
    return [t for t in lines + questions if t.strip()] + [
        "score_final", "l'eau", "aujourd'hui", "qu'il jusqu'à", "l'", "l' eau", "_l'eau", "d''accord", "5_000 points",
        "L’Été", "n'importe quoi", "(p. 12)", "« Arrêt » — voilà", "2x3 dés"]


def test_spans_give_the_analyzer_s_terms_where_their_words_stand():
    from indexer.analysis import STOPWORDS, _stemmer, analyze_spans

    sentences = _sentences()
    assert len(sentences) > 700
    for text in sentences:
        spans = analyze_spans(text)
        # The terms of the whole-text pipeline (elisions split, stopwords dropped, stemmed, folded last).
        reference = [fold(s) for s in _stemmer().stemWords([w for w in words(text) if w not in STOPWORDS])]
        assert [term for term, _, _ in spans] == reference == analyze(text), text
        for term, start, end in spans:  # each word alone, where the span says, gives its term
            assert analyze(text[start:end]) == [term], (text, text[start:end])
        assert [s for _, s, _ in spans] == sorted(s for _, s, _ in spans)
