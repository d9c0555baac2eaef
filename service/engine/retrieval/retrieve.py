"""Retrieval, second stage of an answer: the question asked of the index once, one `Retrieved` value out.

`RetrieverBase` is what the single index (single.py) and the shards (sharded.py) share, written once: the
retrieval itself, from each one's scoring primitives (`score`, `rank`, `likely_games`, `best_lexical`,
`mistakes`, `card`, `_read_vocabulary`), the game lookups and the games' words kept.

A question about a known game (given, named, or kept from the previous turn: question/reading.py) is scored
over that game's passages only, whatever the size of the shelf; an elliptic follow-up about that game is asked
with the previous question's words (question/follow_up.py), judged in the game's own words. A question naming none is scored once over
every game; then, for routing (routing/router.py), each likely game is read in its own words and the games
routing may choose are ranked from those same scores.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace

import numpy as np

from indexer.corpus import Game
from indexer.errors import UnknownGameError
from service.engine.findings import Evidence, GameRetrieved, Hit, Retrieved, ShelfRetrieved
from service.engine.limits import AMBIGUOUS_GAMES
from service.engine.players_words import Lexicon, Rewrite, in_game_words, lexicon
from service.engine.question import Question, Turn
from service.engine.question.follow_up import combined, elliptic, known_terms

# The folded text and words of the games asked about last, kept (a question reads its own game's text only).
GAME_WORDS_KEPT = 256


@dataclass(frozen=True)
class Request:
    """What retrieval is asked: built by the answerer from the question's reading (question/reading.py)."""

    question: Question  # as asked
    game: str | None  # the game known before retrieval; None: every game
    follows: Turn | None  # the previous turn, when the question may follow on from it in `game`
    mode: str
    k: int  # passages ranked over every game
    depth: int  # passages ranked in a game (the judge may read more than it shows)
    players_words: bool = False  # the players' words read as the rulebook's in the ranking too
    lexical_routing: bool = True  # a game-less question read in each likely game's words to route it


class RetrieverBase:
    games: list[Game]
    game_ids: list[str]
    fusion: object
    embedder: object

    def _init_catalogue(self, games: list[Game], centroid: np.ndarray) -> None:
        self.games = games
        self.game_ids = [g.id for g in games]
        self._games = {g.id: g for g in games}
        # mean(V @ q) == mean(V) @ q: the mean cosine to all passages costs one dot product. Stored by the
        # build (store.centroid): computing it here would read every vector of a memory-mapped shelf.
        self._centroid = centroid
        self._game_words: dict[str, tuple[str, frozenset[str]]] = {}
        self.lexicon: Lexicon = lexicon()

    # The catalogue: lookups, no scoring.

    def game(self, game_id: str) -> Game:
        try:
            return self._games[game_id]
        except KeyError:
            raise UnknownGameError(game_id, self.game_ids) from None

    def game_text(self, game_id: str) -> str:
        return self._vocabulary(game_id)[0]

    def game_words(self, game_id: str) -> frozenset[str]:
        return self._vocabulary(game_id)[1]

    def _vocabulary(self, game_id: str) -> tuple[str, frozenset[str]]:
        known = self._game_words.get(game_id)
        if known is None:
            known = self._read_vocabulary(self.game(game_id).id)
            if len(self._game_words) >= GAME_WORDS_KEPT:
                self._game_words.pop(next(iter(self._game_words)))
            self._game_words[game_id] = known
        return known

    def coverage(self, scores) -> float:
        """Share of the question's terms that occur anywhere in the corpus."""
        return len(scores.terms) / scores.n_terms if scores.n_terms else 0.0

    def with_fusion(self, fusion):
        """The same loaded index and model, ranked with another fusion."""
        other = copy.copy(self)
        other.fusion = fusion
        return other

    def with_embedder(self, embedder):
        """The same loaded index, questions encoded by `embedder` (the same model, e.g. batched)."""
        other = copy.copy(self)
        other.embedder = embedder
        return other

    # Retrieval.

    def retrieve(self, request: Request) -> Retrieved:
        if request.game is not None:
            text = self._followed(request)
            in_game = self._in_game(request, request.game, text, None)
            return Retrieved(Question.of(text), {request.game: in_game})
        scores = self.score(request.question)
        shelf = self._shelf(request, scores)
        games = {g: self._in_game(request, g, request.question.text, scores) for g in _routable(shelf)}
        return Retrieved(request.question, games, shelf)

    def _followed(self, request: Request) -> str:
        """The question as asked in its game: an elliptic follow-up carries the previous question's words."""
        question, game = request.question.text, request.game
        if request.follows is None:
            return question
        # Read in the game's words first: a player's "tuiles" is the rulebook's "plaquettes".
        own = self._rewrite(question, game)
        if elliptic(Question.of(own.text), known_terms(self.game_text(game))):
            return combined(request.follows, question)
        return question

    def _in_game(self, request: Request, game: str, text: str, shelf_scores) -> GameRetrieved:
        """The game's passages ranked for `text` in the game's words, from the shelf's scores when they hold
        the question as ranked, else scored again over the game alone."""
        rewrite = self._rewrite(text, game) if request.players_words else Rewrite(text, ())
        if shelf_scores is None or rewrite.changed:
            scores = self.score(Question.of(rewrite.text), game)
        else:
            scores = shelf_scores
        hits = self.rank(scores, game, request.depth, request.mode)
        in_game = GameRetrieved(self.game(game), rewrite, hits, scores.vector, self.coverage(scores),
                              float(self._centroid @ scores.vector), self.game_text(game), self.card(game),
                              words=self.game_words(game), mistakes=self.mistakes(scores.vector, game))
        if shelf_scores is not None and rewrite.changed:
            # Routing judges the game by the question as asked, not as read in the game's words.
            first = _first(self.rank(shelf_scores, game, 1, request.mode))
            if first is not None:
                lift = first.dense - float(self._centroid @ shelf_scores.vector)
                in_game = replace(in_game, as_asked=Evidence(first.dense, lift, self.coverage(shelf_scores)))
        return in_game

    def _shelf(self, request: Request, scores) -> ShelfRetrieved:
        dense = _first(self.rank(scores, None, 1, "dense"))
        lexical = _first(self.rank(scores, None, 1, "lexical"))
        likely = tuple(self.likely_games(scores, AMBIGUOUS_GAMES))
        best = {}
        if request.lexical_routing and dense is not None and lexical is not None and lexical.lexical > 0:
            for game in dict.fromkeys([g for g, _ in likely] + [lexical.passage.game]):
                best[game] = self.best_lexical(Question.of(self._rewrite(request.question.text, game).text), game)
        return ShelfRetrieved(self.rank(scores, None, request.k, request.mode), dense, lexical, likely,
                              scores.vector, self.coverage(scores), best)

    def _rewrite(self, text: str, game: str) -> Rewrite:
        return in_game_words(self.lexicon, text, self.game(game), self.game_words(game))


def _first(hits: list[Hit]) -> Hit | None:
    return hits[0] if hits else None


def _routable(shelf: ShelfRetrieved) -> list[str]:
    """The games routing may route the question to (routing/router.py): the nearest passage's, and the one
    whose words the question matches best; none when a retriever found nothing."""
    if shelf.dense_first is None or shelf.lexical_first is None or shelf.lexical_first.lexical <= 0:
        return []
    games = [shelf.dense_first.passage.game]
    if shelf.best_lexical:
        games.append(shelf.lexical_ranking()[0])
    return list(dict.fromkeys(games))
