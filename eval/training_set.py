"""The training corpus (training/): invented games, their questions and the checkers' verdicts.

Layout, documented in training/README.md:
  training/games.jsonl            one line a game: id, title, mechanics, writers, split
  training/games/<id>.md          the rulebook, in the corpus format (corpus/README.md)
  training/questions/<id>.jsonl   its questions, in the gold format (eval/README.md)
  training/checks/<id>.jsonl      a third writer's verdict on each question's label

`check(root)` validates all of it and returns what it found; `python -m eval.training_set [root]` prints
it, one line a problem, and exits 1 when there is one.
"""

import json
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from eval.gold import GoldQuestion, load_questions, normalize
from indexer.corpus import Game, GameDoc, read_corpus, read_game
from indexer.errors import FileLineError
from indexer.passages import Passage, passages_of

ROOT = Path(__file__).resolve().parents[1] / "training"
CORPUS = Path(__file__).resolve().parents[1] / "corpus"
SPLITS = ("train", "validation")
MECHANICS = ("des", "stop-ou-encore", "draft", "pose-de-tuiles", "plis", "placement-d-ouvriers", "encheres",
             "cooperatif", "bluff", "temps-reel", "ambiance", "mots", "routes", "majorites", "deck-building")
VOICES = ("ado", "club", "parent", "non-natif", "veteran", "aine")
VERDICTS = ("ok", "wrong_span", "not_answered", "answerable", "unclear")
ENTRY_KEYS = ("id", "title", "mechanics", "author", "questions_by", "checked_by", "split")
QUESTIONS_PER_PASSAGE = 3
NOT_IN_RULES_PER_GAME = 5


@dataclass(frozen=True)
class Entry:
    id: str
    title: str
    mechanics: tuple[str, ...]
    author: str
    questions_by: str
    checked_by: str
    split: str


@dataclass
class TrainingGame:
    entry: Entry
    doc: GameDoc
    passages: list[Passage]
    questions: list[GoldQuestion] = field(default_factory=list)
    verdicts: dict[str, str] = field(default_factory=dict)

    def positives(self, question: GoldQuestion) -> list[Passage]:
        """The passages whose text holds one of the question's gold spans."""
        return [p for p in self.passages if question.is_relevant(p.game, p.text)]


def read_entries(root: Path) -> list[Entry]:
    entries = []
    for path in [root / "games.jsonl"] if (root / "games.jsonl").exists() else sorted(root.glob("entries-*.jsonl")):
        for number, raw in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if not raw.strip():
                continue
            data = json.loads(raw)
            missing = [k for k in ENTRY_KEYS if k not in data]
            if missing or set(data) - set(ENTRY_KEYS):
                raise FileLineError(path, number, f"clés attendues : {', '.join(ENTRY_KEYS)}")
            entries.append(Entry(**{**data, "mechanics": tuple(data["mechanics"])}))
    return entries


def load_game(root: Path, entry: Entry, with_questions: bool = True) -> TrainingGame:
    doc = read_game(root / "games" / f"{entry.id}.md")
    game = TrainingGame(entry, doc, passages_of(doc))
    questions = root / "questions" / f"{entry.id}.jsonl"
    if with_questions and questions.exists():
        game.questions = load_questions(questions)
    checks = root / "checks" / f"{entry.id}.jsonl"
    if checks.exists():
        for raw in checks.read_text(encoding="utf-8").splitlines():
            if raw.strip():
                verdict = json.loads(raw)
                game.verdicts[verdict["id"]] = verdict["verdict"]
    return game


def load(root: Path = ROOT, split: str | None = None) -> list[TrainingGame]:
    return [load_game(root, e) for e in read_entries(root) if split is None or e.split == split]


def _names(doc: GameDoc) -> set[str]:
    return {normalize(n).casefold() for n in (doc.game.id, doc.game.title, *doc.game.aliases)}


def _entry_problems(entry: Entry, doc: GameDoc) -> list[str]:
    problems = []
    if doc.game.id != entry.id or doc.game.title != entry.title:
        problems.append(f"games.jsonl dit {entry.id}/{entry.title}, le fichier {doc.game.id}/{doc.game.title}")
    problems += [f"mécanique inconnue {m!r}" for m in entry.mechanics if m not in MECHANICS]
    problems += [f"voix inconnue {v!r}" for v in (entry.author, entry.questions_by, entry.checked_by)
                 if v not in VOICES]
    if len({entry.author, entry.questions_by, entry.checked_by}) != 3:
        problems.append("auteur, auteur des questions et vérificateur doivent être trois voix différentes")
    if entry.split not in SPLITS:
        problems.append(f"split inconnu {entry.split!r}")
    return problems


def _verdict_problems(game: TrainingGame) -> list[str]:
    ids = {q.id for q in game.questions}
    problems = [f"vérification de {qid} : verdict inconnu {v!r} ({', '.join(VERDICTS)})"
                for qid, v in game.verdicts.items() if v not in VERDICTS]
    problems += [f"vérification d'une question inconnue : {qid}" for qid in game.verdicts if qid not in ids]
    if game.verdicts and ids - set(game.verdicts):
        problems.append(f"{len(ids - set(game.verdicts))} question(s) sans vérification, dont {sorted(ids - set(game.verdicts))[0]}")
    return problems


def _question_problems(game: TrainingGame) -> list[str]:
    problems = []
    covered: Counter[str] = Counter()
    for q in game.questions:
        if q.gold_game not in (None, game.entry.id) or (q.answerable and q.gold_game != game.entry.id):
            problems.append(f"{q.id}: gold_game {q.gold_game!r} n'est pas {game.entry.id!r}")
            continue
        if not q.answerable:
            continue
        hits = game.positives(q)
        if not hits:
            problems.append(f"{q.id}: aucun passage ne contient {list(q.gold_spans)}")
            continue
        pages = {page for p in hits for page in p.pages}
        if set(q.gold_pages) - pages:
            problems.append(f"{q.id}: gold_pages {list(q.gold_pages)} hors des pages des passages {sorted(pages)}")
        covered.update(p.id for p in hits)
    thin = [p for p in game.passages if not p.is_card and covered[p.id] < QUESTIONS_PER_PASSAGE]
    if game.questions and thin:
        problems.append(f"{len(thin)} passage(s) avec moins de {QUESTIONS_PER_PASSAGE} questions, dont "
                        f"ligne {thin[0].line} « {thin[0].text[:60]} »")
    refused = sum(1 for q in game.questions if q.refusal == "not_in_rules")
    if game.questions and refused < NOT_IN_RULES_PER_GAME:
        problems.append(f"{refused} question(s) not_in_rules (au moins {NOT_IN_RULES_PER_GAME})")
    return problems


def check(root: Path = ROOT, corpus: Path = CORPUS, only: set[str] | None = None) -> dict:
    """Every problem of the training corpus (of the games in `only`, when given), and its counts."""
    problems: list[str] = []
    served = {name for doc in read_corpus(corpus) for name in _names(doc)}
    names: dict[str, str] = {}
    ids: set[str] = set()
    counts = Counter()
    for entry in read_entries(root):
        if only is not None and entry.id not in only:
            continue
        where = f"{entry.id}:"
        try:
            game = load_game(root, entry)
        except (FileLineError, OSError, json.JSONDecodeError, KeyError) as exc:
            problems.append(f"{where} {exc}")
            continue
        problems += [f"{where} {p}" for p in
                     _entry_problems(entry, game.doc) + _question_problems(game) + _verdict_problems(game)]
        for name in _names(game.doc):
            if name in served:
                problems.append(f"{where} nom partagé avec corpus/ : {name!r}")
            if names.setdefault(name, entry.id) != entry.id:
                problems.append(f"{where} nom partagé avec {names[name]} : {name!r}")
        for q in game.questions:
            if q.id in ids:
                problems.append(f"{where} id de question en double {q.id!r}")
            ids.add(q.id)
        counts["games"] += 1
        counts[f"games_{entry.split}"] += 1
        counts["passages"] += sum(1 for p in game.passages if not p.is_card)
        counts["questions"] += len(game.questions)
        counts["checked"] += len(game.verdicts)
        counts["checked_ok"] += sum(1 for v in game.verdicts.values() if v == "ok")
    return {"problems": problems, "counts": dict(counts)}


def show_games(paths: list[str]) -> int:
    """A rulebook file's passages, one line each (its pages, section, start of text), for its writer."""
    for path in paths:
        try:
            passages = [p for p in passages_of(read_game(Path(path))) if not p.is_card]
        except FileLineError as exc:
            print(exc)
            return 1
        for p in passages:
            print(f"{p.line:4d} p.{','.join(map(str, p.pages)) or '-':6} [{p.section}] {p.text[:90].replace(chr(10), ' / ')}")
        print(f"{path}: {len(passages)} passages, pages {sorted({n for p in passages for n in p.pages})}")
    return 0


def review(game_id: str, root: Path = ROOT) -> int:
    """Each question of a game with the passage(s) its label points to, for the writer who checks the labels."""
    entry = next((e for e in read_entries(root) if e.id == game_id), None)
    if entry is None:
        print(f"jeu inconnu : {game_id}")
        return 1
    game = load_game(root, entry)
    for q in game.questions:
        print(f"=== {q.id} [{'réponse' if q.answerable else q.refusal}] {q.question}")
        if q.previous:
            print(f"    (relance de {q.previous})")
        for p in game.positives(q) if q.answerable else []:
            print(f"    -> p.{','.join(map(str, p.pages)) or '-'} [{p.section}] {p.text.replace(chr(10), ' / ')}")
    return 0


def main(argv: list[str]) -> int:
    if argv and argv[0] == "--games":
        return show_games(argv[1:])
    if argv and argv[0] == "--review":
        return review(argv[1])
    only = None
    if argv and argv[0] == "--game":
        only, argv = {argv[1]}, argv[2:]
    root = Path(argv[0]) if argv else ROOT
    result = check(root, only=only)
    for problem in result["problems"]:
        print(problem)
    print(json.dumps(result["counts"], ensure_ascii=False))
    return 1 if result["problems"] else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))


@dataclass(frozen=True)
class Example:
    """A question of the training corpus with the passage that answers it (what training reads)."""

    question: str  # as asked; a follow-up carries its previous question, as the service retrieves it
    passage: Passage
    game: Game
    author: str  # the voice of the rulebook


def examples(games: list[TrainingGame]) -> list[Example]:
    """Every answered question whose label the third writer found right, with its first answering passage."""
    out = []
    for game in games:
        asked = {q.id: q for q in game.questions}
        for q in game.questions:
            if not q.answerable or game.verdicts.get(q.id, "ok") != "ok":
                continue
            positives = game.positives(q)
            if not positives:
                continue
            text = f"{asked[q.previous].question}\n{q.question}" if q.previous in asked else q.question
            out.append(Example(text, positives[0], game.doc.game, game.entry.author))
    return out


def subset(games: list[TrainingGame], count: int | None = None, writers: int | None = None,
           seed: int = 0) -> list[TrainingGame]:
    """`count` games of the list, spread over the authors in turn (or over the first `writers` authors, in a
    seeded order, `count` split evenly between them): the learning curve's subsets."""
    import random

    rng = random.Random(seed)
    by_author: dict[str, list[TrainingGame]] = {}
    for game in sorted(games, key=lambda g: g.entry.id):
        by_author.setdefault(game.entry.author, []).append(game)
    authors = sorted(by_author)
    rng.shuffle(authors)
    for shelf in by_author.values():
        rng.shuffle(shelf)
    if writers is not None:
        authors = authors[:writers]
    count = count if count is not None else sum(len(by_author[a]) for a in authors)
    chosen: list[TrainingGame] = []
    while len(chosen) < count and any(by_author[a] for a in authors):
        for author in authors:
            if by_author[author] and len(chosen) < count:
                chosen.append(by_author[author].pop())
    return sorted(chosen, key=lambda g: g.entry.id)
