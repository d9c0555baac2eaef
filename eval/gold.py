"""The gold question set: loading, validation, and the relevance judgment it defines.

Each line of eval/questions/<split>.jsonl is one question (format in eval/README.md). A bad line is a
GoldSetError whose message starts with FILE:LINE, so the person editing the set goes straight to it.
"""

import json
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from indexer.errors import FileLineError

QUESTIONS_DIR = Path(__file__).resolve().parent / "questions"
SPLITS = ("dev", "test")
LANGS = ("fr", "en")
REQUIRED = ("id", "question", "game", "gold_game", "answerable", "gold_spans", "gold_pages", "lang")
OPTIONAL = ("note", "refusal", "tags", "previous")
# Why an unanswerable question must be refused: not about board-game rules at all, about a game
# the corpus does not hold, or about a corpus game whose rules do not say.
REFUSALS = ("off_topic", "other_game", "not_in_rules")
# What a question is like, for per-category metrics (meanings in eval/README.md). A fixed set, so a
# misspelt tag fails instead of quietly making a category of one.
TAGS = ("situation", "players_words", "typo", "card", "lowercase_game", "everyday_sense", "follow_up", "voice")
# A tag that only makes sense for one refusal kind.
TAG_REFUSAL = {"lowercase_game": "other_game", "everyday_sense": "off_topic"}
ID = re.compile(r"^[a-z][a-z0-9_-]*$")
_APOSTROPHES = ("\u2019", "\u2018", "\u02bc")


class GoldSetError(FileLineError):
    """A gold-set file is unreadable or a line is malformed."""


@lru_cache(maxsize=1 << 16)
def normalize(text: str) -> str:
    """Spans are matched after this, so re-chunking or typographic quotes do not break the gold set. Cached:
    the training set's check matches every question against every passage of its game (a million calls)."""
    text = unicodedata.normalize("NFC", text)
    for apostrophe in _APOSTROPHES:  # str.replace, not translate with a dict: 10x faster on long passages
        text = text.replace(apostrophe, "'")
    return " ".join(text.split())


@dataclass(frozen=True)
class GoldQuestion:
    id: str
    question: str
    game: str | None
    gold_game: str | None
    answerable: bool
    gold_spans: tuple[str, ...]
    gold_pages: tuple[int, ...]
    lang: str
    note: str | None = None
    split: str | None = None
    source: str = ""
    refusal: str | None = None
    tags: tuple[str, ...] = ()
    # The id of the question this one follows up (the previous turn), in the same file, higher up.
    previous: str | None = None

    def is_relevant(self, game: str | None, text: str) -> bool:
        """A passage answers the question when it belongs to gold_game and contains a gold span."""
        if not self.answerable or game != self.gold_game:
            return False
        haystack = normalize(text)
        return any(normalize(span) in haystack for span in self.gold_spans)


def _check_types(data: dict, fail) -> None:
    unknown = sorted(set(data) - set(REQUIRED) - set(OPTIONAL))
    if unknown:
        fail(f"clé inconnue : {', '.join(unknown)}")
    missing = [key for key in REQUIRED if key not in data]
    if missing:
        fail(f"clé manquante : {', '.join(missing)}")
    if not isinstance(data["id"], str) or not ID.match(data["id"]):
        fail(f"id invalide : {data['id']!r} (minuscules, chiffres, - ou _)")
    if not isinstance(data["question"], str) or not data["question"].strip():
        fail("question vide")
    for key in ("game", "gold_game"):
        if data[key] is not None and not (isinstance(data[key], str) and data[key]):
            fail(f"{key} doit être un id de jeu ou null")
    if not isinstance(data["answerable"], bool):
        fail("answerable doit être true ou false")
    spans = data["gold_spans"]
    if not isinstance(spans, list) or not all(isinstance(s, str) and s.strip() for s in spans):
        fail("gold_spans doit être une liste de phrases non vides")
    pages = data["gold_pages"]
    # bool is an int subclass; a stray true in a page list is a typo, not page 1.
    if not isinstance(pages, list) or not all(isinstance(p, int) and not isinstance(p, bool) and p > 0 for p in pages):
        fail("gold_pages doit être une liste d'entiers positifs")
    if data["lang"] not in LANGS:
        fail(f"lang doit être l'une de : {', '.join(LANGS)}")
    if "note" in data and data["note"] is not None and not isinstance(data["note"], str):
        fail("note doit être un texte")
    if data.get("refusal") is not None and data["refusal"] not in REFUSALS:
        fail(f"refusal doit être l'une de : {', '.join(REFUSALS)} (ou null)")
    tags = data.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        fail("tags doit être une liste de textes")
    unknown_tags = [t for t in tags if t not in TAGS]
    if unknown_tags:
        fail(f"tag inconnu : {', '.join(unknown_tags)} (connus : {', '.join(TAGS)})")
    doubled = sorted({t for t in tags if tags.count(t) > 1})
    if doubled:
        fail(f"tag en double : {', '.join(doubled)}")
    previous = data.get("previous")
    if previous is not None and not (isinstance(previous, str) and ID.match(previous)):
        fail(f"previous doit être l'id d'une question (trouvé {previous!r})")


def _check_tags(data: dict, fail) -> None:
    tags, previous, refusal = data.get("tags", []), data.get("previous"), data.get("refusal")
    if previous is not None and "follow_up" not in tags:
        fail("une question avec previous porte le tag follow_up")
    if "follow_up" in tags and previous is None:
        fail("le tag follow_up demande previous (l'id de la question précédente)")
    if previous is not None and previous == data["id"]:
        fail("previous ne peut pas être la question elle-même")
    if previous is not None and data["game"] is not None:
        fail(f"une relance (previous) se pose avec game null, le jeu vient du tour précédent (trouvé {data['game']!r})")
    for tag, kind in TAG_REFUSAL.items():
        if tag in tags and refusal != kind:
            fail(f"le tag {tag} demande refusal {kind!r} (trouvé {refusal!r})")
    if "card" in tags and (data["gold_game"] is None or refusal not in (None, "not_in_rules")):
        fail("le tag card demande un gold_game et une question avec réponse ou refusal 'not_in_rules'")


def _check_consistency(data: dict, fail) -> None:
    refusal = data.get("refusal")
    if data["answerable"]:
        if data["gold_game"] is None:
            fail("une question avec réponse doit avoir un gold_game")
        if not data["gold_spans"]:
            fail("une question avec réponse doit avoir au moins un gold_span")
        if data["game"] not in (None, data["gold_game"]):
            fail(f"game {data['game']!r} diffère de gold_game {data['gold_game']!r}")
        if refusal is not None:
            fail(f"une question avec réponse n'a pas de refusal (trouvé {refusal!r})")
        return
    if data["gold_spans"] or data["gold_pages"]:
        fail("une question sans réponse n'a ni gold_spans ni gold_pages")
    if refusal is None:
        fail(f"une question sans réponse doit avoir un refusal : {', '.join(REFUSALS)}")
    if refusal == "not_in_rules" and data["gold_game"] is None:
        fail("refusal 'not_in_rules' demande un gold_game (le jeu du corpus dont les règles ne disent rien)")
    if refusal != "not_in_rules" and data["gold_game"] is not None:
        fail(f"refusal {refusal!r} demande gold_game null (trouvé {data['gold_game']!r})")


def parse_line(raw: str, path, number: int, split: str | None) -> GoldQuestion:
    def fail(message: str):
        raise GoldSetError(path, number, message)

    try:
        data = json.loads(raw)
    except json.JSONDecodeError as exc:
        fail(f"JSON invalide : {exc.msg} (colonne {exc.colno})")
    if not isinstance(data, dict):
        fail("chaque ligne doit être un objet JSON")
    _check_types(data, fail)
    _check_consistency(data, fail)
    _check_tags(data, fail)
    return GoldQuestion(
        id=data["id"],
        question=data["question"],
        game=data["game"],
        gold_game=data["gold_game"],
        answerable=data["answerable"],
        gold_spans=tuple(data["gold_spans"]),
        gold_pages=tuple(sorted(set(data["gold_pages"]))),
        lang=data["lang"],
        note=data.get("note"),
        split=split,
        source=f"{path}:{number}",
        refusal=data.get("refusal"),
        tags=tuple(data.get("tags", [])),
        previous=data.get("previous"),
    )


def _check_previous(question: GoldQuestion, earlier: dict[str, GoldQuestion], path, number: int) -> None:
    """A follow-up names a question higher up in the same file, and keeps its game when it has an answer."""
    if question.previous is None:
        return
    before = earlier.get(question.previous)
    if before is None:
        raise GoldSetError(path, number, f"previous {question.previous!r} inconnu : doit être l'id d'une question "
                                         "plus haut dans ce fichier")
    if question.answerable and question.gold_game != before.gold_game:
        raise GoldSetError(path, number, f"gold_game {question.gold_game!r} diffère de celui de la question "
                                         f"précédente {before.id!r} ({before.gold_game!r})")


def resolve(path_or_split: str | Path) -> tuple[Path, str | None]:
    """A split name maps to the shipped file; anything else is a path whose stem may name a split."""
    if isinstance(path_or_split, str) and path_or_split in SPLITS:
        return QUESTIONS_DIR / f"{path_or_split}.jsonl", path_or_split
    path = Path(path_or_split)
    return path, path.stem if path.stem in SPLITS else None


def load_questions(path_or_split: str | Path, split: str | None = None) -> list[GoldQuestion]:
    """Load and validate one gold file ("dev", "test" or a path, whose split `split` names). Raises GoldSetError on
    any bad line."""
    path, named = resolve(path_or_split)
    split = split or named
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise GoldSetError(path, 0, f"lecture impossible : {exc.strerror or exc}") from exc
    questions: list[GoldQuestion] = []
    seen: dict[str, int] = {}
    by_id: dict[str, GoldQuestion] = {}
    for number, raw in enumerate(lines, start=1):
        if not raw.strip():
            continue
        question = parse_line(raw, path, number, split)
        if question.id in seen:
            raise GoldSetError(path, number, f"id en double : {question.id!r} (déjà ligne {seen[question.id]})")
        _check_previous(question, by_id, path, number)
        seen[question.id] = number
        by_id[question.id] = question
        questions.append(question)
    if not questions:
        raise GoldSetError(path, 0, "aucune question")
    return questions
