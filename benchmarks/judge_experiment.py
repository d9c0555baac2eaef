"""A judge that starts from the bi-encoder's own ranking (issue 29): a cross-encoder over the first K passages of
the served hybrid ranking, scoring each as retrieval's fused score plus a learned correction.

The correction is a head over the mean-pooled tokens of "query + passage" read together by e5-small (its
float32 twin, rank-16 adapters trained, everything else frozen); the head starts at zero, so the untrained judge
ranks exactly as retrieval does, and a listwise loss (softmax cross-entropy over the K candidates, the right
ones as targets) teaches it to move a right passage up. Trained on training games' questions (their own index,
answered by the model given), measured on the dev split and on the validation games: hit@1 of the first K
re-ordered against retrieval's, paired (McNemar), and the time a question costs. Prints figures; not a test.

    .venv/bin/python -m benchmarks.judge_experiment [--model rules-fr] [--k 4] [--questions 1200]
"""

from __future__ import annotations

import argparse
import random
import shutil
import sys
import tempfile
import time
from pathlib import Path

import numpy as np


REPO = Path(__file__).resolve().parents[1]


def candidate_lists(answerer, questions, k: int):
    """(question text, [(passage text, fused score)], [relevant?]) for questions whose first k hold a right
    passage and a wrong one (only these can teach or be changed by an order)."""
    out = []
    for q in questions:
        found = answerer.find(answerer_query(q, k))
        hits = found.hits[:k]
        relevant = [q.is_relevant(h.passage.game, h.passage.text) for h in hits]
        out.append((q, [(h.passage.text, h.score) for h in hits], relevant))
    return out


def answerer_query(q, k):
    from service.engine.question import Query

    return Query(q.question, q.game or q.gold_game, k, "hybrid")


class Judge:
    def __init__(self, float32_dir: Path, rank: int = 16, max_length: int = 192):
        import torch
        from peft import LoraConfig, inject_adapter_in_model
        from transformers import AutoModel, AutoTokenizer

        self.torch = torch
        self.tokenizer = AutoTokenizer.from_pretrained(str(float32_dir))
        self.encoder = AutoModel.from_pretrained(str(float32_dir))
        inject_adapter_in_model(LoraConfig(r=rank, lora_alpha=2 * rank, target_modules=["query", "key", "value",
                                                                                         "dense"]), self.encoder)
        for name, p in self.encoder.named_parameters():
            p.requires_grad_("lora_" in name)
        self.head = torch.nn.Linear(self.encoder.config.hidden_size, 1)
        torch.nn.init.zeros_(self.head.weight)
        torch.nn.init.zeros_(self.head.bias)
        self.max_length = max_length

    def corrections(self, question: str, texts: list[str]):
        batch = self.tokenizer(["query: " + question] * len(texts), ["passage: " + t for t in texts],
                               truncation=True, max_length=self.max_length, padding=True, return_tensors="pt")
        hidden = self.encoder(**batch).last_hidden_state
        mask = batch["attention_mask"].unsqueeze(-1).float()
        pooled = (hidden * mask).sum(1) / mask.sum(1)
        return self.head(pooled).squeeze(-1)

    def parameters(self):
        return [p for p in self.encoder.parameters() if p.requires_grad] + list(self.head.parameters())

    def order(self, question: str, candidates: list[tuple[str, float]]) -> list[int]:
        with self.torch.no_grad():
            extra = self.corrections(question, [t for t, _ in candidates]).numpy()
        scores = np.array([s for _, s in candidates]) + extra
        return sorted(range(len(candidates)), key=lambda i: (-scores[i], i))


def train(judge: Judge, lists, epochs: int, lr: float, seed: int) -> float:
    torch = judge.torch
    torch.manual_seed(seed)
    optimizer = torch.optim.AdamW(judge.parameters(), lr=lr)
    teach = [x for x in lists if any(x[2]) and not all(x[2])]
    rng = random.Random(seed)
    losses = []
    for _ in range(epochs):
        rng.shuffle(teach)
        for q, candidates, relevant in teach:
            base = torch.tensor([s for _, s in candidates], dtype=torch.float32)
            logits = (base + judge.corrections(q.question, [t for t, _ in candidates])) * 10.0
            target = torch.tensor(relevant, dtype=torch.float32)
            loss = -(torch.log_softmax(logits, 0) * (target / target.sum())).sum()
            optimizer.zero_grad()
            loss.backward()
            optimizer.step()
            losses.append(float(loss))
    return float(np.mean(losses[-200:])) if losses else float("nan")


def measure(judge: Judge, lists) -> dict:
    from eval.paired import mcnemar

    before, after, seconds = [], [], []
    for q, candidates, relevant in lists:
        t = time.perf_counter()
        order = judge.order(q.question, candidates)
        seconds.append(time.perf_counter() - t)
        before.append(bool(relevant and relevant[0]))
        after.append(bool(relevant and relevant[order[0]]))
    return {"questions": len(lists), "hit@1 retrieval": round(float(np.mean(before)), 3),
            "hit@1 judged": round(float(np.mean(after)), 3), "better": sum(a and not b for a, b in zip(after, before)),
            "worse": sum(b and not a for a, b in zip(after, before)), "p": round(mcnemar(before, after), 3),
            "judge p50 ms": round(1000 * float(np.median(seconds)), 1)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", default="rules-fr")
    parser.add_argument("--k", type=int, default=4)
    parser.add_argument("--questions", type=int, default=1200)
    parser.add_argument("--epochs", type=int, default=1)
    parser.add_argument("--lr", type=float, default=3e-4)
    args = parser.parse_args()
    import torch

    from eval.gold import load_questions
    from eval.new_games import materialize
    from eval.training_set import ROOT, load
    from indexer.build import build_index
    from indexer.models import get_family
    from service.runtime.answerers import build_answerer
    from service.runtime.settings import load_settings

    torch.set_num_threads(2)
    conf = load_settings(model=args.model)
    embedder = conf.embedder()
    work = Path(tempfile.mkdtemp(prefix="judge-"))
    try:
        # The training games as a corpus, their own index.
        corpus = work / "train-corpus"
        corpus.mkdir()
        games = load(split="train")
        for g in games:
            shutil.copyfile(ROOT / "games" / f"{g.entry.id}.md", corpus / f"{g.entry.id}.md")
        build_index(corpus, work / "train-index", embedder, progress=False)
        train_answerer = build_answerer(load_settings(index_dir=work / "train-index", cache_dir=None),
                                        embedder=embedder, judge=None)
        asked = [q for g in games for q in g.questions if q.answerable and g.verdicts.get(q.id) == "ok"
                 and q.previous is None]
        random.Random(0).shuffle(asked)
        started = time.perf_counter()
        lists = candidate_lists(train_answerer, asked[: args.questions], args.k)
        judge = Judge(get_family("e5-small").reference(conf.models_dir))
        loss = train(judge, lists, args.epochs, args.lr, seed=0)
        print(f"trained on {sum(1 for x in lists if any(x[2]) and not all(x[2]))} lists of {args.k} in "
              f"{time.perf_counter() - started:.0f} s, last loss {loss:.3f}", flush=True)
        # Dev: the corpus index answered by the same model; new games: their own index.
        build_index(REPO / "corpus", work / "dev-index", embedder, progress=False)
        dev_answerer = build_answerer(load_settings(index_dir=work / "dev-index", cache_dir=None), embedder=embedder,
                                      judge=None)
        dev = [q for q in load_questions("dev") if q.answerable and q.previous is None]
        print("dev", measure(judge, candidate_lists(dev_answerer, dev, args.k)), flush=True)
        ng_corpus, ng_questions = materialize(work / "new-games")
        build_index(ng_corpus, work / "ng-index", embedder, progress=False)
        ng_answerer = build_answerer(load_settings(index_dir=work / "ng-index", cache_dir=None), embedder=embedder,
                                     judge=None)
        ng = [q for q in load_questions(ng_questions) if q.answerable and q.previous is None]
        print("new games", measure(judge, candidate_lists(ng_answerer, ng, args.k)), flush=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
