"""Readable French text for the terminal, from the same objects --json prints."""


def render_answer(result: dict) -> str:
    lines = []
    if result["game"]:
        how = "détecté" if result["game_detected"] else "choisi"
        lines.append(f"Jeu : {result['game']['title']} ({how})")
    choices = result.get("choices") or []
    if result["found"]:
        answer = result["answer"]
        label = "Réponse" if result.get("sure") or not choices else "Réponse probable"
        lines += [f"{label} : « {answer['text']} »", f"Source : {answer['citation']}"]
        by_id = {p["id"]: p for p in result["passages"]}
        also = [by_id[i]["citation"] for i in answer["passage_ids"][1:] if i in by_id]
        if also and not choices:
            lines.append("Voir aussi : " + " ; ".join(also))
        if result.get("warning"):
            warning = result["warning"]
            lines.append(f"Erreur fréquente : {warning['text']} ({warning['citation']})")
    else:
        lines.append(result["message"])
    if choices:
        lines += ["", "Tu parles de… ?"]
        lines += [f"  {i}. {c['label']} ({c['short_citation'] or c['citation']})" for i, c in enumerate(choices, 1)]
    if result["passages"]:
        lines.append("")
        lines.append("Passages :")
    for i, p in enumerate(result["passages"], 1):
        where = f"p. {', '.join(map(str, p['pages']))}" if p["pages"] else (p["section"] or "")
        lines.append(f"{i:2d}. [{p['game']} · {where}] " + p["text"].replace("\n", " — "))
    return "\n".join(lines)


def render_metrics(result: dict) -> str:
    names = result["metrics"]
    lines = [f"split : {result['split']}  ({result['counts']['overall']})", ""]
    widths = [max(10, len(m) + 2) for m in result["modes"]]
    lines.append("métrique".ljust(20) + "".join(m.rjust(w) for m, w in zip(result["modes"], widths)))
    for name in names:
        cells = []
        for m, w in zip(result["modes"], widths):
            value = result["results"][m]["overall"].get(name)
            cells.append(("—" if value is None else f"{value:.3f}" if value < 10 else f"{value:.1f}").rjust(w))
        lines.append(name.ljust(20) + "".join(cells))
    return "\n".join(lines)
