"""The notice a model's terms ask a service answering with it to show its users, or None.

The Gemma Terms of Use (https://ai.google.dev/gemma/terms) count a hosted service as distribution: while the
served index's model is EmbeddingGemma (the families `embeddinggemma` and `embeddinggemma-rules-fr`), the
table page and the widget carry the notice the terms ask for, in French first, with the
required sentence verbatim and links to the terms and to the Prohibited Use Policy. e5-small (MIT) asks none.

What decides is the model's licence: its description's (`licence`, indexer/models/description.py), else that
of its family in the registry (indexer/models/registry.py), found by the family's name or the model id an
index records. The web layer asks `model_notice` and matches no model name itself.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass

from indexer.models.registry import find_family

# How the registry and a Gemma folder's description name the licence (the description goes on with the URLs).
GEMMA_TERMS = "Gemma Terms of Use"
GEMMA_TERMS_URL = "https://ai.google.dev/gemma/terms"
GEMMA_PROHIBITED_USE_URL = "https://ai.google.dev/gemma/prohibited_use_policy"
# The notice sentence the terms ask for, word for word.
GEMMA_REQUIRED = "Gemma is provided under and subject to the Gemma Terms of Use found at ai.google.dev/gemma/terms"


@dataclass(frozen=True)
class NoticeLink:
    label: str  # French, what the link says
    url: str


@dataclass(frozen=True)
class ModelNotice:
    """A line for the page's and the widget's footer: its text, then its links."""

    text: str
    links: tuple[NoticeLink, ...]

    def to_dict(self) -> dict:
        return {"text": self.text, "links": [{"label": link.label, "url": link.url} for link in self.links]}


GEMMA_NOTICE = ModelNotice(
    text=f"Réponses trouvées avec EmbeddingGemma (Google). {GEMMA_REQUIRED}.",
    links=(NoticeLink("Conditions d'utilisation de Gemma", GEMMA_TERMS_URL),
           NoticeLink("Usages interdits", GEMMA_PROHIBITED_USE_URL)),
)


def licence_notice(licence: str | None) -> ModelNotice | None:
    """The notice a licence asks for: Gemma's for the Gemma Terms of Use (as the registry names them, or as a
    Gemma folder's description does, followed by their URLs); None for any other (MIT asks none)."""
    return GEMMA_NOTICE if str(licence or "").strip().startswith(GEMMA_TERMS) else None


def model_notice(licence: str | None = None, names: Iterable[str | None] = ()) -> ModelNotice | None:
    """The notice for a served model, from what is known of it: its description's licence, and `names`, each
    a family's name or a model id (its description's family, the family and the model id its index records;
    any may be missing). Any of them naming terms that ask for a notice is enough."""
    notice = licence_notice(licence)
    for name in names:
        if notice is not None:
            break
        known = find_family(name) if name else None  # find_family("") is the default family: not asked
        notice = licence_notice(known.licence) if known is not None else None
    return notice
