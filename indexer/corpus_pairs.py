"""The training pairs of the index-time adaptation, mined from the corpus being indexed (its training is
indexer/models/e5/finetune.py): a `Q:` question and the answer under it, a bullet's bold title and its line,
a section heading that only one game uses and the passages under it, each passage written exactly as the
index embeds it (`passage_text.embedding_text`), so what is trained is what is served."""

from __future__ import annotations

from collections.abc import Collection
from dataclasses import replace

from indexer.corpus import Game
from indexer.models.e5.finetune import Pair
from indexer.passage_text import embedding_text
from indexer.passages import Passage


def _body(passage: Passage) -> str:
    """The passage text without its first line when that line is its title (a Q&A's question)."""
    if passage.title and passage.text.startswith(passage.title + "\n"):
        return passage.text[len(passage.title) + 1:]
    return passage.text


def training_pairs(passages: list[Passage], games: list[Game], exclude_games: Collection[str] = ()) -> list[Pair]:
    """Pairs drawn only from the corpus being indexed, in corpus order, without duplicates:

    - qa: a `Q:` passage (title ending with "?") -> that passage without the question line (with it, the
      answer would be the question copied);
    - bullet: a bullet's title -> its passage;
    - section: a section heading that one game only uses -> each passage under it (a heading several
      games share, "Comment on gagne", points to no passage in particular).

    Passages of `exclude_games` give no pair; which headings are unique is decided on all `passages`,
    so excluding a game never changes the pairs of another.
    """
    by_id = {g.id: g for g in games}
    section_games: dict[str, set[str]] = {}
    for p in passages:
        if p.section:
            section_games.setdefault(p.section, set()).add(p.game)
    excluded = set(exclude_games)
    pairs: list[Pair] = []
    seen: set[tuple[str, str]] = set()

    def add(query: str, passage: str, game: str, source: str) -> None:
        query = query.strip()
        if query and (query, passage) not in seen:
            seen.add((query, passage))
            pairs.append(Pair(query, passage, game, source))

    for p in passages:
        if p.game in excluded:
            continue
        game = by_id[p.game]
        text = embedding_text(p, game)
        if p.title and p.title.endswith("?"):
            body = _body(p)
            if body != p.text:  # a question with its answer below it
                add(p.title, embedding_text(replace(p, text=body), game), p.game, "qa")
        elif p.title:
            add(p.title, text, p.game, "bullet")
        if p.section and len(section_games[p.section]) == 1:
            add(p.section, text, p.game, "section")
    return pairs
