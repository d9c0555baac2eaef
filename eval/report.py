"""Markdown report of an evaluation (eval.run.run_eval result), with its PNG plots.

Every table, heading and plot title names the split, so a number copied out of the report keeps
saying where it comes from.
"""

from pathlib import Path

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from eval.failures import failures
from eval.grouping import OFF_TOPIC

REPORT_NAME = "REPORT.md"
HIT_PLOT = "hit_at_k.png"
LATENCY_PLOT = "latency.png"
LABELS = {
    "hit@1": "hit@1",
    "hit@3": "hit@3",
    "mrr@10": "MRR@10",
    "page@1": "page@1",
    "abstain_precision": "précision abst.",
    "abstain_recall": "rappel abst.",
    "false_refusal": "faux refus",
    "routing": "routage",
    "set_coverage": "couverture ens.",
    "set_size": "taille ens.",
    "refusal_off_topic": "refus hors sujet",
    "refusal_other_game": "refus autre jeu",
    "refusal_not_in_rules": "refus hors règles",
    "refusal_reason": "bonne raison",
    "sure_precision": "précision sûr",
    "sure_rate": "part sûre",
    "one_tap": "en un geste",
    "game_kept": "jeu gardé",
    "outcome": "issue (réponse juste ou refus)",
    "latency_p50": "latence p50 (ms)",
    "latency_p95": "latence p95 (ms)",
}


def fmt(name: str, value) -> str:
    if value is None:
        return "n/a"
    if name.startswith("latency"):
        return f"{value:.1f}"
    return f"{value:.3f}"


def _cell(text: str) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def _table(header: list[str], rows: list[list[str]]) -> list[str]:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(_cell(c) for c in row) + " |" for row in rows]
    return lines


def _label(name: str) -> str:
    return LABELS.get(name, name)


def _overview(result: dict, split: str) -> list[str]:
    c = result["counts"]["overall"]
    return [
        f"# Évaluation de rulesqa — split `{split}`",
        "",
        f"Tous les chiffres de ce rapport viennent du split `{split}` : {c['questions']} questions, "
        f"dont {c['answerable']} avec réponse, {c['unanswerable']} sans réponse "
        f"({c['off_topic']} hors corpus) et {c['no_game']} posées sans jeu (routage). "
        f"Chaque question est posée avec k = {result['k']} passages dans chaque mode.",
        "",
        "Définitions des métriques : `eval/README.md`.",
    ]


def _retrieval_modes(result: dict) -> list[str]:
    """The modes run, without the variants (a default off, a reranker on), which only the tables show."""
    return [mode for mode in result["modes"] if mode not in result.get("variants", ())]


def _per_mode(result: dict, split: str) -> list[str]:
    names = result["metrics"]
    rows = [[f"`{mode}`"] + [fmt(n, result["results"][mode]["overall"][n]) for n in names] for mode in result["modes"]]
    return ["", f"## Par mode — split `{split}`", ""] + _table(["mode"] + [_label(n) for n in names], rows)


# The per-tag table: what each kind of question gets, in the hybrid run.
TAG_METRICS = ("hit@1", "hit@3", "one_tap", "sure_precision", "false_refusal", "abstain_recall", "routing",
               "game_kept")
TAG_LABELS = {
    "situation": "situation décrite", "players_words": "mots des joueurs", "typo": "fautes de frappe",
    "card": "fiche du jeu", "lowercase_game": "autre jeu en minuscules", "everyday_sense": "sens courant",
    "follow_up": "relance", "voice": "voix des joueurs (nouvelles questions)",
}


def _per_tag(result: dict, split: str) -> list[str]:
    tags = result.get("per_tag", {}).get("hybrid")
    if not tags:
        return []
    counts = {}
    for r in result["records"]["hybrid"]:
        for t in r.get("tags") or ():
            counts[t] = counts.get(t, 0) + 1
    rows = [[TAG_LABELS.get(t, t), str(counts[t])] + [fmt(n, values.get(n)) for n in TAG_METRICS]
            for t, values in tags.items()]
    return (["", f"## Par sorte de question (mode `hybrid`) — split `{split}`", "",
             "Une question compte dans chacune de ses étiquettes (`eval/README.md`).", ""]
            + _table(["sorte", "questions"] + [_label(n) for n in TAG_METRICS], rows))


def _per_game(result: dict, split: str) -> list[str]:
    names = result["metrics"]
    counts = result["counts"]["per_game"]
    out = ["", f"## Par jeu — split `{split}`"]
    for mode in _retrieval_modes(result):
        rows = [
            [game, str(counts[game]["questions"])] + [fmt(n, values[n]) for n in names]
            for game, values in result["results"][mode]["per_game"].items()
        ]
        out += ["", f"### Mode `{mode}` — split `{split}`", ""]
        out += _table(["jeu", "questions"] + [_label(n) for n in names], rows)
    return out


def _significance(result: dict, split: str) -> list[str]:
    sig = result["significance"]
    out = ["", f"## Test de significativité — split `{split}`", ""]
    if not sig["pairs"]:
        return out + ["Un seul mode évalué (ou aucune question avec réponse) : pas de comparaison."]
    out += [
        f"Tests appariés : `{sig['test']}` (ranx.compare) sur hit@1 et MRR@10 des questions avec réponse du "
        f"split `{split}`, et McNemar exact sur l'issue de chaque question (la bonne réponse en premier, ou le "
        f"refus d'une question sans réponse : `eval/paired.py`) ; différence significative si p ≤ {sig['max_p']}.",
        "",
    ]
    rows = [
        [f"`{p['a']}` vs `{p['b']}`", _label(p["metric"]), fmt(p["metric"], p["score_a"]),
         fmt(p["metric"], p["score_b"]),
         f"{p['better']} / {p['worse']}" if "better" in p else "",
         "n/a" if p["p_value"] is None else f"{p['p_value']:.4f}", "oui" if p["significant"] else "non"]
        for p in sig["pairs"]
    ]
    return out + _table(["modes", "métrique", "score A", "score B", "A mieux / B mieux", "p", "significatif"], rows)


def _leave_one_game_out(result: dict, split: str) -> list[str]:
    logo = result.get("leave_one_game_out")
    if not logo:
        return []
    out = ["", f"## Adaptation sans le jeu évalué — split `{split}`", "",
           "Pour chaque jeu, le modèle est adapté sans les paires de ce jeu, puis ses questions sont posées "
           "(mode hybride) : c'est ce qu'obtiendra un jeu ajouté demain. Comparé au modèle de base et à "
           "l'adaptation sur tout le corpus.", ""]
    variants = (("base", "base"), ("full", "adapté (tout)"), ("leave_out", "adapté (sans ce jeu)"))
    header = ["jeu", "questions"] + [f"{label} {metric}" for _, label in variants for metric in ("hit@1", "MRR@10")]
    rows = []
    for game, entry in [*logo["games"].items(), ("ensemble", logo["overall"])]:
        row = [game, str(entry["questions"])]
        for key, _ in variants:
            scores = entry.get(key) or {}
            row += [fmt("hit@1", scores.get("hit@1")), fmt("mrr@10", scores.get("mrr@10"))]
        rows.append(row)
    return out + _table(header, rows)


def _failures(result: dict, split: str) -> list[str]:
    out = ["", f"## Échecs — split `{split}`"]
    for mode in _retrieval_modes(result):
        failed = [(r, failures(r, result["k"])) for r in result["records"][mode]]
        failed = [(r, reasons) for r, reasons in failed if reasons]
        out += ["", f"### Mode `{mode}` — {len(failed)} question(s) en échec sur {len(result['records'][mode])}", ""]
        if not failed:
            out.append("Aucun échec.")
            continue
        rows = [[r["id"], r["gold_game"] or OFF_TOPIC, r["question"], " ; ".join(reasons)] for r, reasons in failed]
        out += _table(["id", "jeu", "question", "raisons"], rows)
    return out


def _figure(width: float = 6.4, height: float = 4.0) -> Figure:
    fig = Figure(figsize=(width, height), dpi=100)
    FigureCanvasAgg(fig)  # explicit Agg canvas: no display, no global pyplot state
    return fig


def plot_hit_curves(result: dict, path: Path, split: str) -> Path:
    fig = _figure()
    ax = fig.add_subplot()
    ks = list(range(1, result["k"] + 1))
    for mode in _retrieval_modes(result):
        curve = [v if v is not None else float("nan") for v in result["results"][mode]["hit_curve"]]
        ax.plot(ks, curve, marker="o", label=mode)
    ax.set_xlabel("k")
    ax.set_ylabel("hit@k")
    ax.set_xticks(ks)
    ax.set_ylim(0, 1.02)
    ax.grid(True, alpha=0.3)
    ax.legend()
    ax.set_title(f"hit@k par mode — split {split}")
    fig.tight_layout()
    fig.savefig(path)
    return path


def plot_latency(result: dict, path: Path, split: str) -> Path:
    fig = _figure()
    ax = fig.add_subplot()
    for mode in _retrieval_modes(result):
        ax.hist([r["latency_ms"] for r in result["records"][mode]], bins=20, alpha=0.5, label=mode)
    ax.set_xlabel("latence par question (ms)")
    ax.set_ylabel("questions")
    ax.legend()
    ax.set_title(f"Latence par question — split {split}")
    fig.tight_layout()
    fig.savefig(path)
    return path


def write_report(result: dict, out_dir: Path, split: str) -> Path:
    """Write REPORT.md and its plots into out_dir; returns the report's path."""
    if result.get("split") and result["split"] != split:
        # A report labelled with another split than its numbers would defeat its purpose.
        raise ValueError(f"le résultat vient du split {result['split']!r}, pas {split!r}")
    out_dir = Path(out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    plot_hit_curves(result, out_dir / HIT_PLOT, split)
    plot_latency(result, out_dir / LATENCY_PLOT, split)
    lines = _overview(result, split) + _per_mode(result, split) + _per_tag(result, split) + _per_game(result, split)
    lines += _significance(result, split) + _leave_one_game_out(result, split)
    lines += [
        "",
        f"## Courbes hit@k — split `{split}`",
        "",
        f"![hit@k par mode, split {split}]({HIT_PLOT})",
        "",
        f"## Latence — split `{split}`",
        "",
        f"![latence par question, split {split}]({LATENCY_PLOT})",
    ]
    lines += _failures(result, split)
    path = out_dir / REPORT_NAME
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path
