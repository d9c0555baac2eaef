"""Train the learned judge (service/engine/judge/learned.py) from the engine's own retrieval on the training corpus.

    HF_HUB_OFFLINE=1 .venv/bin/python -m eval.train_judge [--data var/judge-data] [--out FILE]

Reads what eval/judge_data.py recorded (each question's first 20 candidates in the routed game, with their
scores and labels) for the 46 training games (fitting) and the eight validation games (choosing settings, never
dev or test), and writes one small JSON file: the ranker, a pairwise logistic model over each pair of a right and
and the answerability judge. The ranker is a network of one hidden layer scoring each candidate, trained listwise
(the softmax of the question's 20 scores against its right candidates, torch, at train time only); on the
validation games it put the right passage first more often than a pairwise linear model (0.532) and than
LightGBM's lambdarank (0.549 to 0.551), which also costs 158 MiB to import. The answerability judge is two logistic
models of whether the first passage, or one of the first three, answers the question. Seeded and deterministic.
Prints the validation figures the settings were chosen on.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from indexer.atomic import write_text_atomic
from indexer.passages import Passage
from service.engine.findings import Hit
from service.engine.judge.features import FEATURES, feature_rows
from service.engine.judge.learned import ANSWER_INPUTS, FORMAT, TOP, LearnedJudge, Linear, Network, judge_file
from service.engine.judge.ranker_policy import TRUSTED
from service.engine.question import Question

TOP_N = 20
# (hidden units, weight decay) tried for the ranker, chosen by validation hit@1.
RANKER_SETTINGS = ((16, 1e-4), (32, 1e-4), (64, 1e-4), (64, 1e-3))
EPOCHS, BATCH, LEARNING_RATE = 40, 256, 3e-3
JUDGE_CS = (0.01, 0.1, 1.0)
SEED = 2026


@dataclass
class Judged:
    """One recorded question: its candidates' features, labels, and whether it has an answer."""

    id: str
    rows: np.ndarray  # (n, len(FEATURES)), retrieval's order
    relevant: np.ndarray  # (n,) bool
    answerable: bool


def _game_names(games_dir: Path) -> dict:
    """The training games' Game values (their names are not content words of a question)."""
    from indexer.corpus import read_game

    return {path.stem: read_game(path).game for path in sorted(Path(games_dir).glob("*.md"))}


def read(path: Path, games: dict) -> list[Judged]:
    out = []
    for line in Path(path).read_text("utf-8").splitlines():
        if not line.strip():
            continue
        record = json.loads(line)
        candidates = record.get("candidates") or []
        if record.get("game") is None or not candidates:
            continue  # nothing routed: the judge is not asked
        hits = [Hit(Passage(c["id"], c["game"], c.get("section"), c.get("title"), tuple(c.get("pages") or ()),
                            c["text"], 0, c.get("kind") or "rule"), c["score"], c["dense"], c["lexical"])
                for c in candidates[:TOP_N]]
        rows = feature_rows(Question.of(record["question"]), hits, games.get(record["game"]))
        out.append(Judged(record["id"], rows, np.array([bool(c["relevant"]) for c in candidates[:TOP_N]]),
                          bool(record["answerable"])))
    return out


def _standardiser(rows: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    mean = rows.mean(axis=0)
    scale = rows.std(axis=0)
    return mean, np.where(scale > 1e-9, scale, 1.0)


def _lists(questions: list[Judged], mean, scale):
    """The answerable questions with a right candidate, as padded tensors: standardised rows, mask, targets."""
    import torch

    kept = [q for q in questions if q.answerable and q.relevant.any()]
    x = np.zeros((len(kept), TOP_N, len(mean)), np.float32)
    mask = np.zeros((len(kept), TOP_N), bool)
    target = np.zeros((len(kept), TOP_N), np.float32)
    for i, q in enumerate(kept):
        n = len(q.rows)
        x[i, :n], mask[i, :n] = (q.rows - mean) / scale, True
        target[i, :n] = q.relevant / q.relevant.sum()
    return torch.from_numpy(x), torch.from_numpy(mask), torch.from_numpy(target)


def _fit_network(lists, mean, scale, hidden: int, decay: float) -> Network:
    import torch

    torch.manual_seed(SEED)
    x, mask, target = lists
    net = torch.nn.Sequential(torch.nn.Linear(x.shape[-1], hidden), torch.nn.ReLU(), torch.nn.Linear(hidden, 1))
    optimiser = torch.optim.Adam(net.parameters(), lr=LEARNING_RATE, weight_decay=decay)
    for _ in range(EPOCHS):
        for batch in torch.randperm(len(x)).split(BATCH):
            scores = net(x[batch]).squeeze(-1).masked_fill(~mask[batch], -1e9)
            loss = -(target[batch] * torch.log_softmax(scores, -1)).sum(-1).mean()
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
    first, last = net[0], net[2]
    return Network(mean, scale, first.weight.detach().double().numpy(), first.bias.detach().double().numpy(),
                   last.weight.detach().double().numpy()[0], float(last.bias.detach()[0]))


def hit_at_1(questions: list[Judged], ranker: Network | None) -> float:
    """Share of answerable questions whose first candidate is right, in the ranker's order (retrieval's: None)."""
    answerable = [q for q in questions if q.answerable]
    right = 0
    for q in answerable:
        first = 0 if ranker is None else int(TRUSTED.order(ranker(q.rows))[0])
        right += bool(q.relevant[first])
    return right / len(answerable) if answerable else 0.0


def train_ranker(train: list[Judged], validation: list[Judged]) -> tuple[Network, dict]:
    import torch

    torch.set_num_threads(2)
    mean, scale = _standardiser(np.concatenate([q.rows for q in train]))
    lists = _lists(train, mean, scale)
    table, best = {}, None
    for hidden, decay in RANKER_SETTINGS:
        ranker = _fit_network(lists, mean, scale, hidden, decay)
        table[f"{hidden}/{decay:g}"] = hit = hit_at_1(validation, ranker)
        if best is None or hit > best[0] + 1e-9:
            best = (hit, ranker, f"{hidden}/{decay:g}")
    return best[1], {"hidden/decay": best[2], "validation_hit@1": {k: round(v, 4) for k, v in table.items()},
                     "validation_hit@1_retrieval": round(hit_at_1(validation, None), 4), "lists": len(lists[0])}


def answer_rows(questions: list[Judged], ranker: Network, judge: LearnedJudge) -> tuple[np.ndarray, np.ndarray,
                                                                                          np.ndarray]:
    """The answerability judge's inputs and its two labels (first right, one of the first TOP right)."""
    x, first, any_top = [], [], []
    for q in questions:
        order, scores = judge.order(q.rows)
        x.append(judge.answer_inputs(q.rows[order], scores[order]))
        labels = q.relevant[order]
        first.append(bool(labels[0]))
        any_top.append(bool(labels[:TOP].any()))
    return np.array(x), np.array(first, int), np.array(any_top, int)


def _log_loss(p: np.ndarray, y: np.ndarray) -> float:
    p = np.clip(p, 1e-6, 1 - 1e-6)
    return float(-np.mean(y * np.log(p) + (1 - y) * np.log(1 - p)))


def train_logistic(x: np.ndarray, y: np.ndarray, xv: np.ndarray, yv: np.ndarray) -> tuple[Linear, dict]:
    from sklearn.linear_model import LogisticRegression

    mean, scale = _standardiser(x)
    best = None
    table = {}
    for c in JUDGE_CS:
        model = LogisticRegression(C=c, max_iter=2000).fit((x - mean) / scale, y)
        linear = Linear(mean, scale, model.coef_[0].astype(np.float64), float(model.intercept_[0]))
        loss = _log_loss(1 / (1 + np.exp(-linear(xv))), yv)
        table[str(c)] = round(loss, 4)
        if best is None or loss < best[1] - 1e-9:
            best = (linear, loss, c)
    return best[0], {"C": best[2], "validation_log_loss": table}


def train(data: Path, games_dir: Path, family: str) -> dict:
    started = time.perf_counter()
    games = _game_names(games_dir)
    train_set, validation = read(data / "train.jsonl", games), read(data / "validation.jsonl", games)
    ranker, ranked = train_ranker(train_set, validation)
    placeholder = Linear(np.zeros(len(ANSWER_INPUTS)), np.ones(len(ANSWER_INPUTS)), np.zeros(len(ANSWER_INPUTS)), 0.0)
    shell = LearnedJudge(ranker, placeholder, placeholder, family, TOP_N)
    x, first, any_top = answer_rows(train_set, ranker, shell)
    xv, first_v, any_top_v = answer_rows(validation, ranker, shell)
    first_model, first_info = train_logistic(x, first, xv, first_v)
    any_model, any_info = train_logistic(x, any_top, xv, any_top_v)
    return {
        "format": FORMAT, "model_family": family, "top_n": TOP_N, "features": list(FEATURES),
        "answer_inputs": list(ANSWER_INPUTS), "ranker": ranker.as_dict(), "first": first_model.as_dict(),
        "any_top": any_model.as_dict(),
        "trained": {"train_questions": len(train_set), "validation_questions": len(validation), "ranker": ranked,
                    "first": first_info, "any_top": any_info, "seconds": round(time.perf_counter() - started, 1)},
    }


def main(argv: list[str] | None = None) -> int:
    from eval.training_set import ROOT

    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--data", type=Path, default=Path("var/judge-data"))
    parser.add_argument("--family", default="multilingual-e5-small")
    parser.add_argument("--out", type=Path, default=None, help="default: service/engine/data/judge-FAMILY.json")
    args = parser.parse_args(argv)
    if not (args.data / "train.jsonl").is_file():
        print(f"pas de données d'entraînement dans {args.data} : lancez `python -m eval.judge_data`", file=sys.stderr)
        return 2
    model = train(args.data, ROOT / "games", args.family)
    out = args.out or judge_file(args.family)
    write_text_atomic(out, json.dumps(model, ensure_ascii=False) + "\n")
    print(json.dumps(model["trained"], ensure_ascii=False, indent=1))
    print(f"juge écrit : {out} ({out.stat().st_size // 1024} kio)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
