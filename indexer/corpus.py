"""Read and validate corpus files: a metadata header, then the rule text structured by headings.

The format is documented in corpus/README.md. Every problem is a CorpusError whose message starts
with FILE:LINE, so that a person editing a rulebook file can go straight to the faulty line.
"""

import re
from dataclasses import dataclass, field
from pathlib import Path

from indexer.errors import CorpusError
from indexer.page_refs import PageRefError, extract_pages

GAME_ID = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
TEXT_KEYS = ("title", "author", "publisher", "players", "duration", "age", "expansions", "rules", "updated")
# Written by `rulesqa import` (indexer/pdf): the PDF beside the file, how pages were numbered, OCR used.
SOURCE_KEYS = ("source", "pages", "ocr")
PAGE_NUMBERING = ("labels", "printed", "physical")
KNOWN_KEYS = ("id", "aliases", "year", "lexique", *TEXT_KEYS, *SOURCE_KEYS)
HEADING = re.compile(r"^(#{1,3})\s+(\S.*)$")
BULLET = re.compile(r"^- (?:\*\*(?P<title>[^*]+)\*\*\s+)?(?P<text>\S.*)$")
QUESTION = re.compile(r"^Q:\s*(?P<question>\S.*)$")
TABLE_ROW = re.compile(r"^\|.*\|$")
TABLE_RULE = re.compile(r"^\|(:?-+:?\|)+$")
# What a passage is, when its form does not say it (a table row, a `Q:` question, a bullet's term): a marker
# at the end of its line, after its pages, written by `rulesqa import` and editable by hand ("… (p. 2) {meta}").
MARKED_KINDS = ("rule", "example", "term", "step", "reference", "meta", "caption")
KIND_MARKER = re.compile(r"\s*\{(" + "|".join(MARKED_KINDS) + r")\}$")


@dataclass(frozen=True)
class Game:
    id: str
    title: str
    aliases: tuple[str, ...] = ()
    author: str | None = None
    publisher: str | None = None
    year: int | None = None
    players: str | None = None
    duration: str | None = None
    age: str | None = None
    expansions: str | None = None
    rules: str | None = None
    updated: str | None = None
    source: str | None = None  # the rulebook PDF, a file name in the corpus folder
    pages: str | None = None  # labels | printed | physical
    ocr: str | None = None
    # The game's own names as players say them: (rulebook word, players' words), from `lexique:`.
    lexicon: tuple[tuple[str, tuple[str, ...]], ...] = ()
    path: str = ""


@dataclass(frozen=True)
class Line:
    """One line of rule text, its page references already taken out."""

    number: int
    text: str
    pages: tuple[int, ...]
    kind: str | None = None  # its `{kind}` marker, None without one


@dataclass(frozen=True)
class Block:
    """Lines between blank lines, under the nearest heading.

    kind is "qa" (a question line and its answer), "bullets" (only bullet lines), "table" (a Markdown
    table: each line is one row, its cells written out with their column's header) or "text".
    For "qa", title is the question; for bullets, each entry of items is (title or None, line); for a table,
    caption is the line printed over it ("Tableau 2 : Bonus par continent"), which each row carries.
    """

    kind: str
    section: str | None
    lines: tuple[Line, ...]
    title: str | None = None
    items: tuple[tuple[str | None, Line], ...] = ()
    caption: Line | None = None


@dataclass
class GameDoc:
    game: Game
    blocks: list[Block] = field(default_factory=list)


def _read_text(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise CorpusError(path, 1, f"le fichier n'est pas en UTF-8 ({exc.reason})") from None
    except OSError as exc:
        raise CorpusError(path, 1, f"fichier illisible ({exc.strerror})") from None
    if not text.strip():
        raise CorpusError(path, 1, "fichier vide")
    return text.lstrip("\ufeff")


def _parse_header(path: Path, lines: list[str]) -> tuple[Game, int]:
    """Parse the `---` delimited header; return the game and the index of the first body line."""
    first = next(i for i, line in enumerate(lines) if line.strip())
    if lines[first].strip() != "---":
        raise CorpusError(path, first + 1, "en-tête attendu : le fichier doit commencer par une ligne « --- »")
    values: dict[str, str] = {}
    where: dict[str, int] = {}
    for i in range(first + 1, len(lines)):
        raw = lines[i].strip()
        number = i + 1
        if raw == "---":
            break
        if not raw or raw.startswith("#"):
            continue
        key, sep, value = raw.partition(":")
        key, value = key.strip(), value.strip()
        if not sep or not key:
            raise CorpusError(path, number, f"ligne d'en-tête illisible « {raw} » (attendu : clé: valeur)")
        if key not in KNOWN_KEYS:
            raise CorpusError(path, number, f"clé inconnue « {key} » (clés admises : {', '.join(KNOWN_KEYS)})")
        if key in values:
            raise CorpusError(path, number, f"clé « {key} » répétée (déjà ligne {where[key]})")
        if not value:
            raise CorpusError(path, number, f"valeur vide pour « {key} »")
        values[key], where[key] = value, number
    else:
        raise CorpusError(path, first + 1, "en-tête non fermé : ligne « --- » de fin manquante")
    body_start = i + 1

    if "id" not in values:
        raise CorpusError(path, first + 1, "clé « id » manquante dans l'en-tête")
    if not GAME_ID.match(values["id"]):
        raise CorpusError(path, where["id"], f"id « {values['id']} » invalide (minuscules, chiffres et tirets)")
    if "title" not in values:
        raise CorpusError(path, first + 1, "clé « title » manquante dans l'en-tête")
    year = None
    if "year" in values:
        if not re.fullmatch(r"\d{4}", values["year"]):
            raise CorpusError(path, where["year"], f"année « {values['year']} » invalide (quatre chiffres)")
        year = int(values["year"])
    if "source" in values and (Path(values["source"]).name != values["source"]
                               or not values["source"].lower().endswith(".pdf")):
        raise CorpusError(path, where["source"], f"source « {values['source']} » invalide (un fichier .pdf du corpus)")
    if "pages" in values and values["pages"] not in PAGE_NUMBERING:
        raise CorpusError(path, where["pages"], f"pages « {values['pages']} » invalide ({', '.join(PAGE_NUMBERING)})")
    aliases = tuple(a.strip() for a in values.get("aliases", "").split(",") if a.strip())
    lexicon = _parse_lexicon(path, where.get("lexique", 0), values["lexique"]) if "lexique" in values else ()
    game = Game(
        id=values["id"],
        aliases=aliases,
        lexicon=lexicon,
        year=year,
        path=str(path),
        **{key: values.get(key) for key in (*TEXT_KEYS, *SOURCE_KEYS)},
    )
    return game, body_start


def _parse_lexicon(path: Path, number: int, value: str) -> tuple[tuple[str, tuple[str, ...]], ...]:
    """`bonze: pion neutre, grimpeur; voie: colonne` -> (("bonze", ("pion neutre", "grimpeur")), ("voie", ("colonne",)))."""
    entries = []
    for part in (p.strip() for p in value.split(";")):
        if not part:
            continue
        word, sep, synonyms = part.partition(":")
        players = tuple(s.strip() for s in synonyms.split(",") if s.strip())
        if not sep or not word.strip() or not players:
            raise CorpusError(path, number, f"lexique illisible « {part} » (attendu : mot du livret: mot du joueur, "
                                            "autre mot ; mot suivant: …)")
        entries.append((word.strip(), players))
    return tuple(entries)


def _clean_line(path: Path, number: int, text: str) -> Line:
    marker = KIND_MARKER.search(text)
    if marker:
        text = text[:marker.start()]
    try:
        clean, pages = extract_pages(text)
    except PageRefError as exc:
        raise CorpusError(path, number, str(exc)) from None
    return Line(number, clean, tuple(pages), marker.group(1) if marker else None)


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in row.strip()[1:-1].split("|")]


def row_text(header: list[str], cells: list[str]) -> str:
    """A table row as one line that keeps every cell in order, each after its column's header:
    "Continent : Europe ; Bonus : 5". An empty header gives the cell alone; an empty cell is left out."""
    parts = [f"{head} : {cell}" if head else cell for head, cell in zip(header, cells) if cell]
    return " ; ".join(parts)


def _make_table(path: Path, section: str | None, raw: list[tuple[int, str]], caption: Line | None = None) -> Block:
    """`| header | … |`, `|---|…|`, then one row a line; a row's page reference may follow its last `|`."""
    if len(raw) < 3 or not TABLE_RULE.match(raw[1][1].replace(" ", "")):
        raise CorpusError(path, raw[0][0], "tableau illisible : une ligne d'en-tête, une ligne « |---|---| », "
                                           "puis une ligne par rangée")
    header = _cells(raw[0][1])
    rows = []
    for number, text in raw[2:]:
        line = _clean_line(path, number, text)
        if not TABLE_ROW.match(line.text):
            raise CorpusError(path, number, "rangée de tableau illisible : elle commence et finit par « | »")
        cells = _cells(line.text)
        if len(cells) != len(header):
            raise CorpusError(path, number, f"rangée de {len(cells)} cellules dans un tableau de {len(header)} "
                                            "colonnes")
        rows.append(Line(number, row_text(header, cells), line.pages))
    return Block("table", section, tuple(rows), caption=caption)


def _make_block(path: Path, section: str | None, raw: list[tuple[int, str]]) -> Block:
    number, first = raw[0]
    if first.startswith("|"):
        return _make_table(path, section, raw)
    if len(raw) > 1 and raw[1][1].startswith("|") and not first.startswith(("Q:", "- ")):
        return _make_table(path, section, raw[1:], _clean_line(path, number, first))  # a caption over its table
    question = QUESTION.match(first)
    if question:
        if len(raw) < 2:
            raise CorpusError(path, number, "question sans réponse : la réponse suit la ligne « Q: » sans ligne vide")
        answer = tuple(_clean_line(path, n, t) for n, t in raw[1:])
        q_line = _clean_line(path, number, question.group("question"))
        return Block("qa", section, (q_line, *answer), title=q_line.text)
    bullets = [BULLET.match(t) for _, t in raw]
    if all(bullets):
        items = tuple(
            (m.group("title"), _clean_line(path, n, m.group("text"))) for (n, _), m in zip(raw, bullets)
        )
        return Block("bullets", section, tuple(line for _, line in items), items=items)
    return Block("text", section, tuple(_clean_line(path, n, t) for n, t in raw))


def read_game(path: Path) -> GameDoc:
    path = Path(path)
    lines = _read_text(path).splitlines()
    game, start = _parse_header(path, lines)
    doc = GameDoc(game)
    section: str | None = None
    pending: list[tuple[int, str]] = []

    def flush():
        if pending:
            doc.blocks.append(_make_block(path, section, pending))
            pending.clear()

    for i in range(start, len(lines)):
        text = lines[i].rstrip()
        heading = HEADING.match(text)
        if heading:
            flush()
            section = _clean_line(path, i + 1, heading.group(2)).text
        elif not text.strip():
            flush()
        else:
            pending.append((i + 1, text.strip()))
    flush()
    if not doc.blocks:
        raise CorpusError(path, len(lines), "aucun texte de règle après l'en-tête")
    return doc


def corpus_files(directory: Path) -> list[Path]:
    directory = Path(directory)
    if not directory.is_dir():
        raise CorpusError(directory, 1, "dossier de corpus introuvable")
    files = sorted(p for p in directory.glob("*.md") if p.name.lower() != "readme.md")
    if not files:
        raise CorpusError(directory, 1, "aucun fichier de jeu (*.md) dans ce dossier")
    return files


def read_corpus(directory: Path) -> list[GameDoc]:
    """Every game file of the folder, in id order; two files may not declare the same id."""
    docs: dict[str, GameDoc] = {}
    for path in corpus_files(directory):
        doc = read_game(path)
        if doc.game.id in docs:
            line = _id_line(path)
            raise CorpusError(path, line, f"id « {doc.game.id} » déjà utilisé par {docs[doc.game.id].game.path}")
        docs[doc.game.id] = doc
    return [docs[key] for key in sorted(docs)]


def _id_line(path: Path) -> int:
    for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        if line.strip().startswith("id:"):
            return number
    return 1
