"""A passage's text as the model encodes it and as BM25 reads it, and the corpus hash: what an index's vectors
and terms are made of (the index folder's files themselves are store.py's)."""

from __future__ import annotations

import hashlib
import json
from dataclasses import asdict

from indexer.corpus import SOURCE_KEYS, Game
from indexer.models.description import E5_FORM, passage_text
from indexer.passages import Passage

# Bump when embedding_text() changes: stored vectors of unchanged passages are then not reused. (A model's own
# passage form is part of its fingerprint: indexer/models/description.py.)
PASSAGE_TEMPLATE = 1


def embedding_text(passage: Passage, game: Game, form: str = E5_FORM) -> str:
    """The passage as the model encodes it, in the model's passage form (`Embedder.passage_form`): its title is
    the game and the section, the context a bare bullet lacks ("Aux points" alone says little)."""
    return passage_text(form, " · ".join(x for x in (game.title, passage.section) if x), passage.text)


def lexical_text(passage: Passage, game: Game) -> str:
    return f"{game.title} {passage.section or ''}\n{passage.text}"


def corpus_hash(games: list[Game], passages: list[Passage]) -> str:
    # In game id order, whatever the rows' order: an index updated one game at a time (its games appended)
    # and a fresh build of the same corpus have the same hash.
    canonical = json.dumps(
        {
            # The PDF keys only when set: a corpus without imported PDFs keeps the hash (and index) it had.
            "games": [{k: v for k, v in asdict(g).items()
                       if k != "path" and not (k in SOURCE_KEYS and v is None) and not (k == "lexicon" and not v)}
                      for g in sorted(games, key=lambda g: g.id)],
            "passages": [p.to_dict() for p in sorted(passages, key=lambda p: p.game)],
        },
        ensure_ascii=False,
        sort_keys=True,
    )
    return hashlib.sha256(canonical.encode()).hexdigest()
