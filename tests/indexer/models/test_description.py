"""A model folder's self-description: what decides a vector is fingerprinted (files, prompts, passage form), what
does not (README, the manifest) is not; an incomplete description is refused in one line."""

import json
from dataclasses import replace

import pytest

from indexer.errors import ModelError
from indexer.models.description import (MANIFEST, Description, describe, fingerprint_files, passage_text,
                                        write_description)

BASE = Description(family="e5-small", model_id="m", runtime="onnx", tokenizer="e5-unigram",
                   prompts={"query": "query: ", "document": "passage: "}, passage_form="{title}\n{text}",
                   dimension=4, max_seq_length=8, licence="MIT")


@pytest.fixture
def folder(tmp_path):
    (tmp_path / "onnx").mkdir()
    (tmp_path / "onnx" / "model.onnx").write_bytes(b"graph")
    (tmp_path / "README.md").write_text("about")
    return tmp_path


def test_the_fingerprint_covers_files_prompts_and_passage_form_not_the_readme(folder):
    first, hashes = fingerprint_files(folder, BASE)
    assert set(hashes) == {"onnx/model.onnx", "README.md"}
    (folder / "README.md").write_text("about, longer")
    assert fingerprint_files(folder, BASE)[0] == first
    assert fingerprint_files(folder, replace(BASE, prompts={"query": "question: ", "document": ""}))[0] != first
    assert fingerprint_files(folder, replace(BASE, passage_form="title: {title} | text: {text}"))[0] != first
    assert fingerprint_files(folder, replace(BASE, licence="another"))[0] == first
    (folder / "onnx" / "model.onnx").write_bytes(b"graph 2")
    assert fingerprint_files(folder, BASE)[0] != first


def test_a_written_description_reads_back_and_a_partial_one_is_refused(folder):
    manifest = write_description(folder, BASE)
    assert describe(folder) == BASE and manifest["files"]["onnx/model.onnx"]
    data = json.loads((folder / MANIFEST).read_text())
    del data["runtime"]
    (folder / MANIFEST).write_text(json.dumps(data))
    with pytest.raises(ModelError, match="incomplet") as err:
        describe(folder)
    assert "\n" not in str(err.value)
    (folder / MANIFEST).unlink()
    with pytest.raises(ModelError, match="rulesqa model build"):
        describe(folder)
    with pytest.raises(ModelError, match="runtime"):
        replace(BASE, runtime="tensorflow")


def test_a_passage_is_written_in_the_form_given():
    assert passage_text("{title}\n{text}", "Karuba · Fin", "Chaque pépite…") == "Karuba · Fin\nChaque pépite…"
    assert passage_text("title: {title} | text: {text}", "Karuba", "x {title}") == "title: Karuba | text: x {title}"
    assert passage_text("{title}\n{text}", "a {text} b", "c") == "a {text} b\nc"
