"""What each imported block is, when its form does not say it (a table row, a question, a term does): written
as a `{kind}` marker in the corpus Markdown (corpus.MARKED_KINDS), so that ranking, the eval and a person can
tell a rule from the credits.

- a caption next to its table joins it (each row then carries it); a figure's caption is a `caption`;
- credits (authors, e-mail addresses, translators, a "Crédits" or "Auteurs" section) are `meta`;
- "Exemple : …" is an `example`;
- a menu path, a keyboard shortcut or a settings entry defined under it is a `reference`.
"""

import re

from indexer.pdf.document.blocks import Block
from indexer.pdf.text import CAPTION

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
CREDITS_HEADING = re.compile(r"(?i)^(?:\W*\d+(?:\.\d+)*\.?\s+)?(?:crédits?|auteurs?|autrices?|remerciements|"
                             r"contributeurs?|contributions|traduct\w+|colophon|équipe|à propos(?: de ce (?:document|"
                             r"manuel|livret))?|mentions)\b")
CREDIT_LINE = re.compile(r"(?i)^(?:(?:auteurs?|autrices?|illustrat\w*|traduct\w*|relecture|graphis\w*|mise en page|"
                         r"développement|conception|direction artistique|édition|éditeur|maintenu|version française|"
                         r"remerciements|rédaction|écrit|rédigé)\s*(?::|\bpar\b)|merci\s+à\b|(?:un|une)\s+(?:jeu|règle|"
                         r"livret|manuel|documentation)\s+(?:de|par)\s+[A-Z])")
EXAMPLE = re.compile(r"(?i)^(?:exemples?|ex\.)\s*(?:\d+\s*)?[:.–—-]")
MENU = re.compile(r"[→⇒➔►▸]|\b(?:Ctrl|Maj|Alt|Shift|Échap|Esc|Entrée|Tab)\s*\+|\b(?:menu|touche|raccourci)\b", re.I)
REFERENCE_HEADING = re.compile(r"(?i)\b(?:menus?|raccourcis|barre d'outils|réglages|paramètres|préférences)\b")
META_WORDS = 25  # a credit line is short


def mark_kinds(blocks: list[Block]) -> list[Block]:
    out: list[Block] = []
    credits_level = reference_level = 0  # inside a credits (a reference) section of this heading level
    for i, b in enumerate(blocks):
        if b.kind == "h":
            credits_level = _section(b, credits_level, CREDITS_HEADING.match(b.text))
            reference_level = _section(b, reference_level, REFERENCE_HEADING.search(b.text))
        elif b.kind == "p" and CAPTION.match(b.text):
            # Printed over its table, or under it (a table that has none over it yet).
            after = blocks[i + 1] if i + 1 < len(blocks) else None
            before = out[-1] if out else None
            table = (after if after is not None and after.kind == "table" else
                     before if before is not None and before.kind == "table" and not before.title else None)
            if table is not None:
                table.title, table.title_pages = b.text, list(b.pages)
                continue
        if b.kind in ("p", "li", "term", "row"):
            b.role = _role(b, credits_level > 0, reference_level > 0)
        out.append(b)
    return out


def _section(heading: Block, level: int, opens) -> int:
    if opens:
        return heading.level
    return 0 if level and heading.level <= level else level


def _role(b: Block, in_credits: bool, in_reference: bool) -> str | None:
    text = f"{b.title} {b.text}".strip()
    short = len(text.split()) <= META_WORDS
    if short and (in_credits or EMAIL.search(text) or CREDIT_LINE.match(text)):
        return "meta"
    if b.kind == "p" and CAPTION.match(b.text):
        return "caption"
    if EXAMPLE.match(b.text) or EXAMPLE.match(b.title):
        return "example"
    if b.kind == "term" and (MENU.search(b.title) or in_reference):
        return "reference"
    return None
