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
