"""What a question says before anything is retrieved, read once as `Reading`: the game the client gave, named in
the question (typos allowed, names.py) or kept from the previous turn of a follow-up (follow_up.py), the previous
turn it may follow on from, and the card field it asks (card_question.py). It reads the question and the games'
names only, never the index: whether an elliptic follow-up carries the previous question's words is retrieval's
to say, in the game's own words (retrieval/retrieve.py)."""

from __future__ import annotations

from dataclasses import dataclass

from indexer.corpus import Game
from indexer.errors import UnknownGameError
from service.engine.findings import CardQuestion, Route
from service.engine.limits import AMBIGUOUS_GAMES
from service.engine.question import Query, Question, Turn
from service.engine.question.card_question import CardQuestions
from service.engine.question.names import GameNames


@dataclass(frozen=True)
class Reading:
    """The question stage's one reading of a question: what every later stage reads of it."""

    query: Query
    question: Question  # the question as asked, analysed
    # The game given, named in the question or kept from the previous turn (a route retrieval need not find);
    # None when the question names none.
    named: Route | None
    # The previous turn, when the question may follow on from it: it is about the same game (retrieval says
    # whether the question is elliptic enough to carry its words).
    follows: Turn | None
    # The question with the game's name as typed (a misspelt "Karouba") written as its title, analysed: what the
    # refusal signals read (decide/signals.py), for which a misspelt title is no unknown name.
    titled: Question
    # The card field the question asks, when its other words may all be the game's names (question/card_question.py);
    # the judge checks them against the routed game's names.
    card_question: CardQuestion | None = None


class Reader:
    """Reads questions against the games of one index: their ids, titles and names (`games`, in the index's
    order), the card fields asked (`cards`, None: card questions are not read)."""

    def __init__(self, games: list[Game], names: GameNames, cards: CardQuestions | None = None,
                 follow_up: bool = True):
        self.games = {g.id: g for g in games}
        self.game_ids = [g.id for g in games]
        self.names = names
        self.cards = cards
        self.follow_up = follow_up  # a follow-up keeps the previous turn's game and topic

    def read(self, query: Query) -> Reading:
        question = query.analysed
        named = self._named(query) or self._previous(query)
        follows = self._follows(query, named) if named is not None and named.game else None
        card = self.cards.detect(question) if self.cards is not None else None
        return Reading(query, question, named, follows, self._titled(question, named), card)

    def _named(self, query: Query) -> Route | None:
        """The game given, or named in the question (typos allowed); None when neither."""
        if query.game is not None:
            if query.game not in self.games:
                raise UnknownGameError(query.game, self.game_ids)
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
        if not self.follow_up or previous is None or previous.game is None or previous.game not in self.games:
            return None
        return Route(previous.game, "previous")

    def _follows(self, query: Query, route: Route) -> Turn | None:
        """The previous turn, when it was about the question's game (kept, or given again by the client)."""
        previous = query.previous
        if not (self.follow_up and previous is not None and previous.game == route.game):
            return None
        return previous

    def _titled(self, question: Question, named: Route | None) -> Question:
        """The question with the name read in it written as the game's title (the likeliest game's, when several
        are as near). Spaced: the span may end inside a word ("cubird s'envolent" read as "cubirds")."""
        if named is None or not named.span:
            return question
        text = question.text
        title = self.games[named.game or named.candidates[0]].title
        return Question.of(f"{text[: named.span[0]]} {title} {text[named.span[1]:]}")
