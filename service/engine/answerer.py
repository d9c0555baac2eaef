"""ask(question, game, k, mode) -> Answer: the answering pipeline, served by the CLI, the HTTP API, the eval
and every Ray replica alike (service/runtime/answerers.py builds it from the settings).

The stages, in the order they run:
1. the question, checked and analysed once (question.py);
2. routing: which game, and the question in that game's words (routing/);
3. retrieval: the question scored once, ranked for the routed game (retrieval/);
4. the judge: an optional cross-encoder re-orders the first passages (judge.py);
5. the decision: answer or refuse, and why (decide/);
6. composition: the quote and its citation, the card, a common mistake, the choices (compose/).
When the evidence is weak the answer abstains (found=false) and still lists the nearest passages.
"""

from __future__ import annotations

import copy
from dataclasses import dataclass, replace
from functools import lru_cache

from indexer.analysis import TOKEN, fold
from service.engine.answer import Answer
from service.engine.calibration import Calibration
from service.engine.catalogue import Catalogue
from service.engine.compose.card import card_questions
from service.engine.compose.reply import reply
from service.engine.decide.decision import decide, refusal_reason
from service.engine.decide.signals import Signaller
from service.engine.findings import Findings, Scored
from service.engine.limits import DEFAULT_K, DEFAULT_MODE
from service.engine.question import Query, Question, Turn, validate
from service.engine.retrieval.protocol import Hit, Retriever
from service.engine.routing.names import GameNames
from service.engine.routing.players_words import lexicon
from service.engine.routing.router import Route, Router


@dataclass(frozen=True)
class Features:
    """The answering path's defaults that no threshold decides, each switchable so that the eval measures
    what it brings (`rulesqa eval --ablation`)."""

    # The players' words read as the rulebook's (routing/players_words.py) in the ranking: off, because on the
    # dev split it moved hit@1 by +0.014 (fisher p = 0.74) and one tap by -0.014, within noise (docs/EVAL.md);
    # the router reads them always (lexical_routing).
    lexicon: bool = False
    card: bool = True  # card questions answered by the game card (compose/card.py)
    follow_up: bool = True  # a follow-up keeps the previous turn's game and topic (routing/follow_up.py)
    lexical_routing: bool = True  # a game-less question read in each likely game's words to route it


@lru_cache(maxsize=1024)
def _name_words(game) -> frozenset[str]:
    """The folded words of a game's title, id and aliases."""
    return frozenset(TOKEN.findall(fold(" ".join([game.title, game.id.replace("-", " "), *game.aliases]))))


class Answerer:
    def __init__(self, retriever: Retriever, calibration: Calibration = Calibration(), signaller: Signaller | None = None,
                 judge=None, features: Features = Features()):
        self.retriever = retriever
        self.calibration = calibration
        self.judge = judge  # service/engine/judge.py, or None
        self.features = features
        self.signaller = signaller or Signaller(retriever.embedder, retriever.words, retriever.games)
        self.names = GameNames(retriever.games, self.signaller.vocabulary)
        self.catalogue = Catalogue(retriever.games)
        self.cards = card_questions()
        self.router = self._router()

    def _router(self) -> Router:
        f = self.features
        return Router(self.retriever, self.names, lexicon(), self.calibration.routing,
                      self.calibration.abstention.accepts, f.follow_up, f.lexical_routing, f.lexicon)

    def _copy(self, **fields) -> Answerer:
        """Another answerer over the same loaded index and model, with some fields replaced; this one unchanged."""
        other = copy.copy(self)
        for name, value in fields.items():
            setattr(other, name, value)
        other.router = other._router()
        return other

    def reconfigured(self, **changes) -> Answerer:
        """With some calibration parts replaced (fusion=..., abstention=..., refusal=...): for calibration."""
        calibration = replace(self.calibration, **changes)
        retriever = self.retriever
        if calibration.fusion != self.calibration.fusion:
            retriever = retriever.with_fusion(calibration.fusion)
        return self._copy(calibration=calibration, retriever=retriever)

    def with_features(self, **changes) -> Answerer:
        """With some features off (for the eval's ablation)."""
        return self._copy(features=replace(self.features, **changes))

    def with_embedder(self, embedder) -> Answerer:
        """Encoding questions with `embedder` (the same model, e.g. behind service/runtime/batching.py)."""
        return self._copy(retriever=self.retriever.with_embedder(embedder))

    def ask(self, question, game: str | None = None, k: int = DEFAULT_K, mode: str = DEFAULT_MODE,
            previous: Turn | None = None) -> Answer:
        return self.answer(validate(question, game, k, mode, previous))

    def answer(self, query: Query, scored: Scored | None = None) -> Answer:
        """The answer to an already validated query; `scored` may be given when computed before
        (calibration asks the same question under many settings)."""
        found = self.find(query, scored)
        return reply(query, found, decide(found, self.calibration), self.retriever, self.calibration)

    def refusal_reason(self, found: Findings):
        return refusal_reason(found, self.calibration)

    def scored(self, query: Query) -> Scored:
        """The question encoded and scored: over its game's passages only when the game is known (whatever
        the size of the shelf), in that game's words; else over every passage, as asked."""
        named = self.router.named(query.question, query.game) or self.router.previous(query)
        if named is not None and named.game is not None:
            rewrite = self.router.rewrite(self.router.retrieved_text(query, named), named.game)
            scores = self.retriever.score(Question.of(rewrite.text), named.game)
            return Scored(query, named, scores, {named.game: (rewrite, scores)})
        return Scored(query, named, self.retriever.score(query.analysed))

    def _in_game(self, scored: Scored, game: str):
        if game not in scored.per_game:
            rewrite = self.router.rewrite(scored.query.question, game)  # a retrieval route: the question as asked
            # Encoded again only when the game's words change the question.
            scores = self.retriever.score(Question.of(rewrite.text), game) if rewrite.changed else scored.base
            scored.per_game[game] = (rewrite, scores)
        return scored.per_game[game]

    def find(self, query: Query, scored: Scored | None = None) -> Findings:
        """Route, retrieve and judge: what the question finds, before any decision."""
        scored = scored or self.scored(query)
        route = scored.named or self.router.by_retrieval(scored.base, query.mode, query.analysed)
        scores, rewrite = scored.base, None
        if route.game is not None:
            rewrite, scores = self._in_game(scored, route.game)
        hits = self._ranked(query, route, scores, rewrite)
        card = None
        if route.game is not None and self.features.card:
            card = self.cards.asked(query.analysed, _name_words(self.retriever.game(route.game)))
        if card is None:
            # The card answers card questions only: "l'extension change quoi ?" must not quote "Extensions : 2".
            hits = [h for h in hits if not h.passage.is_card] + [h for h in hits if h.passage.is_card]
        evidence = self.retriever.evidence(scores, hits[0]) if hits and route.game is not None else None
        if self._judged(route) and evidence is not None:
            evidence = replace(evidence, rerank=hits[0].score)
        return Findings(route, hits, evidence, self._signals(query, route, scores, hits), scores, card, rewrite,
                        query.analysed)

    def _judged(self, route: Route) -> bool:
        return self.judge is not None and route.game is not None

    def _ranked(self, query: Query, route: Route, scores, rewrite) -> list[Hit]:
        if not self._judged(route):
            return self.retriever.rank(scores, route.game, query.k, query.mode)
        hits = self.retriever.rank(scores, route.game, max(query.k, self.judge.top_n), query.mode)
        return self.judge.rerank(rewrite.text if rewrite else query.question, hits)[: query.k]

    def _signals(self, query: Query, route: Route, scores, hits: list[Hit]):
        question = query.question
        if route.span:
            # A misspelt title ("Karouba") is the game's name, not an unknown one. Spaced: the span may end
            # inside a word ("cubird s'envolent" read as "cubirds").
            named = self.retriever.game(route.game or route.candidates[0]).title
            question = f"{question[: route.span[0]]} {named} {question[route.span[1]:]}"
        game_text = self.retriever.game_text(route.game) if route.game else ""
        return self.signaller.signals(Question.of(question), scores.vector, self.retriever.coverage(scores),
                                      hits[0].dense if hits else 0.0, [h.passage.text for h in hits], route.game,
                                      game_text)

    def nearest_mistake(self, found: Findings, shown: set[str]):
        """(passage, cosine) of the routed game's common mistake nearest to the question, not among `shown`."""
        return self.retriever.nearest_mistake(found.scores, found.route.game, shown)
