import pytest

from indexer.page_refs import PageRefError, extract_pages


@pytest.mark.parametrize(
    "text, clean, pages",
    [
        ("Deux points. (p. 6)", "Deux points.", [6]),
        ("Un risque. (p. 10, 13)", "Un risque.", [10, 13]),
        ("Une plage. (p. 10-12)", "Une plage.", [10, 11, 12]),
        ("Une plage. (pp. 3–4)", "Une plage.", [3, 4]),
        ("Deux renvois (p. 2) puis (p. 5).", "Deux renvois puis.", [2, 5]),
        ("Sans page.", "Sans page.", []),
        ("Une (parenthèse) ordinaire.", "Une (parenthèse) ordinaire.", []),
        ("Doublon (p. 4, 4)", "Doublon", [4]),
    ],
)
def test_page_reference_forms(text, clean, pages):
    assert extract_pages(text) == (clean, pages)


@pytest.mark.parametrize("text", ["x (p 12)", "x (p. douze)", "x (p. 12-3)", "x (p. 0)", "x (p. )", "x (p. 12"])
def test_malformed_page_references_are_refused(text):
    with pytest.raises(PageRefError):
        extract_pages(text)
