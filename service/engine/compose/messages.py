"""The French sentences an answer says to the player: found, probable, or why not."""

from __future__ import annotations

from service.engine.decide.refusal import Reason

REFUSALS = {
    Reason.OFF_TOPIC: "Je réponds aux questions sur les règles des jeux de société ; celle-ci n'en est pas une.",
    Reason.OTHER_GAME: "Cette question semble porter sur un jeu que je ne connais pas ({names}). Je connais : {known}.",
    Reason.NOT_IN_RULES: "Les règles de {game} ne répondent pas à cette question : le livret n'en parle pas.",
    Reason.AMBIGUOUS_GAME: "Précisez le jeu : {choices} ?",
    Reason.WEAK_EVIDENCE: "Je ne trouve pas de réponse à cette question dans {where}. Voici les passages les plus "
                          "proches.",
}


def refusal_message(reason: Reason, game_title: str | None, names: tuple[str, ...], known_titles: list[str]) -> str:
    where = f"les règles de {game_title}" if game_title else "les règles des jeux que je connais"
    known = ", ".join(known_titles[:8]) + (" …" if len(known_titles) > 8 else "")
    choices = ", ".join(known_titles[:-1]) + " ou " + known_titles[-1] if len(known_titles) > 1 else known
    return REFUSALS[reason].format(game=game_title or "ce jeu", where=where, names=", ".join(names) or "?",
                                   known=known, choices=choices)


def card_refusal_message(missing: str, game_title: str) -> str:
    """`missing`: what the card does not give ("l'âge conseillé")."""
    return f"Ni les règles ni la fiche du jeu de {game_title} ne donnent {missing}."


def found_message(citation: str, probable: bool) -> str:
    if probable:
        return f"Réponse probable : {citation}. Tu parles de… ?"
    return f"Réponse trouvée : {citation}."
