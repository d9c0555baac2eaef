"""The learned ranker's and the answerability judge's data (issue 35): every question of the training games
("train": to fit, "validation": the new games, to choose settings) and of the dev split (to calibrate) asked
through the engine's own stages, one JSON line each with the routed game's first 20 candidates, their scores
and gold relevance, and the refusal signals.

    python -m eval.judge_data --out DIR     writes DIR/train.jsonl, DIR/validation.jsonl, DIR/dev.jsonl

The training games are indexed with the served index's model under DIR/work/<split>/ and answered with the
served index's calibration, as `rulesqa eval --split new-games` answers the new games (eval/systems.py).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import asdict
from pathlib import Path

from eval.gold import GoldQuestion

SPLITS = ("train", "validation", "dev")
# The candidates the ranker orders and the judge reads.
K = 20
MODE = "hybrid"
# The machines here have 2 cores, shared: never more inference threads than that.
MAX_THREADS = 2


def candidates(found) -> tuple[list, object | None]:
    """(the candidates, the routed game's GameRetrieved or None): the routed game's first K passages as
    retrieval ranked them, else (no game routed) every game's."""
    game = found.retrieved.games.get(found.route.game) if found.route.game else None
    if game is not None:
        return game.hits[:K], game
    shelf = found.retrieved.shelf
    return (shelf.hits[:K] if shelf is not None else []), None


def candidate_row(hit, question: GoldQuestion) -> dict:
    p = hit.passage
    return {"id": p.id, "game": p.game, "kind": p.kind, "section": p.section, "title": p.title, "text": p.text,
            "pages": list(p.pages), "score": hit.score, "dense": hit.dense, "lexical": hit.lexical,
            "relevant": question.is_relevant(p.game, p.text)}


def ask(answerer, question: GoldQuestion, previous=None) -> tuple[dict, str | None]:
    """(the question's record, the game its answer is about): the stages `Answerer.answer` runs, in order, with
    what each produced kept."""
    from service.engine.compose.reply import reply
    from service.engine.question import validate

    query = validate(question.question, question.game, K, MODE, previous)
    asked = answerer.read(query)
    found = answerer.find(asked, answerer.retrieve(asked))
    decision = answerer.decide(asked, found)
    answer = reply(asked, decision, answerer.games, answerer.calibration)
    hits, game = candidates(found)
    rows = [candidate_row(h, question) for h in hits]
    record = {
        "id": question.id,
        "split": question.split,
        "question": question.question,
        "game": found.route.game,
        "route": found.route.how,
        "gold_game": question.gold_game,
        "answerable": question.answerable,
        "refusal": question.refusal,
        "tags": list(question.tags),
        "previous": question.previous,
        # The card field a card question asks (the card answers it, not the ranking), else None.
        "card_question": found.card_question.field if found.card_question is not None else None,
        "coverage": game.coverage if game is not None else None,
        "mean_cosine": game.mean_cosine if game is not None else None,
        "signals": asdict(decision.signals),
        "reason": str(decision.reason) if decision.reason is not None else None,  # a Reason or its value
        # What the engine does today, for comparison: the game kept by the decision and the answer's outcome.
        "decided_game": decision.findings.route.game,
        "found": answer.found,
        "sure": answer.sure,
        "candidates": rows,
    }
    return record, answer.game.id if answer.game else None


def records(answerer, questions: Sequence[GoldQuestion]) -> Iterator[dict]:
    """Each question's record; a follow-up asked as eval/run.py asks it: with the previous question and the
    game its answer was about (the question's own game when it got none)."""
    from service.engine.question import Turn

    turns = {}
    for q in questions:
        previous = None
        if q.previous is not None:
            if q.previous not in turns:
                raise ValueError(f"{q.id} : la question précédente {q.previous} n'a pas été posée avant")
            previous = turns[q.previous]
        record, answered_game = ask(answerer, q, previous)
        turns[q.id] = Turn(q.question, answered_game or q.game)
        yield record


def write_jsonl(path: Path, rows: Iterable[dict]) -> int:
    """Write the rows as JSON lines, atomically (a reader sees the old file or the whole new one); their count."""
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.stem}-", suffix=".jsonl", dir=path.parent)
    count = 0
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as f:
            for row in rows:
                f.write(json.dumps(row, ensure_ascii=False) + "\n")
                count += 1
        os.chmod(tmp, 0o644)  # mkstemp's 0600 would hide the data from the other users of the machine
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return count


def counted(rows: Iterable[dict], totals: dict[str, int]) -> Iterator[dict]:
    """The rows, counted into `totals` as they pass: questions, answerable, with a relevant candidate among the
    K, relevant first."""
    for r in rows:
        relevant = [c["relevant"] for c in r["candidates"]]
        for key, value in (("questions", 1), ("answerable", r["answerable"]), ("relevant@20", any(relevant)),
                           ("relevant@1", bool(relevant) and relevant[0])):
            totals[key] = totals.get(key, 0) + int(value)
        yield r


def _settings():
    from service.runtime.settings import load_settings

    conf = load_settings()
    return conf.model_copy(update={"threads": min(conf.threads, MAX_THREADS)})


def served_system(conf):
    """(settings, embedder, calibration) of the served index, built first by `rulesqa index` when missing."""
    from service.engine.calibration import load as load_calibration
    from service.runtime.startup import build_in_child

    if not (Path(conf.index_dir) / "manifest.json").exists():
        print(f"index {conf.index_dir} absent : rulesqa index", file=sys.stderr, flush=True)
        build_in_child(conf)
    embedder = conf.index_embedder()
    return conf, embedder, load_calibration(embedder.model_id, conf.index_dir)


def split_system(conf, embedder, calibration, split: str, work: Path):
    """(answerer, questions) of one split: the dev split over the served index; a training split over its own
    games' index, built (or brought up to date) under `work` with the served model."""
    from eval.gold import load_questions
    from service.runtime.answerers import build_answerer

    if split == "dev":
        return first_stage(build_answerer(conf, embedder=embedder, reranker=None, calibration=calibration)), \
            load_questions("dev")
    from eval.new_games import materialize
    from indexer.build import build_index

    corpus, questions = materialize(work / split, split=split)
    index = work / split / "index"
    build_index(corpus, index, embedder, progress=False)
    here = conf.model_copy(update={"index_dir": index, "corpus_dir": corpus})
    answerer = build_answerer(here, embedder=embedder, reranker=None, calibration=calibration)
    return first_stage(answerer), load_questions(questions, split=split)


def first_stage(answerer):
    """The answerer without the learned judge: what it learns from is the engine's first stage, never its own
    order or probabilities."""
    return answerer.with_learned(None)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m eval.judge_data", description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, required=True, help="dossier des fichiers <partie>.jsonl")
    parser.add_argument("--split", choices=SPLITS, action="append",
                        help="partie à écrire (répétable ; défaut : toutes)")
    args = parser.parse_args(argv)
    conf, embedder, calibration = served_system(_settings())
    for split in args.split or SPLITS:
        start = time.perf_counter()
        answerer, questions = split_system(conf, embedder, calibration, split, args.out / "work")
        c = {}
        write_jsonl(args.out / f"{split}.jsonl", counted(records(answerer, questions), c))
        print(f"{split} : {c['questions']} questions, {c['answerable']} avec réponse, un passage pertinent "
              f"parmi les {K} : {c['relevant@20']}, au 1er rang : {c['relevant@1']} ; "
              f"{time.perf_counter() - start:.0f} s", flush=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
