"""The "new games" split: the training corpus's validation games, never trained on, as a corpus folder and a gold
file (their questions whose labels the third writer found right), for `rulesqa eval --split new-games`."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

from eval.training_set import ROOT, load

SPLIT = "new-games"


def materialize(out: Path, root: Path = ROOT, split: str = "validation") -> tuple[Path, Path]:
    """(corpus folder, questions file) of one split's games ("validation": the new games; "train": those the
    model and the judge learn from) under `out`, rewritten when they changed."""
    out = Path(out)
    corpus, questions = out / "corpus", out / "questions.jsonl"
    games = load(root, split=split)
    if not games:
        raise ValueError(f"aucun jeu d'entraînement dans la partie {split!r}")
    if corpus.exists():
        shutil.rmtree(corpus)
    corpus.mkdir(parents=True)
    lines = []
    for game in games:
        shutil.copyfile(root / "games" / f"{game.entry.id}.md", corpus / f"{game.entry.id}.md")
        source = (root / "questions" / f"{game.entry.id}.jsonl").read_text("utf-8").splitlines()
        kept = {q.id for q in game.questions if game.verdicts.get(q.id, "ok") == "ok"}
        for raw in source:
            if raw.strip() and json.loads(raw)["id"] in kept:
                data = json.loads(raw)
                # A follow-up whose first turn was dropped is asked on its own.
                if data.get("previous") and data["previous"] not in kept:
                    continue
                lines.append(json.dumps(data, ensure_ascii=False))
    questions.write_text("\n".join(lines) + "\n", "utf-8")
    return corpus, questions
