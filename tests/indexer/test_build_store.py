"""Index building: manifest, atomic replacement, reuse of embeddings, refusal of mismatched indexes."""

import json
import shutil

import numpy as np

import pytest

from tests.fakes import CORPUS, FakeEmbedder
from indexer import store
from indexer.analysis import ANALYZER_VERSION
from indexer.build import build_index
from indexer.errors import IndexMismatchError
from indexer.passage_text import embedding_text
from service.engine.retrieval.single import SingleIndexRetriever as Retriever
from service.engine.question import Question


def test_manifest_records_model_corpus_and_counts(tmp_path):
    result = build_index(CORPUS, tmp_path / "idx", FakeEmbedder(), progress=False)
    saved = json.loads((tmp_path / "idx" / "manifest.json").read_text())
    assert saved["embedding"] == {
        "model_id": "fake-hashing", "fingerprint": "fake-64-", "dim": 64, "normalized": True, "passage_template": 1
    }
    assert saved["corpus"]["passages_per_game"] == {"cubirds": 23, "cubitos": 21, "karuba": 19, "sans-arret": 18}
    assert saved["dense_index"] == "IndexFlatIP" and saved["analyzer"] == ANALYZER_VERSION
    assert len(saved["corpus"]["hash"]) == 64 and saved["format_version"] == store.FORMAT_VERSION
    assert store.read_manifest(tmp_path / "idx") == result.manifest  # the typed manifest round-trips
    assert result.stats.encoded == 81  # 78 rule passages and 3 game cards (Cubirds has none)
    # BM25 parameters live in bm25s's own params file, not in a second copy.
    params = json.loads((tmp_path / "idx" / "lexical" / "params.index.json").read_text())
    assert (params["method"], params["k1"], params["b"]) == ("lucene", 1.2, 0.75)


def test_rebuild_reuses_unchanged_passages(tmp_path):
    corpus = tmp_path / "corpus"
    shutil.copytree(CORPUS, corpus)
    embedder = FakeEmbedder()
    build_index(corpus, tmp_path / "idx", embedder, progress=False)
    path = corpus / "karuba.md"
    path.write_text(path.read_text().replace("2 points par pépite d'or", "3 points par pépite d'or"))
    embedder.passage_calls.clear()
    again = build_index(corpus, tmp_path / "idx", embedder, progress=False)
    assert (again.stats.encoded, again.stats.reused) == (1, 80)
    assert sum(embedder.passage_calls) == 1
    # The reused vectors are the right ones: the edited passage is found by its new text.
    retriever = Retriever.load(tmp_path / "idx", embedder)
    hits = retriever.rank(retriever.score(Question.of("3 points par pépite d'or")), "karuba", 1)
    assert "3 points par pépite" in hits[0].passage.text


def test_another_model_reuses_nothing(tmp_path):
    build_index(CORPUS, tmp_path / "idx", FakeEmbedder(), progress=False)
    other = build_index(CORPUS, tmp_path / "idx", FakeEmbedder(salt="v2"), progress=False)
    assert other.stats.reused == 0


def test_interrupted_build_leaves_the_previous_index_usable(tmp_path, monkeypatch):
    target = tmp_path / "idx"
    build_index(CORPUS, target, FakeEmbedder(), progress=False)
    before = (target / "manifest.json").read_text()

    def crash(*args, **kwargs):
        raise KeyboardInterrupt  # as if the user pressed Ctrl-C halfway through writing

    monkeypatch.setattr("faiss.write_index", crash)
    with pytest.raises(KeyboardInterrupt):
        build_index(CORPUS, target, FakeEmbedder(salt="new"), progress=False)
    assert (target / "manifest.json").read_text() == before
    # No temporary folder left behind; the folder's lock file stays (empty, reused by the next build).
    assert sorted(p.name for p in tmp_path.iterdir()) == [".idx.lock", "idx"]
    retriever = Retriever.load(target, FakeEmbedder())
    hits = retriever.rank(retriever.score(Question.of("pépites d'or")), "karuba", 3)
    assert len(hits) == 3


def test_index_of_another_model_is_refused_with_the_fix(tmp_path):
    build_index(CORPUS, tmp_path / "idx", FakeEmbedder(), progress=False)
    with pytest.raises(IndexMismatchError, match="rulesqa index") as caught:
        Retriever.load(tmp_path / "idx", FakeEmbedder(salt="other"))
    assert "fake-hashing" in str(caught.value)


def test_index_of_another_format_is_refused(tmp_path):
    build_index(CORPUS, tmp_path / "idx", FakeEmbedder(), progress=False)
    manifest = tmp_path / "idx" / "manifest.json"
    manifest.write_text(manifest.read_text().replace(f'"format_version": {store.FORMAT_VERSION}', '"format_version": 0'))
    with pytest.raises(IndexMismatchError, match="format 0.*rulesqa index"):
        Retriever.load(tmp_path / "idx", FakeEmbedder())


def test_missing_or_incomplete_index(tmp_path):
    with pytest.raises(IndexMismatchError, match="aucun index.*rulesqa index"):
        Retriever.load(tmp_path / "nothing", FakeEmbedder())
    build_index(CORPUS, tmp_path / "idx", FakeEmbedder(), progress=False)
    (tmp_path / "idx" / "vectors.npy").unlink()
    with pytest.raises(IndexMismatchError, match="incomplet.*vectors.npy"):
        Retriever.load(tmp_path / "idx", FakeEmbedder())


def test_passages_longer_than_the_model_reads_are_reported(tmp_path, capsys):
    corpus = tmp_path / "corpus"
    corpus.mkdir()
    long_line = " ".join(["règle"] * 600)
    (corpus / "jeu.md").write_text(f"---\nid: jeu\ntitle: Jeu\n---\n\n# Règles\n\nCourte.\n\n{long_line}\n", "utf-8")

    class CountingEmbedder(FakeEmbedder):
        def token_count(self, text, query=False):
            return len(text.split()) + 2

    result = build_index(corpus, tmp_path / "idx", CountingEmbedder(), progress=False)
    assert len(result.stats.truncated) == 1
    assert "1 passage(s) de plus de 512 jetons" in capsys.readouterr().err


def test_vectors_are_stored_in_float16_and_memory_mapped_above_the_exact_limit(tmp_path, monkeypatch):
    from indexer import build

    build_index(CORPUS, tmp_path / "flat", FakeEmbedder(), progress=False)
    assert np.load(tmp_path / "flat" / "vectors.npy").dtype == np.float16  # half the bytes on disk
    flat = store.load(tmp_path / "flat")
    assert flat.vectors.dtype == np.float32 and not isinstance(flat.vectors, np.memmap)
    exact = FakeEmbedder().encode_passages([embedding_text(flat.passages[0], flat.games[0])])[0]
    assert np.abs(flat.vectors[0] - exact).max() < 1e-3  # float16 keeps ~3 decimal digits
    monkeypatch.setattr(build, "EXACT_SEARCH_MAX", 10)
    build_index(CORPUS, tmp_path / "ivf", FakeEmbedder(), progress=False)
    ivf = store.load(tmp_path / "ivf")
    assert isinstance(ivf.vectors, np.memmap) and ivf.vectors.dtype == np.float16


def test_passage_to_dict_has_every_field_in_order():
    from dataclasses import asdict, fields

    from indexer.passages import Passage

    passage = Passage("karuba-1", "karuba", "Fin", "Titre", (6, 7), "Texte", 12)
    assert passage.to_dict() == {**asdict(passage), "pages": [6, 7]}
    assert list(passage.to_dict()) == [f.name for f in fields(Passage)]


def test_stored_centroid_rows_and_words_describe_the_stored_passages_and_vectors(tmp_path, monkeypatch):
    """What save derives for the service's start (store.py) equals what the start computed from every
    passage and vector before: the mean of the stored vectors to the bit, each row's game and section,
    the corpus's folded words."""
    import re

    from indexer import build
    from indexer.analysis import fold

    monkeypatch.setattr(build, "EXACT_SEARCH_MAX", 10)  # memory-mapped float16 vectors, as on a shelf
    build_index(CORPUS, tmp_path / "idx", FakeEmbedder(), progress=False)
    data = store.load(tmp_path / "idx")
    stored = np.load(tmp_path / "idx" / "vectors.npy")
    assert data.centroid.dtype == np.float32
    assert np.array_equal(data.centroid, stored.mean(axis=0, dtype=np.float64).astype(np.float32))
    # Any order of the float64 sum gives the same bits (store.centroid): rows reversed, summed in float64.
    assert np.array_equal(data.centroid, (stored[::-1].astype(np.float64).sum(axis=0) / len(stored)).astype(np.float32))
    passages = list(data.passages)
    game_ids = [g.id for g in data.games]
    assert [game_ids[g] for g in data.rows.game] == [p.game for p in passages]
    assert [data.rows.sections[s] if s >= 0 else None for s in data.rows.section] == [p.section for p in passages]
    texts = [p.text for p in passages] + [p.section or "" for p in passages]
    texts += [" ".join([g.title, g.id, *g.aliases]) for g in data.games]
    assert data.words == {w for token in " ".join(texts).split() for w in re.findall(r"\w+", fold(token))}
    assert {"pepite", "arrete", "cubirds", "sans"} <= data.words


def test_passage_file_reads_any_row_and_iterates_in_order(tmp_path, monkeypatch):
    import faiss

    from indexer import passage_file
    from indexer.lexical import lexical_index
    from indexer.corpus import Game
    from indexer.passages import Passage

    monkeypatch.setattr(passage_file, "CHUNK", 2)  # iteration crosses chunks
    # Line separators JSON leaves unescaped (U+2028) must not split a line, as str.splitlines() would.
    tricky = [Passage(f"jeu-{i}", "jeu", "Fin" if i % 2 else None, None, (i,), text, i)
              for i, text in enumerate(["Une ligne.", "Deux\nlignes « accentuées » é", "sep\u2028ligne\u2029\x85",
                                        "", "dernier"])]
    manifest = store.Manifest(store.EmbeddingInfo("m", "f", 4), store.CorpusInfo("h", 1, 5), "IndexFlatIP", "now")
    vectors = np.eye(5, 4, dtype=np.float32)
    dense = faiss.IndexFlatIP(4)
    dense.add(vectors)
    tokens = [["ligne"]] * 5
    store.save(store.IndexData(manifest, tricky, [Game("jeu", "Jeu")], vectors, dense, lexical_index(tokens), tokens),
               tmp_path / "idx")
    passages = store.load(tmp_path / "idx").passages
    assert len(passages) == 5 and list(passages) == tricky
    assert [passages[i] for i in range(5)] == tricky and passages[-1] == tricky[-1]
    assert passages[np.int64(2)] == tricky[2] and passages[1:4] == tricky[1:4]
    with pytest.raises(IndexError):
        passages[5]


def test_a_truncated_passages_file_is_refused(tmp_path):
    build_index(CORPUS, tmp_path / "idx", FakeEmbedder(), progress=False)
    path = tmp_path / "idx" / "passages.jsonl"
    path.write_bytes(path.read_bytes()[:-10])
    with pytest.raises(IndexMismatchError, match="illisible.*rulesqa index"):
        store.load(tmp_path / "idx")
