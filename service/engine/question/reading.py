"""What a question says before anything is retrieved: the game the client gave, named in the question (typos
allowed, names.py) or kept from the previous turn of a follow-up (follow_up.py), and the text retrieval asks in
that game: an elliptic follow-up carries the previous question's words. Read once, as `Asked`."""

from __future__ import annotations

from dataclasses import dataclass

from service.engine.findings import Route
from service.engine.limits import AMBIGUOUS_GAMES
from service.engine.players_words import Lexicon, in_game_words
from service.engine.question import Query, Question
from service.engine.question.follow_up import combined, elliptic, known_terms
from service.engine.question.names import GameNames


@dataclass(frozen=True)
class Asked:
    query: Query
    question: Question  # the question as asked, analysed
    # The game given, named in the question or kept from the previous turn (a route retrieval need not find);
    # None when the question names none.
    named: Route | None
    text: str  # the question as retrieved in the named game (a follow-up carries the previous question's words)


class Reader:
    """Reads questions against the games of one index: their names, and each game's own words (`texts`: the
    retriever's catalogue, for `game`, `game_ids`, `game_text` and `game_words`)."""

    def __init__(self, texts, names: GameNames, lexicon: Lexicon, follow_up: bool = True):
        self.texts = texts
        self.names = names
        self.lexicon = lexicon
        self.follow_up = follow_up  # a follow-up keeps the previous turn's game and topic

    def read(self, query: Query) -> Asked:
        question = query.analysed
        named = self._named(query) or self._previous(query)
        text = self._retrieved_text(query, named) if named is not None and named.game else query.question
        return Asked(query, question, named, text)

    def _named(self, query: Query) -> Route | None:
        """The game given, or named in the question (typos allowed); None when neither."""
        if query.game is not None:
            self.texts.game(query.game)  # raises UnknownGameError with the known ids
            return Route(query.game, "given")
        match = self.names.match(query.analysed)
        if match is None:
            return None
        if match.game is None:  # a misspelt name as near to several games' names: ask which
            return Route(None, "ambiguous", span=(match.start, match.end), candidates=match.games[:AMBIGUOUS_GAMES])
        return Route(match.game, "name", span=(match.start, match.end))

    def _previous(self, query: Query) -> Route | None:
        """A question that names no game keeps the previous turn's (when that game is still known)."""
        previous = query.previous
        if not self.follow_up or previous is None or previous.game is None \
                or previous.game not in self.texts.game_ids:
            return None
        return Route(previous.game, "previous")

    def _retrieved_text(self, query: Query, route: Route) -> str:
        """An elliptic follow-up about the previous turn's game (kept, or given again by the client) carries the
        previous question's words."""
        previous = query.previous
        if not (self.follow_up and previous is not None and previous.game == route.game):
            return query.question
        game = route.game
        # Read in the game's words first: a player's "tuiles" is the rulebook's "plaquettes".
        own = in_game_words(self.lexicon, query.question, self.texts.game(game), self.texts.game_words(game))
        if elliptic(Question.of(own.text), known_terms(self.texts.game_text(game))):
            return combined(previous, query.question)
        return query.question
