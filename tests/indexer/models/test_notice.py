"""The notice a served model's terms ask for (indexer/models/notice.py): Gemma's for every EmbeddingGemma
family, from a description's licence, a family's name or a model id; none for e5."""

import pytest

from indexer.models.notice import GEMMA_NOTICE, licence_notice, model_notice
from indexer.models.registry import FAMILIES
from tests.notice_fakes import GEMMA_LICENCE, PROHIBITED_USE_URL, REQUIRED, TERMS_URL

GEMMA_FAMILIES = ("embeddinggemma", "embeddinggemma-rules-fr")


def test_gemma_s_notice_is_french_first_with_the_required_sentence_and_both_links():
    text = GEMMA_NOTICE.text
    assert text.startswith("Réponses trouvées avec EmbeddingGemma (Google).")
    assert REQUIRED in text  # word for word, as the terms ask
    assert [link.url for link in GEMMA_NOTICE.links] == [TERMS_URL, PROHIBITED_USE_URL]
    assert GEMMA_NOTICE.to_dict() == {"text": text, "links": [
        {"label": "Conditions d'utilisation de Gemma", "url": TERMS_URL},
        {"label": "Usages interdits", "url": PROHIBITED_USE_URL}]}


@pytest.mark.parametrize("family", list(FAMILIES))
def test_every_family_of_the_registry_by_its_licence_name_aliases_and_model_id(family):
    known = FAMILIES[family]
    expected = GEMMA_NOTICE if family in GEMMA_FAMILIES else None
    assert licence_notice(known.licence) is expected
    for name in (known.name, known.model_id, *known.aliases):
        assert model_notice(None, [name]) is expected, name


def test_a_built_gemma_folder_s_licence_and_any_one_clue_is_enough():
    assert licence_notice(GEMMA_LICENCE) is GEMMA_NOTICE
    assert model_notice(GEMMA_LICENCE, ["a-local-folder"]) is GEMMA_NOTICE
    # The description says MIT but the index's family is Gemma's: the notice is shown (any clue counts).
    assert model_notice("MIT", ["e5-small", "embeddinggemma", "multilingual-e5-small"]) is GEMMA_NOTICE
    assert model_notice(None, [None, "", "embeddinggemma-300m-rules-fr"]) is GEMMA_NOTICE


@pytest.mark.parametrize("licence, names", [
    (None, []), ("MIT", ["e5-small", "multilingual-e5-small"]), (None, [None, ""]),  # "" is not the default family
    (None, ["fake-hashing", "/srv/models/mon-modele"]), ("Apache-2.0", ["intfloat/multilingual-e5-small"]),
])
def test_no_notice_for_e5_or_a_model_nothing_says_is_gemma(licence, names):
    assert model_notice(licence, names) is None
