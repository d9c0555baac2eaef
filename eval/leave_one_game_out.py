"""Leave one game out: does adapting e5 to a corpus help a game whose rules it was not trained on?

For each game G of the corpus, the model is adapted without G's pairs, the WHOLE corpus is indexed with
it, and only the questions whose gold_game is G are asked (hybrid mode). The same questions are also
asked with the base model and with the model adapted on every game's pairs, so a game's row reads:
base -> full adaptation (trained on G's own titles and questions) -> leave-out (what a newly added
game gets before its pairs are used, or a game whose pairs teach nothing its players ask).

Each adaptation writes a model folder (about 1 GB) under `workdir`; they are removed once evaluated
unless `keep_models` (then a second run reuses them).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import TYPE_CHECKING

from eval import metrics as m
from eval.gold import GoldQuestion
from eval.run import ask_all
from indexer.build import build_index
from indexer.corpus_pairs import training_pairs
from indexer.models.e5.finetune import MIN_PAIRS, adapt_model
from indexer.models.embedders import load_folder_embedder
from indexer.passages import load_passages

if TYPE_CHECKING:
    from service.engine.retrieval.protocol import FusionConfig

METRICS = ("hit@1", "mrr@10")
MODE = "hybrid"
K = 10


def _answerer(index: Path, embedder, fusion: FusionConfig):
    from service.engine.calibration import Calibration
    from service.engine.decide.abstention import AbstentionPolicy
    from service.runtime.answerers import build_answerer
    from service.runtime.settings import load_settings

    # A permissive policy: nothing is refused while ranking is measured (found does not enter hit or MRR).
    return build_answerer(load_settings(index_dir=index), embedder=embedder, reranker=None,
                          calibration=Calibration(fusion=fusion, abstention=AbstentionPolicy()))


def _records(embedder, corpus_dir: Path, index: Path, questions: list[GoldQuestion], fusion) -> list[dict]:
    build_index(corpus_dir, index, embedder, progress=False)
    return ask_all(_answerer(index, embedder, fusion), questions, MODE, K)


def _scores(records: list[dict]) -> dict:
    return {name: (None if v is None else round(v, 4)) for name, v in m.evaluate(records, METRICS).items()}


def leave_one_game_out(base_dir: Path, corpus_dir: Path, questions: list[GoldQuestion], workdir: Path,
                       fusion: FusionConfig, threads: int, progress: bool = False, *, seed: int = 0,
                       keep_models: bool = False) -> dict:
    """Per game with gold questions: hit@1 and MRR@10 in hybrid mode with the base model, the full
    adaptation and the adaptation without that game's pairs; "overall" pools the same questions."""
    base_dir, corpus_dir, workdir = Path(base_dir), Path(corpus_dir), Path(workdir)
    workdir.mkdir(parents=True, exist_ok=True)
    docs, passages = load_passages(corpus_dir)
    games = [doc.game for doc in docs]
    asked = {g.id: [q for q in questions if q.gold_game == g.id] for g in games}
    asked = {g: qs for g, qs in asked.items() if qs}
    pooled = [q for qs in asked.values() for q in qs]
    if not pooled:
        raise ValueError("aucune question dont le gold_game est un jeu du corpus")

    def adapted(name: str, pairs) -> Path:
        return adapt_model(base_dir, pairs, workdir / "models" / name, seed=seed, progress=progress,
                           threads=threads)

    def run(folder: Path, name: str, qs: list[GoldQuestion]) -> list[dict]:
        records = _records(load_folder_embedder(folder, threads), corpus_dir, workdir / "indexes" / name, qs, fusion)
        if not keep_models and folder != base_dir:
            shutil.rmtree(folder, ignore_errors=True)
        return records

    all_pairs = training_pairs(passages, games)
    base = run(base_dir, "base", pooled)
    # Too few pairs: no adaptation at all (the caller's fallback is the base model).
    full = run(adapted("full", all_pairs), "full", pooled) if len(all_pairs) >= MIN_PAIRS else None
    report: dict = {"games": {}, "mode": MODE, "fusion": {"method": fusion.method, "dense_weight": fusion.dense_weight},
                    "pairs": len(all_pairs), "seed": seed}
    leave_out_records: list[dict] = []
    for game, qs in asked.items():
        ids = {q.id for q in qs}
        pairs = training_pairs(passages, games, exclude_games={game})
        row = {"questions": len(qs), "answerable": sum(q.answerable for q in qs), "pairs_without": len(pairs),
               "base": _scores([r for r in base if r["id"] in ids]),
               "full": _scores([r for r in full if r["id"] in ids]) if full else None}
        if len(pairs) < MIN_PAIRS:
            row["leave_out"] = None
        else:
            records = run(adapted(f"without-{game}", pairs), f"without-{game}", qs)
            leave_out_records += records
            row["leave_out"] = _scores(records)
        report["games"][game] = row
    covered = {r["id"] for r in leave_out_records}
    report["overall"] = {
        "questions": len(pooled),
        "answerable": sum(q.answerable for q in pooled),
        "base": _scores(base),
        "full": _scores(full) if full else None,
        # Over the games that could be left out; the same as the others when every game could.
        "leave_out": _scores(leave_out_records) if leave_out_records else None,
        "leave_out_questions": len(covered),
    }
    return report


def format_table(report: dict) -> str:
    """The report as a Markdown table: hit@1 / MRR@10 per game and overall."""
    def cell(scores: dict | None) -> str:
        if not scores or scores.get("hit@1") is None:
            return "–"
        return f"{scores['hit@1']:.3f} / {scores['mrr@10']:.3f}"

    lines = ["| game | questions (answerable) | base | full | leave-out |", "|---|---|---|---|---|"]
    rows = [*report["games"].items(), ("overall", report["overall"])]
    for name, row in rows:
        lines.append(f"| {name} | {row['questions']} ({row['answerable']}) | {cell(row['base'])} | "
                     f"{cell(row['full'])} | {cell(row['leave_out'])} |")
    return "\n".join(lines) + "\n\nhit@1 / MRR@10, hybrid mode.\n"
