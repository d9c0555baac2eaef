"""ask(question, game, k, mode) -> Answer, served by the CLI, the HTTP API and the eval.

The answer is extractive: the best sentence(s) of the top passage, in the rulebook's own words, with a
citation. When the evidence is weak the answer abstains (found=false) and still lists the nearest
passages, so the player can judge.
"""

from __future__ import annotations

import copy
import re
from functools import lru_cache
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING

from indexer import store
from indexer.analysis import TOKEN, analyze, fold
from indexer.game_card import field_line
from indexer.errors import QuestionError
from indexer.passages import Passage
from service.engine.calibration import AbstentionPolicy, Calibration
from service.engine.catalogue import Catalogue
from service.engine.routing.follow_up import Turn, combined, elliptic, known_terms
from service.engine.routing.players_words import Rewrite, lexicon
from service.engine.calibration import load as load_calibration
from service.engine.compose.card import CardQuestion, card_questions
from service.engine.compose.choices import label
from service.engine.limits import DEFAULT_K, DEFAULT_MODE, MAX_K, MAX_QUESTION_CHARS, MIN_K, MODES
from service.engine.compose.mistakes import Mistakes
from service.engine.decide.refusal import Signaller, Signals
from service.engine.decide.refusal import message as refusal_message
from service.engine.answer import Answer, Choice, CitedPassage, CommonMistake, GameRef, Quote, Refusal
from service.engine.retrieval.single import Evidence, Hit, Retriever, Scores
from service.engine.routing.names import GameNames, Route

if TYPE_CHECKING:
    from indexer.e5 import Embedder

# A question without a game routed by retrieval asks the player to choose among this many games when the
# dense and lexical retrievers point to different games, or when another game's best passage is within
# AMBIGUITY_MARGIN (cosine) of the best game's. The margin is off: 0.005, the largest that changed no
# route on the dev split, turned one correct route of the test split into a question (gap 0.0046) and
# took routing under the regression gate (tests/eval/test_gate.py); docs/SCALE.md has both measurements.
AMBIGUOUS_GAMES = 3
AMBIGUITY_MARGIN = 0.0
# When the two retrievers disagree on the game, the lexical one wins if the question, in each game's own
# words, matches its game's passages this many times better than any other game's: cosines of look-alike
# games sit within 0.02 of each other, a player's "toucans" or "explorateurs" is one game's word. On the dev
# split the seven answerable game-less questions where the retrievers disagreed all belonged to the lexical
# game; at 2.0 four of them route (ratios 2.0 to 5.8) and no question without an answer does (at most 1.98).
LEXICAL_DOMINANCE = 2.0
# Refusals that know there is no answer in these rules: no passage is offered to pick from.
DEFINITIVE_REFUSALS = ("off_topic", "other_game", "not_in_rules", "ambiguous_game")
SENTENCE_END = re.compile(r"(?<=[.!?…])\s+(?=[«\"A-ZÀ-ÖØ-Þ0-9])")
CARD_CITATION = "fiche du jeu"
# A first sentence this short ("Non.", "Oui : …") needs the next one to make sense on its own.
SHORT_SENTENCE = 60


@dataclass(frozen=True)
class Query:
    """A question checked against the limits (service/engine/limits.py): what `Answerer.answer` takes."""

    question: str
    game: str | None = None
    k: int = DEFAULT_K
    mode: str = DEFAULT_MODE
    previous: Turn | None = None  # the previous turn of the conversation, for a follow-up


def validate(question, game: str | None = None, k=DEFAULT_K, mode=DEFAULT_MODE, previous: Turn | None = None
             ) -> Query:
    if not isinstance(question, str):
        raise QuestionError("la question doit être un texte")
    question = question.strip()
    if not question:
        raise QuestionError("la question est vide")
    if len(question) > MAX_QUESTION_CHARS:
        raise QuestionError(f"la question est trop longue ({len(question)} caractères, maximum {MAX_QUESTION_CHARS})")
    if isinstance(k, bool) or not isinstance(k, int) or not MIN_K <= k <= MAX_K:
        raise QuestionError(f"k doit être un entier entre {MIN_K} et {MAX_K} (reçu : {k!r})")
    if mode not in MODES:
        raise QuestionError(f"mode inconnu « {mode} » (modes : {', '.join(MODES)})")
    if previous is not None:
        text = previous.question.strip() if isinstance(previous.question, str) else ""
        if not text or len(text) > MAX_QUESTION_CHARS:
            raise QuestionError(f"la question précédente doit être un texte de 1 à {MAX_QUESTION_CHARS} caractères")
        previous = Turn(text, previous.game)
    return Query(question, game, k, mode, previous)


def short_citation(passage: Passage) -> str:
    """What a citation chip shows: the pages, else the section ("fiche du jeu" for the game card)."""
    if passage.is_card:
        return CARD_CITATION
    if passage.pages:
        return "p. " + ", ".join(str(p) for p in passage.pages)
    return passage.section or ""


def citation(passage: Passage, game_title: str) -> str:
    if passage.is_card:
        return f"{game_title}, {CARD_CITATION}"
    if passage.pages:
        return f"{game_title}, livret {short_citation(passage)}"
    if passage.section:
        return f"{game_title}, section {passage.section}"
    return game_title


def _body(passage: Passage) -> str:
    """The passage without its title line (a question or a bullet title)."""
    if passage.title and passage.text.startswith(passage.title + "\n"):
        return passage.text[len(passage.title) + 1 :]
    return passage.text


@lru_cache(maxsize=1024)
def _name_words(game) -> frozenset[str]:
    """The folded words of a game's title, id and aliases."""
    return frozenset(TOKEN.findall(fold(" ".join([game.title, game.id.replace("-", " "), *game.aliases]))))


def card_refusal_message(card: CardQuestion, game_title: str) -> str:
    return f"Ni les règles ni la fiche du jeu de {game_title} ne donnent {card.missing}."


def extract_answer(passage: Passage, question: str) -> str:
    """The sentence(s) of the passage that answer the question, verbatim.

    A rules Q&A puts its direct answer first, so its first sentence is taken. Elsewhere the sentence
    sharing the most terms with the question is taken (the first one on a tie).
    """
    sentences = [s for line in _body(passage).split("\n") for s in SENTENCE_END.split(line.strip()) if s]
    if not sentences:
        return passage.text
    best = 0
    if not (passage.title or "").endswith("?"):
        wanted = set(analyze(question))
        overlaps = [len(wanted & set(analyze(s))) for s in sentences]
        best = max(range(len(sentences)), key=lambda i: (overlaps[i], -i))
    chosen = sentences[best]
    if len(chosen) < SHORT_SENTENCE and best + 1 < len(sentences):
        chosen = f"{chosen} {sentences[best + 1]}"
    return chosen


@dataclass(frozen=True)
class Features:
    """The answering path's defaults that no threshold decides, each switchable so that the eval measures
    what it brings (`rulesqa eval --ablation`)."""

    # The players' words read as the rulebook's (service/engine/routing/players_words.py) in the ranking: off, because on the dev
    # split it moved hit@1 by +0.014 (fisher p = 0.74) and one tap by -0.014, within noise (docs/EVAL.md);
    # the router reads them always (lexical_routing).
    lexicon: bool = False
    card: bool = True  # card questions answered by the game card (service/engine/compose/card.py)
    follow_up: bool = True  # a follow-up keeps the previous turn's game and topic (service/engine/routing/follow_up.py)
    lexical_routing: bool = True  # a game-less question read in each likely game's words to route it


@dataclass
class Scored:
    """A question scored once, reused when the same query is decided under many settings (calibration):
    the scores of the question as asked, and per game those of the question in that game's words."""

    query: Query
    named: Route | None  # the game given or named in the question, or kept from the previous turn
    base: Scores
    per_game: dict[str, tuple[Rewrite, Scores]] = field(default_factory=dict)


@dataclass(frozen=True)
class Findings:
    """What retrieval found for a query, before any decision: the tuner reads these too."""

    route: Route
    hits: list[Hit]
    evidence: Evidence | None  # None when no game was routed or nothing was found
    signals: Signals
    scores: Scores | None = None
    card: CardQuestion | None = None  # the card field asked about, when the question is a card question
    rewrite: Rewrite | None = None  # the question in the routed game's words (service/engine/routing/players_words.py)


class Answerer:
    def __init__(self, retriever: Retriever, calibration: Calibration = Calibration(), cache_dir: Path | None = None,
                 reranker=None):
        self.retriever = retriever
        self.calibration = calibration
        self.reranker = reranker  # service/engine/judge.py, or None
        self.features = Features()
        self.signaller = Signaller(retriever.embedder, retriever.data.words, retriever.games, cache_dir)
        self.names = GameNames(retriever.games, self.signaller.vocabulary)
        self.catalogue = Catalogue(retriever.games)
        self.cards = card_questions()
        self.lexicon = lexicon()
        self.mistakes = Mistakes(retriever.passages, retriever.data.rows, retriever.game_ids)

    @classmethod
    def load(cls, index_dir: Path, embedder: Embedder, calibration: Calibration | None = None,
             cache_dir: Path | None = None, reranker=None) -> Answerer:
        """The answerer over an index; without `calibration`, the one measured for the model and reranker (or
        the defaults). `cache_dir` keeps what start-up computes from the model alone (service/engine/decide/refusal.py)."""
        return cls.from_data(store.load(index_dir), embedder, calibration, cache_dir, reranker)

    @classmethod
    def from_data(cls, data, embedder: Embedder, calibration: Calibration | None = None,
                  cache_dir: Path | None = None, reranker=None) -> Answerer:
        """The answerer over index data already read (service/runtime/startup.py reads it while the model loads)."""
        calibration = calibration or load_calibration(embedder.model_id,
                                                      reranker_id=reranker.model_id if reranker else None)
        return cls(Retriever.from_data(data, embedder, calibration.fusion), calibration, cache_dir, reranker)

    @property
    def policy(self) -> AbstentionPolicy:
        return self.calibration.abstention

    def reconfigured(self, **changes) -> Answerer:
        """Another answerer over the same loaded index and model, with some calibration parts replaced
        (fusion=..., abstention=..., refusal=...); this one is unchanged. For calibration."""
        calibration = replace(self.calibration, **changes)
        other = copy.copy(self)
        other.calibration = calibration
        if calibration.fusion != self.calibration.fusion:
            other.retriever = self.retriever.with_fusion(calibration.fusion)
        return other

    def with_features(self, **changes) -> Answerer:
        """Another answerer over the same loaded index and model with some features off (for the eval)."""
        other = copy.copy(self)
        other.features = replace(self.features, **changes)
        return other

    def with_embedder(self, embedder) -> Answerer:
        """Another answerer over the same loaded index, encoding questions with `embedder` (the same model,
        e.g. behind service/runtime/batching.py); this one is unchanged."""
        other = copy.copy(self)
        other.retriever = self.retriever.with_embedder(embedder)
        return other

    def named_route(self, question: str, game: str | None) -> Route | None:
        """The game given, or named in the question (typos allowed); None when neither."""
        if game is not None:
            self.retriever.game(game)  # raises UnknownGameError with the known ids
            return Route(game, "given")
        named = self.names.match(question)
        if named is None:
            return None
        if named.game is None:  # a misspelt name as near to several games' names: ask which
            return Route(None, "ambiguous", span=(named.start, named.end), candidates=named.games[:AMBIGUOUS_GAMES])
        return Route(named.game, "name", span=(named.start, named.end))

    def retrieval_route(self, scores: Scores, mode: str, question: str | None = None) -> Route:
        """The game retrieval points to when the question names none. Two independent retrievers must agree
        on it: a question about something else gets nearest passages scattered over games, or no shared
        word at all. With `question`, the lexical side reads it in each likely game's own words
        (service/engine/routing/players_words.py): "tuiles" is no word of Karuba's, "plaquettes" is."""
        dense = self.retriever.rank(scores, None, 1, "dense")
        lexical = self.retriever.rank(scores, None, 1, "lexical")
        if not dense or not lexical or lexical[0].lexical <= 0:
            return Route(None, "none")
        game = dense[0].passage.game
        lexical_game, dominant = lexical[0].passage.game, False
        if question is not None and self.features.lexical_routing:
            lexical_game, dominant = self._lexical_game(question, scores, lexical_game)
            game = lexical_game if dominant else game
        top = self.retriever.rank(scores, game, 1, mode)
        if not top or not self.policy.accepts(self.retriever.evidence(scores, top[0])):
            return Route(None, "none")
        # Among many look-alike games another one's evidence is often as strong: then ask, not guess.
        likely = self.retriever.likely_games(scores, AMBIGUOUS_GAMES)
        close = tuple(g for g, cosine in likely if likely[0][1] - cosine < AMBIGUITY_MARGIN)
        if lexical_game != game or (len(close) > 1 and not dominant):
            return Route(None, "ambiguous", candidates=tuple(g for g, _ in likely))
        return Route(game, "retrieval")

    def _lexical_game(self, question: str, scores: Scores, lexical_game: str) -> tuple[str, bool]:
        """Among the likeliest games by cosine and the lexical retriever's own, the one whose passages the
        question, in that game's words, matches best by BM25; and whether it does LEXICAL_DOMINANCE times
        better than every other one."""
        candidates = dict.fromkeys([g for g, _ in self.retriever.likely_games(scores, AMBIGUOUS_GAMES)]
                                   + [lexical_game])
        best = {g: self.retriever.best_lexical(self.rewrite(question, g, always=True).text, g) for g in candidates}
        ranked = sorted(best, key=lambda g: (-best[g], g != lexical_game))
        runner_up = best[ranked[1]] if len(ranked) > 1 else 0.0
        return ranked[0], best[ranked[0]] > 0 and best[ranked[0]] >= LEXICAL_DOMINANCE * runner_up

    def ask(self, question, game: str | None = None, k: int = DEFAULT_K, mode: str = DEFAULT_MODE,
            previous: Turn | None = None) -> Answer:
        return self.answer(validate(question, game, k, mode, previous))

    def scored(self, query: Query) -> Scored:
        """The question encoded and scored: over its game's passages only when the game is known (whatever
        the size of the shelf), in that game's words; else over every passage, as asked."""
        named = self.named_route(query.question, query.game) or self.previous_route(query)
        if named is not None and named.game is not None:
            rewrite = self.rewrite(self.retrieved_text(query, named), named.game)
            scores = self.retriever.score(rewrite.text, named.game)
            return Scored(query, named, scores, {named.game: (rewrite, scores)})
        return Scored(query, named, self.retriever.score(query.question))

    def previous_route(self, query: Query) -> Route | None:
        """A question that names no game keeps the previous turn's (when that game is still known)."""
        previous = query.previous
        if not self.features.follow_up or previous is None or previous.game is None \
                or previous.game not in self.retriever.game_ids:
            return None
        return Route(previous.game, "previous")

    def retrieved_text(self, query: Query, route: Route) -> str:
        """The question as retrieved: an elliptic follow-up about the previous turn's game (kept, or given
        again by the client) carries the previous question's words."""
        previous = query.previous
        if not (self.features.follow_up and previous is not None and route.game is not None
                and previous.game == route.game):
            return query.question
        own = self.rewrite(query.question, route.game, always=True).text  # "tuiles" is Karuba's "plaquettes"
        if elliptic(own, known_terms(self.retriever.game_text(route.game))):
            return combined(previous, query.question)
        return query.question

    def rewrite(self, question: str, game: str, always: bool = False) -> Rewrite:
        """The question with the players' words the game's rulebook does not use replaced by its own (in the
        ranking only when the `lexicon` feature is on; `always` for the router)."""
        if not (always or self.features.lexicon):
            return Rewrite(question, ())
        words = self.retriever.game_words(game)
        # Keyed by the words themselves: a frozenset keeps its hash, and a new index version brings new words.
        return self.lexicon.rewrite(question, words, self.retriever.game(game).lexicon, key=(game, words))

    def _in_game(self, scored: Scored, game: str) -> tuple[Rewrite, Scores]:
        if game not in scored.per_game:
            rewrite = self.rewrite(scored.query.question, game)  # a retrieval route: the question as asked
            # Encoded again only when the game's words change the question.
            scores = self.retriever.score(rewrite.text, game) if rewrite.changed else scored.base
            scored.per_game[game] = (rewrite, scores)
        return scored.per_game[game]

    def find(self, query: Query, scored: Scored | None = None) -> Findings:
        scored = scored or self.scored(query)
        route = scored.named or self.retrieval_route(scored.base, query.mode, query.question)
        scores, rewrite = scored.base, None
        if route.game is not None:
            rewrite, scores = self._in_game(scored, route.game)
        judged = self.reranker is not None and route.game is not None
        hits = self.retriever.rank(scores, route.game, max(query.k, self.reranker.top_n) if judged else query.k,
                                   query.mode)
        if judged:
            hits = self._reranked(rewrite.text if rewrite else query.question, hits)[: query.k]
        card = None
        if route.game is not None and self.features.card:
            card = self.cards.asked(query.question, self._name_words(route.game))
        if card is None:
            # The card answers card questions only: "l'extension change quoi ?" must not quote "Extensions : 2".
            hits = [h for h in hits if not h.passage.is_card] + [h for h in hits if h.passage.is_card]
        evidence = self.retriever.evidence(scores, hits[0]) if hits and route.game is not None else None
        if judged and evidence is not None:
            evidence = replace(evidence, rerank=hits[0].score)
        question = query.question
        if route.span:
            # A misspelt title ("Karouba") is the game's name, not an unknown one.
            named = self.retriever.game(route.game or route.candidates[0]).title
            # Spaced: the span may end inside a word ("cubird s'envolent" read as "cubirds").
            question = f"{question[: route.span[0]]} {named} {question[route.span[1]:]}"
        game_text = self.retriever.game_text(route.game) if route.game else ""
        signals = self.signaller.signals(question, scores.vector, self.retriever.coverage(scores),
                                         hits[0].dense if hits else 0.0, [h.passage.text for h in hits], route.game,
                                         game_text)
        return Findings(route, hits, evidence, signals, scores, card, rewrite)

    def _reranked(self, question: str, hits: list[Hit]) -> list[Hit]:
        """The first TOP_N hits in the reranker's order, its score as theirs (ties keep retrieval's order)."""
        head, tail = hits[: self.reranker.top_n], hits[self.reranker.top_n:]
        judged = self.reranker.scores(question, [h.passage.text for h in head])
        order = sorted(range(len(head)), key=lambda i: (-judged[i], i))
        return [replace(head[i], score=judged[i]) for i in order] + tail

    def _name_words(self, game_id: str) -> frozenset[str]:
        return _name_words(self.retriever.game(game_id))

    def refusal_reason(self, found: Findings) -> str | None:
        reason = self.calibration.refusal.reason(found.signals, game_known=found.route.game is not None)
        if reason is None and (found.evidence is None or not self.policy.accepts(found.evidence)):
            reason = "weak_evidence"
        return reason

    def answer(self, query: Query, scored: Scored | None = None) -> Answer:
        """The answer to an already validated query; `scored` may be given when computed before
        (calibration asks the same question under many settings)."""
        found = self.find(query, scored)
        scores = found.scores
        reason = self.refusal_reason(found)
        if reason == "weak_evidence" and found.route.how == "ambiguous":
            reason = "ambiguous_game"
        route = found.route
        if reason in ("off_topic", "other_game") and route.how != "given":
            route = Route(None, "none")  # a game guessed for a question about something else is noise
        game = self.retriever.game(route.game) if route.game else None
        title = game.title if game else None
        quote = warning = refusal = None
        hits = found.hits
        sure = False
        if found.card is not None and reason not in ("off_topic", "other_game"):
            reason, quote, hits = self._card_answer(found, title)
            sure = quote is not None  # the card's own line: nothing to choose from
            if reason:
                refusal = Refusal(reason, card_refusal_message(found.card, title))
        elif reason is None:
            top = found.hits[0].passage
            answer_set = self.calibration.answer_set.select(found.hits)
            quote = Quote(extract_answer(top, query.question), citation(top, title), top.id,
                          [h.passage.id for h in answer_set])
            warning = self._warning(scores, game, set(quote.passage_ids))
            sure = self.calibration.confidence.sure(hits)
        else:
            titles = [g.title for g in self.retriever.games]
            if reason == "ambiguous_game":
                titles = [self.retriever.game(g).title for g in route.candidates]
            names = found.signals.other_games or found.signals.unknown_names
            refusal = Refusal(reason, refusal_message(reason, title, names, titles),
                              [GameRef(g, self.retriever.game(g).title) for g in route.candidates])
        choices = [] if sure or reason in DEFINITIVE_REFUSALS else self._choices(hits, query.question)
        if quote is None:
            message = refusal.message
        elif sure or not choices:
            message = f"Réponse trouvée : {quote.citation}."
        else:
            message = f"Réponse probable : {quote.citation}. Tu parles de… ?"
        return Answer(
            question=query.question,
            game=GameRef(game.id, game.title) if game else None,
            game_detected=route.how in ("name", "retrieval", "previous"),
            found=reason is None,
            answer=quote,
            message=message,
            passages=[self._cited(h) for h in hits],
            refusal=refusal,
            warning=warning,
            sure=sure,
            choices=choices,
        )

    def _choices(self, hits: list[Hit], question: str) -> list[Choice]:
        """The passages to pick from when the best one is not sure; none when there is only one."""
        offered = self.calibration.confidence.offered(hits)
        if len(offered) < 2:
            return []
        return [Choice(h.passage.id, label(h.passage), extract_answer(h.passage, question),
                       citation(h.passage, self.retriever.game(h.passage.game).title), short_citation(h.passage),
                       i == 0) for i, h in enumerate(offered)]

    def _card_answer(self, found: Findings, title: str) -> tuple[str | None, Quote | None, list[Hit]]:
        """(refusal reason, quote, hits) for a card question: the card's line for the field, the card first
        among the passages; not_in_rules when the card does not give the field (or the game has no card)."""
        card = self.retriever.card(found.route.game)
        line = field_line(card.text, found.card.field) if card is not None else None
        if line is None:
            return "not_in_rules", None, found.hits
        rest = [h for h in found.hits if h.passage.id != card.id]
        shown = next((h for h in found.hits if h.passage.id == card.id), None)
        if shown is None:
            top = found.hits[0] if found.hits else None
            shown = Hit(card, top.score if top else 1.0, top.dense if top else 0.0, 0.0)
        return None, Quote(line, citation(card, title), card.id, [card.id]), [shown, *rest][: len(found.hits) or 1]

    def _warning(self, scores: Scores, game, shown: set[str]) -> CommonMistake | None:
        best = self.mistakes.best(self.retriever.data.vectors, scores.vector, game.id, shown)
        if best is None or best[1] < self.calibration.warning.min_cosine:
            return None
        passage = best[0]
        text = f"{passage.title} : {_body(passage)}" if passage.title else passage.text
        return CommonMistake(text, citation(passage, game.title), passage.id)

    def _cited(self, hit: Hit) -> CitedPassage:
        p = hit.passage
        title = self.retriever.game(p.game).title
        return CitedPassage(p.id, p.game, p.section, list(p.pages), p.text, round(hit.score, 4),
                            citation(p, title), short_citation(p))
