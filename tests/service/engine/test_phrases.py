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
