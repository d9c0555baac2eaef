"""Fake embedders that say which model they stand for, for the model's notice (indexer/models/notice.py): one
described as EmbeddingGemma (its family, model id and licence as a built Gemma folder gives them), one as
e5-small; and a small index built with one of them (the API and browser tests of GET /api/config's notice)."""

import shutil
from pathlib import Path

from indexer.models.description import Description
from tests.fakes import CORPUS, FakeEmbedder

GEMMA_LICENCE = ("Gemma Terms of Use (https://ai.google.dev/gemma/terms) and the Gemma Prohibited Use Policy "
                 "(https://ai.google.dev/gemma/prohibited_use_policy): google/embeddinggemma-300m, not the "
                 "project's licence")
REQUIRED = "Gemma is provided under and subject to the Gemma Terms of Use found at ai.google.dev/gemma/terms"
TERMS_URL = "https://ai.google.dev/gemma/terms"
PROHIBITED_USE_URL = "https://ai.google.dev/gemma/prohibited_use_policy"


def _description(family: str, model_id: str, licence: str) -> Description:
    return Description(family=family, model_id=model_id, runtime="onnx", tokenizer="tokenizers",
                       prompts={"query": "", "document": ""}, passage_form="{title}\n{text}",
                       dimension=FakeEmbedder.dim, max_seq_length=512, licence=licence)


class DescribedEmbedder(FakeEmbedder):
    """The fake embedder under a model's name, with that model's description (what OnnxEmbedder carries)."""

    def __init__(self, family: str, model_id: str, licence: str, described: bool = True):
        super().__init__(salt=model_id)
        self.model_id = model_id
        if described:
            self.description = _description(family, model_id, licence)


def gemma_like(described: bool = True) -> DescribedEmbedder:
    return DescribedEmbedder("embeddinggemma", "embeddinggemma-300m", GEMMA_LICENCE, described)


def e5_like() -> DescribedEmbedder:
    return DescribedEmbedder("e5-small", "multilingual-e5-small", "MIT")


def one_game_index(root: Path, embedder, game: str = "karuba") -> Path:
    """`game` of the real corpus indexed with `embedder` under `root`: the index folder."""
    from indexer.build import build_index

    corpus = root / "corpus"
    corpus.mkdir(parents=True, exist_ok=True)
    shutil.copy(CORPUS / f"{game}.md", corpus)
    build_index(corpus, root / "index", embedder, progress=False)
    return root / "index"
