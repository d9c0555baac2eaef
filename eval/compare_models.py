"""Two served systems on the same questions, paired: each an index folder with its own model and calibration
(`rulesqa eval --compare-index DIR`: the served index against another, e.g. e5 taught rulebooks). Both are asked
in dense and hybrid mode; ranx's paired test on hit@1 and MRR@10 and McNemar's on each question's outcome
(eval/run.py significance) say whether the second is better, mode by mode."""

from __future__ import annotations

from eval import metrics as m
from eval.run import ask_all, significance, split_label

MODES = ("dense", "hybrid")
METRICS = ("hit@1", "hit@3", "mrr@10", "page@1", "false_refusal", "abstain_recall", "refusal_off_topic",
           "refusal_other_game", "refusal_not_in_rules", "routing", "one_tap")
K = 10


def compare(systems: dict, questions) -> dict:
    """`systems`: two answerers by label, the reference first."""
    (a, first), (b, second) = systems.items()
    records = {label: {mode: ask_all(answerer, questions, mode, K) for mode in MODES}
               for label, answerer in systems.items()}
    out = {"split": split_label(questions), "systems": [a, b], "modes": {}}
    for mode in MODES:
        by_system = {f"{label} {mode}": records[label][mode] for label in systems}
        tests = significance(by_system)["pairs"]
        out["modes"][mode] = {"metrics": {label: m.evaluate(records[label][mode], METRICS) for label in systems},
                              "tests": [{k: t[k] for k in ("metric", "score_a", "score_b", "p_value", "significant")}
                                        | {k: t[k] for k in ("better", "worse") if k in t} for t in tests]}
    return out


def format_report(result: dict) -> str:
    a, b = result["systems"]
    lines = [f"split {result['split']}: {a} against {b}", ""]
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
