"""The read-only /admin page: the questions log's report as one HTML page, every value escaped."""

from html import escape

STYLE = """body{font:15px/1.5 system-ui,sans-serif;margin:0 auto;max-width:60rem;padding:1rem;color:#1f2933}
h1{font-size:1.4rem}h2{font-size:1.1rem;margin-top:2rem}table{border-collapse:collapse;width:100%}
th,td{text-align:left;padding:.35rem .5rem;border-bottom:1px solid #d9e2ec;vertical-align:top}
td.n{text-align:right;font-variant-numeric:tabular-nums}.muted{color:#52606d}"""


def _pct(rate) -> str:
    return "–" if rate is None else f"{rate * 100:.0f} %"


def _table(caption: str, headers: list[str], rows: list[list[str]], numeric: set[int]) -> str:
    if not rows:
        return f"<h2>{escape(caption)}</h2><p class=muted>Aucune pour l'instant.</p>"
    head = "".join(f"<th scope=col>{escape(h)}</th>" for h in headers)
    body = "".join(
        "<tr>" + "".join(f"<td{' class=n' if i in numeric else ''}>{escape(str(c))}</td>" for i, c in enumerate(r))
        + "</tr>" for r in rows)
    return f"<h2>{escape(caption)}</h2><table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>"


def render_admin(report: dict) -> str:
    scope = f"{report['questions']} questions enregistrées"
    if report["since_days"] is not None:
        scope += f" sur les {report['since_days']} derniers jours"
    if report["game"]:
        scope += f", jeu {report['game']}"
    refused = [[g["count"], g["question"], ", ".join(g["games"]), " · ".join(g["variants"][:5])]
               for g in report["refused"]]
    down = [[t["asked_at"], t["game"], t["question"], ", ".join(map(str, t["pages"])) or "–", t["comment"] or ""]
            for t in report["thumbs_down"]]
    games = [[g["game"], g["questions"], _pct(g["found_rate"]), _pct(g["helpful_rate"]), g["feedback"]]
             for g in report["per_game"]]
    return (
        "<!doctype html><html lang=fr><head><meta charset=utf-8>"
        "<meta name=viewport content='width=device-width, initial-scale=1'><meta name=robots content=noindex>"
        f"<title>rulesqa · ce que les règles ne disent pas</title><style>{STYLE}</style></head><body><main>"
        f"<h1>Ce que les règles ne disent pas</h1><p class=muted>{escape(scope)}. Lecture seule.</p>"
        + _table("Questions sans réponse, les plus fréquentes", ["fois", "question", "jeux", "variantes"],
                 refused, {0})
        + _table("Réponses jugées inutiles", ["date", "jeu", "question", "pages", "commentaire"], down, set())
        + _table("Par jeu", ["jeu", "questions", "trouvées", "utiles", "avis"], games, {1, 2, 3, 4})
        + "</main></body></html>"
    )
