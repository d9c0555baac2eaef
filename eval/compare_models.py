"""Two served systems on the same questions, paired: each an index folder with its own model and calibration
(`rulesqa eval --compare-index DIR`: the served index against another, e.g. e5 taught rulebooks). Both are asked
in dense and hybrid mode; ranx's paired test on hit@1 and MRR@10 and McNemar's on each question's outcome
(eval/run.py significance) say whether the second is better, mode by mode. `pooled` puts the questions of several
splits together (test and new-games: `--split pooled`), for a decision that holds beyond one set of games."""

from __future__ import annotations

from eval import metrics as m
from eval.run import ask_all, significance, split_label

MODES = ("dense", "hybrid")
METRICS = ("hit@1", "hit@3", "mrr@10", "page@1", "false_refusal", "abstain_recall", "refusal_off_topic",
           "refusal_other_game", "refusal_not_in_rules", "routing", "one_tap")
K = 10
# The splits a model decision is pooled over: the four games' test questions and the never-trained new games.
POOLED = ("test", "new-games")


def compare(systems: dict, questions) -> dict:
    """`systems`: two answerers by label, the reference first."""
    records = {label: {mode: ask_all(answerer, questions, mode, K) for mode in MODES}
               for label, answerer in systems.items()}
    return _summary(records, split_label(questions))


def pooled(results: list[dict]) -> dict:
    """The comparisons of several splits (each `compare`'s, records kept) as one: their questions put together,
    the metrics and paired tests computed over all of them, each split's result kept under "splits"."""
    labels = results[0]["systems"]
    records = {label: {mode: [r for result in results for r in result["records"][label][mode]] for mode in MODES}
               for label in labels}
    out = _summary(records, "+".join(str(r["split"]) for r in results))
    out["splits"] = [{k: v for k, v in r.items() if k != "records"} for r in results]
    return out


def _summary(records: dict, split: str | None) -> dict:
    a, b = records
    out = {"split": split, "systems": [a, b], "modes": {}, "records": records}
    for mode in MODES:
        by_system = {f"{label} {mode}": records[label][mode] for label in records}
        tests = significance(by_system)["pairs"]
        out["modes"][mode] = {"metrics": {label: m.evaluate(records[label][mode], METRICS) for label in records},
                              "tests": [{k: t[k] for k in ("metric", "score_a", "score_b", "p_value", "significant")}
                                        | {k: t[k] for k in ("better", "worse") if k in t} for t in tests]}
    return out


def format_report(result: dict) -> str:
    parts = [format_report(split) for split in result.get("splits", [])]
    a, b = result["systems"]
    lines = [*parts, f"split {result['split']}: {a} against {b}", ""]
    for mode, part in result["modes"].items():
        lines += [f"{mode}", f"| metric | {a} | {b} |", "|---|---|---|"]
        for metric in METRICS:
            va, vb = (part["metrics"][s].get(metric) for s in (a, b))
            lines.append(f"| {metric} | {_f(va)} | {_f(vb)} |")
        lines += ["", f"| paired test | {a} | {b} | p | right for {a} only / {b} only |", "|---|---|---|---|---|"]
        for t in part["tests"]:
            moved = f"{t['better']} / {t['worse']}" if "better" in t else ""
            lines.append(f"| {t['metric']} | {t['score_a']:.3f} | {t['score_b']:.3f} | {t['p_value']:.3f} | {moved} |")
        lines.append("")
    return "\n".join(lines)


def _f(value) -> str:
    return "—" if value is None else f"{value:.3f}"
