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


def render_explained(explained: dict) -> str:
    """What the judge read: its probabilities, then each passage's features that are not zero."""
    judgement = explained.get("judgement")
    lines = ["Ce que le juge a lu :"]
    if judgement:
        lines.append(f"  probabilité que le premier passage réponde : {judgement['first']:.3f} ; "
                     f"qu'un des trois premiers réponde : {judgement['any_top']:.3f}")
    for p in explained["passages"]:
        values = " ".join(f"{name}={value:.3g}" for name, value in p["features"].items() if value)
        lines.append(f"  {p['id']} : {values}")
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


def json_text(data) -> str:
    """What --json prints: the object as it is, accents kept, indented."""
    import json

    return json.dumps(data, ensure_ascii=False, indent=2)


# The passage kinds (indexer.passages.KINDS) as a player reads them.
KIND_NAMES = {"rule": "règle", "example": "exemple", "row": "rangée de tableau", "term": "terme", "question": "question",
              "step": "étape", "reference": "référence", "meta": "méta", "caption": "légende", "card": "fiche"}


def render_passage(p) -> str:
    pages = "p. " + ", ".join(map(str, p.pages)) if p.pages else "sans page"
    return (f"[{p.id}] {p.game} · {p.section or '—'} · {pages} · {KIND_NAMES.get(p.kind, p.kind)}\n"
            "    " + p.text.replace("\n", "\n    "))


def render_build(result) -> str:
    """One line on a whole index built (indexer.build's or the shelf's result)."""
    stats, info = result.stats, result.manifest.corpus
    per_game = ", ".join(f"{g} {n}" for g, n in info.passages_per_game.items())
    return (f"{info.passages} passages ({per_game}) ; {stats.encoded} encodés, {stats.reused} réutilisés ; "
            f"{stats.seconds} s")


def render_game_update(result, removed: bool) -> str:
    """One line on one game added, replaced or removed (indexer.update_game's result)."""
    what = "retiré" if removed else f"{result.added} passages ({result.encoded} encodés)"
    return (f"{result.game} : {what} ; l'index compte {result.manifest.corpus.games} jeux, "
            f"{result.manifest.corpus.passages} passages ; {result.seconds} s")


def import_notes(result) -> list[str]:
    """What a person checks after `rulesqa import` (indexer.pdf's result), one line each, for stderr."""
    notes = []
    if result.reader == "glyphs":
        notes.append("rulesqa: lu sans poppler (pdftotext introuvable : make pdf-deps) : un livret mis en page "
                     "par un éditeur (InDesign…) se lit mieux avec")
    if result.numbering == "physical":
        notes.append("rulesqa: attention : aucun numéro de page imprimé n'a été trouvé ; les pages citées sont "
                     "leur position dans le PDF (en-tête « pages: physical ») : vérifiez-les sur le livret")
    if result.card:
        read = ", ".join(f"{k} « {v} »" for k, v in result.card.items())
        notes.append(f"rulesqa: à vérifier : fiche du jeu lue sur la couverture ou la boîte : {read}")
    if result.lexique_todo:
        notes.append(f"rulesqa: lexique à compléter dans l'en-tête : {', '.join(result.lexique_todo)}")
    if result.left_out:
        kinds = ", ".join(f"{kind} {n}" for kind, n in result.left_out.items())
        notes.append(f"rulesqa: laissé de côté (lignes de navigation, à vérifier dans le PDF) : {kinds}")
    if result.kinds:
        kinds = ", ".join(f"{KIND_NAMES.get(kind, kind)} {n}" for kind, n in result.kinds.items())
        fragments = f" ; dont {result.fragments} fragment(s) de moins de 5 mots, à vérifier" if result.fragments else ""
        notes.append(f"rulesqa: passages écrits : {kinds}{fragments}")
    skipped = f" ; pages sans numéro arabe ignorées : {', '.join(result.skipped)}" if result.skipped else ""
    ocr_note = f" ; {result.ocr_pages} page(s) lue(s) par OCR" if result.ocr_pages else ""
    notes.append(f"{result.blocks} blocs, pages {result.imported_pages[0]} à {result.imported_pages[-1]} "
                 f"(numérotation : {result.numbering}){ocr_note}{skipped}")
    return notes


# `rulesqa eval`: each workflow's outcome (eval/workflows.py) as (lines for stderr, the text for stdout).

def eval_output(workflow: str, outcome, as_json: bool) -> tuple[list[str], str]:
    return EVAL_OUTPUTS[workflow](outcome, as_json)


def _compared_adaptation(result: dict, as_json: bool) -> tuple[list[str], str]:
    from eval.compare_adapt import format_report

    return [], json_text(result) if as_json else format_report(result)


def _compared_indexes(result: dict, as_json: bool) -> tuple[list[str], str]:
    from eval.compare_models import format_report

    return [], json_text(result) if as_json else format_report(result)


def _calibrated(calibrated, as_json: bool) -> tuple[list[str], str]:
    """Text even with --json: the chosen calibration, its figures, the paired test, what was saved."""
    chosen = calibrated.chosen
    lines = [f"fusion : {chosen.fusion}", f"abstention : {chosen.abstention}", f"mesuré sur dev : {calibrated.measured}"]
    if calibrated.pairs is not None:
        tests = ", ".join(f"{p['metric']} {p['score_a']:.3f} -> {p['score_b']:.3f} (p = {p['p_value']:.3f})"
                          for p in calibrated.pairs)
        lines.append(f"test apparié sur dev, calibrage enregistré -> nouveau : {tests}")
    if calibrated.saved is None:
        lines.append("pas de gain significatif (p <= 0,05) sans perte : le calibrage enregistré est gardé "
                     "(inchangé ; retirez l'entrée du modèle de calibration.json dans l'index pour le remplacer)")
    else:
        lines.append(str(calibrated.saved))
    return [], "\n".join(lines)


def _measured(measured, as_json: bool) -> tuple[list[str], str]:
    notes = [f"{what} : {path}" for what, path in (("réponses", measured.outcomes), ("rapport", measured.report))
             if path is not None]
    result = measured.result
    if as_json:
        return notes, json_text({k: v for k, v in result.items() if k != "records"})
    text = render_metrics(result)
    if "leave_one_game_out" in result:
        from eval.leave_one_game_out import format_table

        text += "\n\nAdaptation sans le jeu évalué (hit@1 / MRR@10) :\n" + format_table(result["leave_one_game_out"])
    return notes, text


EVAL_OUTPUTS = {"compare-adapt": _compared_adaptation, "compare-index": _compared_indexes,
                "calibrate": _calibrated, "measure": _measured}


def render_families() -> str:
    """`rulesqa model list`: each model family, the default marked, with its licence."""
    from indexer.models import FAMILIES
    from indexer.models.registry import DEFAULT_FAMILY

    return "\n".join(f"{f.name}{' (défaut)' if f.name == DEFAULT_FAMILY else ''} — {f.summary} ; licence : {f.licence}"
                     for f in FAMILIES.values())


def render_training(info: dict) -> str:
    """One line on a training run (rulesqa.train's record)."""
    t, trained_on = info["training"], info["trained_on"]
    return (f"{trained_on['examples']} exemples de {len(trained_on['games'])} jeux ; {t['steps']} pas en "
            f"{t['seconds']} s, {t['peak_rss_mib']} Mio au plus")
