"""Phrases found on folded text, with the words the player typed."""

from service.engine.phrases import PhraseMatcher, folded


def test_folded_text_ignores_case_accents_apostrophes_and_spacing():
    assert folded("  Dé  À\tCOUDRE  l’été ") == "de a coudre l'ete"


def test_matches_are_whole_words_with_what_was_typed():
    matcher = PhraseMatcher(["catan", "de a coudre", "(au|a) (?P<name>go)"])
    found = matcher.find("Au  Catan ou au Go ? Un Dé  à coudre, et Catanzaro non")
    assert [(f.text, f.typed) for f in found] == [("catan", "Catan"), ("go", "Go"), ("de a coudre", "Dé  à coudre")]


def test_a_name_group_is_what_the_match_reports():
    (found,) = PhraseMatcher(["jouer (au|aux) (?P<name>dames)"]).find("on peut jouer aux dames ?")
    assert (found.text, found.typed) == ("dames", "dames") and found.phrase.startswith("jouer")


def test_no_pattern_matches_nothing():
    assert PhraseMatcher([]).find("poker") == [] and not PhraseMatcher([])


def test_a_folding_maps_each_folded_character_back_to_the_text():
    from service.engine.phrases import Folded

    text = "L’Œuvre  d'Arrêt"
    f = Folded.of(text)
    assert f.text == "l'oeuvre d'arret" == folded(text)
    assert text[slice(*f.source(2, 8))] == "Œuvre"  # "oeuvre": two folded letters from one
    assert f.part(11, 16) == "arret" and f.part(0, 1) == "l"


def test_a_question_asked_is_folded_once(fake_index, monkeypatch):
    """Names, card cues, follow-up, refusal signals and the judge's features all read the question's one
    folding (Question.folding): answering folds its text once, and no stage folds a part of it again."""
    import sys

    from service.engine import phrases
    from tests.fakes import fake_answerer

    question = "Dans Karouba, où se posent les pépites d'or quand la pioche est vide ?"
    answerer = fake_answerer(fake_index)
    foldings, folds = [], []
    original = phrases._folded_with_offsets.__wrapped__

    def folding(text):
        foldings.append(text)
        return original(text)

    def recorded(function):
        return lambda text, *args: folds.append(text) or function(text, *args)

    for name, module in list(sys.modules.items()):
        if name.startswith("service.engine"):
            for attr in ("fold", "folded", "folded_passage"):
                if callable(getattr(module, attr, None)):
                    monkeypatch.setattr(module, attr, recorded(getattr(module, attr)))
    monkeypatch.setattr(phrases, "_folded_with_offsets", folding)
    answerer.ask(question)
    assert foldings.count(question) == 1
    # One character at a time inside the one folding; nothing longer of the question folded elsewhere.
    assert [t for t in folds if isinstance(t, str) and len(t) > 1 and t in question] == []
