"""The model room's registry: a name, an alias or a model id gives its family; anything else is a
sentence-transformers model; `rulesqa model list` says each family, its licence and the default."""

import pytest
from typer.testing import CliRunner

from indexer.errors import ModelError
from indexer.models import FAMILIES, find_family, get_family
from indexer.models.registry import DEFAULT_FAMILY


@pytest.mark.parametrize("name, family", [
    (None, DEFAULT_FAMILY), ("", DEFAULT_FAMILY), ("default", DEFAULT_FAMILY),
    ("e5-small", "e5-small"), ("multilingual-e5-small", "e5-small"), ("e5", "e5-small"),
    ("rules-fr", "rules-fr"), ("multilingual-e5-small-rules-fr", "rules-fr"),
    ("embeddinggemma", "embeddinggemma"), ("embeddinggemma-300m", "embeddinggemma"), ("gemma", "embeddinggemma"),
    ("embeddinggemma-rules-fr", "embeddinggemma-rules-fr"),
])
def test_names_aliases_and_model_ids_resolve_to_their_family(name, family):
    assert find_family(name).name == family == get_family(name).name


def test_anything_else_is_no_family_and_get_family_lists_the_known_ones():
    assert find_family("intfloat/multilingual-e5-base") is None and find_family("/srv/models/mine") is None
    with pytest.raises(ModelError) as err:
        get_family("gpt-9")
    assert all(name in str(err.value) for name in FAMILIES) and "\n" not in str(err.value)


def test_every_family_has_its_own_id_and_a_licence():
    ids = [f.model_id for f in FAMILIES.values()]
    assert len(set(ids)) == len(ids) and all(f.licence for f in FAMILIES.values())
    assert FAMILIES["embeddinggemma"].licence == "Gemma Terms of Use"
    with pytest.raises(ModelError, match="float32"):
        get_family("rules-fr").reference("/nonexistent")


def test_cli_model_list_names_each_family_and_the_default():
    from rulesqa.cli import app

    result = CliRunner().invoke(app, ["model", "list"])
    lines = result.stdout.strip().splitlines()
    assert result.exit_code == 0 and len(lines) == len(FAMILIES)
    assert any(line.startswith(f"{DEFAULT_FAMILY} (défaut)") for line in lines)
    assert any(line.startswith("embeddinggemma ") and "Gemma Terms of Use" in line for line in lines)
