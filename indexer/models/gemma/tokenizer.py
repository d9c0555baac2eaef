"""EmbeddingGemma's tokenizer for the served folder: its tokenizer.json through the `tokenizers` library.

The ids are those of the sentence-transformers model's tokenizer (<bos> … <eos>, from the file's own template),
untruncated: the caller truncates, keeping the head and the closing <eos> (OnnxEncoder._truncate).
"""

from __future__ import annotations

from pathlib import Path

from indexer.errors import ModelError

FILE = "tokenizer.json"
SPECIALS = {"pad": "<pad>", "eos": "<eos>", "bos": "<bos>"}


def _release_freed_heap() -> None:
    """Parsing the 33 MB tokenizer.json (262,144 pieces, 514,906 merges) leaves about 180 MB of freed heap that
    glibc keeps for the process; trimming hands it back (the loaded tokenizer itself holds about 100 MB)."""
    import ctypes
    import ctypes.util

    name = ctypes.util.find_library("c")
    try:
        ctypes.CDLL(name).malloc_trim(0)
    except (OSError, AttributeError, TypeError):  # not glibc: nothing to hand back this way
        pass


class GemmaTokenizer:
    """`token_ids(text)` -> [<bos>, pieces…, <eos>]; `pad` and `eos` for the caller's padding and truncation."""

    def __init__(self, tokenizer):
        ids = {role: tokenizer.token_to_id(token) for role, token in SPECIALS.items()}
        missing = [SPECIALS[role] for role, i in ids.items() if i is None]
        if missing:
            raise ModelError(f"tokenizer.json sans les jetons spéciaux {', '.join(missing)} : pas celui de Gemma")
        self.pad, self.eos, self.bos = ids["pad"], ids["eos"], ids["bos"]
        # The caller truncates and pads; the file's own settings (none for EmbeddingGemma) must not interfere.
        tokenizer.no_truncation()
        tokenizer.no_padding()
        self._tokenizer = tokenizer

    @classmethod
    def load(cls, folder: Path) -> GemmaTokenizer:
        from tokenizers import Tokenizer

        path = Path(folder) / FILE
        if not path.is_file():
            raise ModelError(f"{folder} : fichier manquant : {FILE}")
        try:
            tokenizer = Tokenizer.from_file(str(path))
        except Exception as e:  # tokenizers raises a bare Exception for a malformed file
            raise ModelError(f"{path} illisible ({e})") from None
        _release_freed_heap()
        return cls(tokenizer)

    def token_ids(self, text: str) -> list[int]:
        """<bos> + the pieces' ids + <eos>, untruncated."""
        return self._tokenizer.encode(text, add_special_tokens=True).ids
