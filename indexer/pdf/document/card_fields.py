"""What an imported rulebook says of its box, for the game card (indexer/game_card.py) and the lexique:

- `card_fields`: players, duration, age, author and year as a cover or box page prints them ("2 à 4
  joueurs", "Dès 8 ans", "30 min", "Un jeu de Rüdiger Dorn", "© 2015"), read on the pages without a printed
  number (the cover, the back) and the first and last numbered pages. They go into the header marked for
  review: read by patterns, they may be wrong, and a person checks them like the rest of the import.
- `component_nouns`: the nouns of the rulebook's component list ("Matériel : 36 plaquettes, 4 aventuriers"),
  from which `propose_lexique` suggests a `lexique:` entry per component that players name otherwise
  (from the generic lexicon's groups, which the caller gives; nothing here knows a game).
"""

from __future__ import annotations

import re

NUMBER = r"(\d{1,2}|un|une|deux|trois|quatre|cinq|six|sept|huit|neuf|dix)"
_PATTERNS = {
    "players": [re.compile(rf"(?i)(?:de\s+)?{NUMBER}\s*(?:à|a|-|–|—)\s*{NUMBER}\s+joueu(?:r|se)s?"),
                re.compile(rf"(?i)pour\s+{NUMBER}\s+joueu(?:r|se)s?")],
    "age": [re.compile(r"(?i)(?:dès|des|à partir de|a partir de)\s+(\d{1,2})\s*ans"),
            re.compile(r"(?i)\b(\d{1,2})\s*(?:ans\s*(?:et\s*)?\+|\+\s*ans)")],
    "duration": [re.compile(r"(?i)\b(\d{1,3})\s*(?:à|a|-|–|—)\s*(\d{1,3})\s*min(?:utes)?\b"),
                 re.compile(r"(?i)\b(?:environ\s+|env\.\s+)?(\d{1,3})\s*min(?:utes)?\b")],
    # The name on its line only (a capitalised word on the next line is not the author's).
    "author": [re.compile(r"(?:[Uu]n jeu de|[Aa]uteur[ \t]*:|[Cc]onçu par|[Ii]maginé par)[ \t]+"
                          r"([A-ZÀ-Þ][\w'’.-]+(?:[ \t]+(?:de[ \t]+|van[ \t]+|von[ \t]+)?[A-ZÀ-Þ][\w'’.-]+){0,3})")],
    # The year after "©", not a range's first ("© 2000-2005": a document's years, not the game's).
    "year": [re.compile(r"©\s*(?:[^\d\n]{0,40}?)((?:19|20)\d{2})\b(?!\s*[-–—/]\s*(?:19|20)?\d{2}\b)")],
}
COMPONENT_HEADING = re.compile(r"(?i)\b(mat[ée]riel|contenu|composants?|dans la bo[iî]te|éléments de jeu)\b")
# A counted noun: "36 tuiles", anywhere in a line (a list flattened into one paragraph), or "une pioche"
# opening a list item.
_COUNTED = re.compile(rf"(?i)(?:^\s*(?:[-–•]\s*)?{NUMBER}|(?<!\w)(\d{{1,3}}))\s+([a-zà-ÿœ][\w'’-]+)")


def _value(field: str, match: re.Match) -> str:
    groups = [g for g in match.groups() if g]
    if field == "players":
        return f"{groups[0]} à {groups[1]}" if len(groups) > 1 else groups[0]
    if field == "age":
        return f"{groups[0]} ans et +"
    if field == "duration":
        return f"{groups[0]} à {groups[1]} min" if len(groups) > 1 else f"{groups[0]} min"
    return groups[0].strip()


def card_fields(texts: list[str]) -> dict[str, str]:
    """The card fields the texts print, first found first, in the header's words: {"players": "2 à 4", ...}."""
    found: dict[str, str] = {}
    for text in texts:
        for field, patterns in _PATTERNS.items():
            if field in found:
                continue
            for pattern in patterns:
                match = pattern.search(text)
                if match:
                    found[field] = _value(field, match)
                    break
    return found


def _singular(word: str) -> str:
    word = word.lower().replace("’", "'")
    if word.endswith("eaux"):
        return word[:-1]
    return word[:-1] if len(word) > 2 and word.endswith(("s", "x")) else word


def component_nouns(blocks) -> list[str]:
    """The nouns counted in the component list (the lines under a "Matériel" heading, or after a
    "Matériel :" lead line), singular, in order, without duplicates."""
    nouns, inside, level = [], False, 0
    for block in blocks:
        if block.kind == "h":
            if inside and block.level <= level:
                break
            if COMPONENT_HEADING.search(block.text):
                inside, level = True, block.level
            continue
        if not inside and block.kind == "p" and COMPONENT_HEADING.search(block.text) and block.text.rstrip().endswith(":"):
            inside, level = True, 9
            continue
        if inside:
            for part in re.split(r"[,;]| et ", block.text):
                nouns += [_singular(match.group(3)) for match in _COUNTED.finditer(part)]
    return list(dict.fromkeys(nouns))


def propose_lexique(nouns: list[str], groups: list[list[str]]) -> tuple[str, list[str]]:
    """(`lexique:` value, nouns left to complete): each component noun in a group of the generic lexicon
    (`groups`) gets the group's other words as the players' words; the others are listed for a person."""
    entries, rest = [], []
    for noun in nouns:
        group = next((g for g in groups if noun in [w.lower() for w in g]), None)
        if group is None:
            rest.append(noun)
            continue
        others = [w for w in group if w.lower() != noun]
        if others:
            entries.append(f"{noun}: {', '.join(others)}")
    return "; ".join(entries), rest
