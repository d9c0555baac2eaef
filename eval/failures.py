"""Why a question's record fails, in words, for the report's list of failures (eval/report.py)."""

from eval.metrics import abstained, first_relevant_rank, page_correct, routing_correct
from eval.record import QuestionRecord


def failures(record: QuestionRecord, k: int = 10) -> list[str]:
    """Why a record fails, in words for the report; empty when it passes every check."""
    reasons = []
    if record["answerable"]:
        if abstained(record):
            reasons.append("refus à tort")
        rank = first_relevant_rank(record["relevant"][:k])
        if rank is None:
            reasons.append(f"aucun passage pertinent dans le top {k}")
        elif rank > 1:
            reasons.append(f"premier passage pertinent au rang {rank}")
        if rank is not None and not page_correct(record):
            reasons.append("page du premier passage hors des pages attendues")
    elif not abstained(record):
        reasons.append("réponse donnée au lieu de s'abstenir")
    if record["game"] is None and not routing_correct(record):
        detected = record["detected_game"] or "aucun"
        reasons.append(f"routage : {detected} au lieu de {record['gold_game'] or 'aucun'}")
    return reasons
