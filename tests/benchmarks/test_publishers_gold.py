"""The publishers' benchmark's parts on tiny hand-made data: the text gold both references give, the words cut
apart or glued, and the cache that refuses a file whose hash is not the manifest's."""

import json

import pytest

from benchmarks.publishers import cache, text_gold


def test_a_sentence_is_gold_when_both_references_give_it_whatever_their_spacing_and_accents():
    poppler = ["But du jeu\nChaque joueur pioche deux cartes au début.\nCourt.\n\nOn dé-\nfausse une carte à la fin."]
    pdfium = ["Chaque  joueur pioche deux cartes au debut. On défausse une carte a la fin du tour."]
    gold = text_gold.sentences(poppler, pdfium)
    # The line-end hyphen joined, the accents folded; "Court." has under five words; the first sentence runs on
    # from its title, which pdfium's text does not give.
    assert [(s.text, s.page) for s in gold] == [("On défausse une carte à la fin.", 0)]


def test_words_cut_apart_and_glued_beyond_the_references():
    vocab = text_gold.vocabulary(["Pour vos premières parties, la joueuse pioche"])
    cut, glued = text_gold.cut_and_glued("Pou r vos prem ières parties, lajoueuse pioche", vocab)
    assert cut == ["pou r", "prem ieres"]
    assert glued == ["lajoueuse"]
    assert text_gold.cut_and_glued("Pour vos premières parties", vocab) == ([], [])


@pytest.fixture
def manifest(tmp_path, monkeypatch):
    data = b"%PDF-1.4 un livret\n%%EOF\n"
    entry = {"name": "jeu-fr", "game": "Jeu", "publisher": "Éditeur", "language": "fr", "repo": "a/b",
             "commit": "0" * 40, "path": "doc/regles.pdf", "sha256": cache.sha256(data), "pages": 2,
             "tool": "InDesign", "creator": "", "producer": "", "page_size": "", "layout": "", "split": "test"}
    path = tmp_path / "manifest.json"
    path.write_text(json.dumps([entry]), "utf-8")
    from eval import publishers

    monkeypatch.setattr(publishers, "MANIFEST", path)
    monkeypatch.setattr(publishers.load_manifest, "__defaults__", (path,))
    return data


def test_the_cache_takes_a_file_by_its_hash_and_refuses_one_named_as_an_entry_but_altered(tmp_path, manifest):
    source, store = tmp_path / "src", tmp_path / "cache"
    source.mkdir()
    (source / "nimporte.pdf").write_bytes(manifest)
    books = cache.load_manifest()
    assert cache.fill_from_folder(source, store, books) == [f"jeu-fr <- {source / 'nimporte.pdf'}"]
    assert cache.check(store, books) == (books, [])
    (store / "jeu-fr.pdf").write_bytes(b"autre chose")
    assert cache.check(store, books)[1] == ["altéré : jeu-fr (empreinte différente du manifeste)"]
    (store / "jeu-fr.pdf").unlink()
    (source / "nimporte.pdf").unlink()
    (source / "regles.pdf").write_bytes(b"%PDF-1.4 une autre version")
    with pytest.raises(cache.CacheError, match="empreinte différente"):
        cache.fill_from_folder(source, store, books)


def test_the_cache_command_says_what_is_missing_in_one_line(tmp_path, manifest, capsys):
    assert cache.main(["--cache", str(tmp_path / "vide")]) == 0
    err = capsys.readouterr()
    assert "absent : jeu-fr (a/b:doc/regles.pdf)" in err.err and "0/1 livrets" in err.out
    assert cache.main(["--from", str(tmp_path / "nulle-part")]) == 2
    assert capsys.readouterr().err.strip() == f"erreur : dossier introuvable : {tmp_path / 'nulle-part'}"
