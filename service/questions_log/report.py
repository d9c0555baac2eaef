"""What the rules don't answer: the refused questions grouped by near-duplicates, the thumbs down, per-game
rates; and gold-set candidates for a person to label (never written into eval/questions/)."""

from __future__ import annotations

import json
import unicodedata
from collections import Counter
from pathlib import Path

import numpy as np

from service.questions_log.store import Store

# Cosine between two question vectors above which they count as the same question. Near-duplicates, not
# topics: with the adapted e5, paraphrases ("Combien coûte Karuba ?" / "Quel est le prix de Karuba ?") are
# at 0.96-0.98 while different questions about the same game reach 0.92 ("… coûte …" / "… jouer à 6 ?").
SAME_QUESTION = 0.95
NO_GAME = "(aucun)"


def _fold(text: str) -> str:
    text = unicodedata.normalize("NFKD", text.casefold())
    return " ".join("".join(c for c in text if c.isalnum() or c.isspace()).split())


def group_questions(questions: list[str], embedder=None, threshold: float = SAME_QUESTION) -> list[list[int]]:
    """Indices of `questions` grouped greedily: each joins the first group whose first question is within
    `threshold` cosine (e5 query vectors), else starts one. Without an embedder: same folded text."""
    if not questions:
        return []
    if embedder is None:
        keys: dict[str, list[int]] = {}
        for i, q in enumerate(questions):
            keys.setdefault(_fold(q), []).append(i)
        return list(keys.values())
    vectors = np.asarray(embedder.encode_queries(questions), dtype=np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True).clip(min=1e-12)
    heads: list[int] = []
    groups: list[list[int]] = []
    for i in range(len(questions)):
        if heads:
            sims = vectors[heads] @ vectors[i]
            best = int(np.argmax(sims))
            if sims[best] >= threshold:
                groups[best].append(i)
                continue
        heads.append(i)
        groups.append([i])
    return groups


def _game(row: dict) -> str:
    return row["game_routed"] or row["game_asked"] or NO_GAME


def _rate(part: int, whole: int) -> float | None:
    return round(part / whole, 3) if whole else None


def build_report(store: Store, embedder=None, since_days: int | None = None, game: str | None = None,
                 top: int = 20) -> dict:
    rows = store.rows(since_days, game)
    refused = [r for r in rows if not r["found"]]
    groups = []
    for members in group_questions([r["question"] for r in refused], embedder):
        items = [refused[i] for i in members]
        groups.append({
            "question": Counter(r["question"] for r in items).most_common(1)[0][0],
            "count": len(items),
            "games": sorted({_game(r) for r in items}),
            "reasons": dict(Counter(r["refusal_reason"] or "?" for r in items)),
            "variants": sorted({r["question"] for r in items}),
            "last_asked": max(r["asked_at"] for r in items).isoformat(timespec="seconds"),
        })
    groups.sort(key=lambda g: (-g["count"], g["question"]))
    thumbs_down = [{
        "ask_id": r["ask_id"], "asked_at": r["asked_at"].isoformat(timespec="seconds"), "question": r["question"],
        "game": _game(r), "found": r["found"], "passage_id": r["passage_id"], "pages": r["pages"] or [],
        "comment": r["comment"],
    } for r in rows if r["helpful"] is False]
    # A tap on a "Tu parles de… ?" choice confirms which passage answers the question: the pairs a later
    # adaptation or judge can learn from. "moved" when it is not the passage the answer first showed.
    confirmed = [{
        "ask_id": r["ask_id"], "asked_at": r["asked_at"].isoformat(timespec="seconds"), "question": r["question"],
        "game": _game(r), "passage_id": r["chosen_passage_id"], "shown_first": r["passage_id"],
        "moved": r["chosen_passage_id"] != r["passage_id"],
    } for r in rows if r.get("chosen_passage_id")]
    per_game = []
    for name in sorted({_game(r) for r in rows}):
        mine = [r for r in rows if _game(r) == name]
        rated = [r for r in mine if r["helpful"] is not None]
        per_game.append({
            "game": name, "questions": len(mine), "found_rate": _rate(sum(r["found"] for r in mine), len(mine)),
            "feedback": len(rated), "helpful_rate": _rate(sum(r["helpful"] for r in rated), len(rated)),
        })
    return {
        "since_days": since_days, "game": game, "questions": len(rows),
        "refused": groups[:top], "thumbs_down": thumbs_down[:top], "confirmed": confirmed, "per_game": per_game,
    }


def _pct(rate: float | None) -> str:
    return "–" if rate is None else f"{rate * 100:.0f} %"


def render_report(report: dict) -> str:
    """The report as text for a terminal, in French."""
    lines = [f"{report['questions']} questions enregistrées"
             + (f" sur {report['since_days']} jours" if report["since_days"] is not None else "")
             + (f", jeu {report['game']}" if report["game"] else "") + "."]
    lines += ["", "Questions sans réponse dans les règles (les plus fréquentes) :"]
    for g in report["refused"] or []:
        lines.append(f"  {g['count']:>4} × {g['question']}  [{', '.join(g['games'])}]")
    if not report["refused"]:
        lines.append("  aucune")
    lines += ["", "Réponses jugées inutiles :"]
    for t in report["thumbs_down"]:
        comment = f" — « {t['comment']} »" if t["comment"] else ""
        lines.append(f"  {t['asked_at']} [{t['game']}] {t['question']}{comment}")
    if not report["thumbs_down"]:
        lines.append("  aucune")
    lines += ["", "Choix confirmés (« Tu parles de… ? ») :"]
    for c in report.get("confirmed", []):
        moved = " (pas le premier proposé)" if c["moved"] else ""
        lines.append(f"  {c['asked_at']} [{c['game']}] {c['question']} → {c['passage_id']}{moved}")
    if not report.get("confirmed"):
        lines.append("  aucun")
    lines += ["", "Par jeu : questions, trouvées, utiles (parmi les avis)"]
    for g in report["per_game"]:
        lines.append(f"  {g['game']:<16} {g['questions']:>5}  {_pct(g['found_rate']):>6}  "
                     f"{_pct(g['helpful_rate']):>6} ({g['feedback']} avis)")
    return "\n".join(lines)


def candidates(store: Store, passages: dict | None = None, since_days: int | None = None,
               game: str | None = None) -> list[dict]:
    """Gold-set candidates (eval/README.md format) from the logged questions, each `needs_review: true`:
    the answerable/refusal fields are the system's guess, which a person confirms or corrects. Questions
    already answered and judged helpful are left out: they teach the eval nothing new."""
    out = []
    for row in reversed(store.rows(since_days, game)):  # oldest first: stable ids in a re-run
        chosen = row.get("chosen_passage_id")
        if row["found"] and row["helpful"] is True and not chosen:
            continue
        # A tapped choice is the player's own pick of the passage that answers: the candidate's top passage.
        shown = chosen or row["passage_id"]
        passage = (passages or {}).get(shown)
        pages = list(passage.pages) if chosen and passage is not None else list(row["pages"] or [])
        guess_answerable = bool(chosen) or (bool(row["found"]) and row["helpful"] is not False)
        reason = row["refusal_reason"] if row["refusal_reason"] in ("off_topic", "other_game", "not_in_rules") else None
        out.append({
            "id": f"c-{row['ask_id'][:12]}",
            "question": row["question"],
            "game": row["game_asked"],
            "gold_game": row["game_routed"],
            "answerable": guess_answerable,
            "refusal": None if guess_answerable else reason,
            "gold_spans": [],
            "gold_pages": pages if guess_answerable else [],
            "lang": "fr",
            "needs_review": True,
            "confirmed_by_player": bool(chosen),
            "top_passage": {"id": shown, "pages": pages,
                            "text": passage.text if passage is not None else None} if shown else None,
            "feedback": None if row["helpful"] is None else {"helpful": row["helpful"], "comment": row["comment"]},
            "note": f"journal {row['asked_at'].date().isoformat()}, client {row['client']}, "
                    f"refus {row['refusal_reason'] or '–'}",
        })
    return out


def write_candidates(items: list[dict], path: Path) -> Path:
    """JSONL, one candidate a line; written to a temporary file then renamed (never half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text("".join(json.dumps(c, ensure_ascii=False) + "\n" for c in items), encoding="utf-8")
    tmp.replace(path)
    return path
