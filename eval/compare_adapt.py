"""Does adapting e5 to the corpus earn its place? The base model and the model adapted to the corpus each
index the corpus in a temporary folder and answer the same gold questions with their own calibration
(service/engine/data/calibration.json, per model family); a paired test on the answerable questions (ranx.compare,
the `fisher` randomisation test the eval report uses, eval/run.py) says whether the difference is more
than noise. `rulesqa eval --compare-adapt` runs it.

The rule (issue 20): adaptation is the default only if it wins significantly, p <= 0.05 on hit@1 or
MRR@10 in its favour, in the served (hybrid) mode. The dense mode is reported too: it shows the model
alone, without the lexical half of the fusion.
"""

from __future__ import annotations

from pathlib import Path

from eval import metrics as m
from eval.gold import GoldQuestion
from eval.run import SIGNIFICANCE_MAX_P, SIGNIFICANCE_TEST, ask_all, significance, split_label

MODES = ("hybrid", "dense")
DECIDING_MODE = "hybrid"
METRICS = ("hit@1", "mrr@10", "hit@3", "page@1", "false_refusal")
K = 10
SYSTEMS = ("base", "adapted")


def compare_adaptation(corpus_dir: Path, models_dir: Path, questions: list[GoldQuestion], workdir: Path,
                       threads: int, progress: bool = False) -> dict:
    """Index `corpus_dir` with the base and the adapted model under `workdir`, ask `questions` in MODES,
    and test the difference: metrics per system and mode, the paired tests, and the decision."""
    from indexer.model_for_index import corpus_embedder
    from indexer.build import build_index
    from service.runtime.answerers import build_answerer
    from service.runtime.settings import load_settings

    records: dict[str, dict[str, list[dict]]] = {}
    models = {}
    for name in SYSTEMS:
        embedder = corpus_embedder(corpus_dir, models_dir, threads=threads, adapt=name == "adapted", progress=progress)
        index = Path(workdir) / name
        build_index(corpus_dir, index, embedder, progress=False)
        # The calibration measured for this model's family (a fresh index has none of its own).
        answerer = build_answerer(load_settings(index_dir=index), embedder=embedder, reranker=None)
        models[name] = {"model_id": embedder.model_id, "calibration": answerer.calibration.source}
        records[name] = {mode: ask_all(answerer, questions, mode, K) for mode in MODES}
    return summarize(records, models, split_label(questions))


def summarize(records: dict[str, dict[str, list[dict]]], models: dict, split: str | None) -> dict:
    """The figures, tests and decision from each system's records per mode (the pure part, tested)."""
    result = {"split": split, "test": SIGNIFICANCE_TEST, "max_p": SIGNIFICANCE_MAX_P, "deciding_mode": DECIDING_MODE,
              "models": models, "modes": {}}
    for mode in MODES:
        by_system = {name: records[name][mode] for name in SYSTEMS}
        tests = significance(by_system)["pairs"]
        result["modes"][mode] = {
            "metrics": {name: m.evaluate(rs, METRICS) for name, rs in by_system.items()},
            "answerable": sum(r["answerable"] for r in by_system["base"]),
            "tests": [{"metric": t["metric"], "base": t["score_a"], "adapted": t["score_b"], "p_value": t["p_value"],
                       "significant": t["significant"]} for t in tests],
        }
    deciding = result["modes"][DECIDING_MODE]["tests"]
    result["adaptation_wins"] = any(t["significant"] and t["adapted"] > t["base"] for t in deciding)
    return result


def format_report(result: dict) -> str:
    """The comparison as Markdown: one table of figures and p-values per mode, then the decision."""
    lines = [f"Base vs adapted e5, split `{result['split']}`, paired `{result['test']}` test (ranx.compare) on the "
             f"answerable questions; significant if p <= {result['max_p']}.", ""]
    for name, info in result["models"].items():
        lines.append(f"- {name}: `{info['model_id']}` (calibration: {info['calibration']})")
    lines.append("")
    for mode, info in result["modes"].items():
        lines += [f"Mode `{mode}` ({info['answerable']} answerable questions):", "",
                  "| metric | base | adapted | p | significant |", "|---|---:|---:|---:|---|"]
        tested = {t["metric"]: t for t in info["tests"]}
        for metric in METRICS:
            base, adapted = info["metrics"]["base"][metric], info["metrics"]["adapted"][metric]
            test = tested.get(metric)
            p = "" if test is None or test["p_value"] is None else f"{test['p_value']:.4f}"
            sig = "" if test is None else ("yes" if test["significant"] else "no")
            lines.append(f"| {metric} | {_fmt(base)} | {_fmt(adapted)} | {p} | {sig} |")
        lines.append("")
    verdict = ("adaptation wins: it stays the default" if result["adaptation_wins"] else
               "adaptation does not win: the base model is the default, `rulesqa index --adapt` turns it on")
    lines.append(f"Decision ({result['deciding_mode']} mode, hit@1 or MRR@10): {verdict}.")
    return "\n".join(lines) + "\n"


def _fmt(value) -> str:
    return "–" if value is None else f"{value:.3f}"
