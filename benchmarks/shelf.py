"""A synthetic shelf of look-alike games, generated from the corpus, for the scale benchmarks (not data).

Each game recombines the corpus's own sentences (its section headings included) around a "source" game,
with its components renamed ("aventuriers" -> "pirates"), its numbers changed and an invented title, so
games resemble each other the way real rulebooks do: they all speak of "dés", "cartes", "fin de partie".
Some titles carry an article ("Le …") or a variant suffix ("… Junior", a real source of confusion), and
some an English alias. `HashingEmbedder` gives vectors without the model (the benchmarks say when).

    python -m benchmarks.shelf --games 100 --out /tmp/shelf   # writes /tmp/shelf/*.md
"""

from __future__ import annotations

import argparse
import hashlib
import random
import re
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

import numpy as np

from indexer.analysis import analyze
from indexer.passages import load_passages

REPO = Path(__file__).resolve().parents[1]
# Invented titles: 60 syllables, 2 to 4 of them. Real titles are words of a large vocabulary; a smaller
# syllable set makes titles one letter apart far more often than a real shelf does.
SYLLABLES = ["ka", "ru", "bo", "ti", "zen", "mar", "lo", "vi", "dra", "pu", "nor", "sel", "qua", "fi", "gor",
             "la", "mi", "tos", "ban", "ke", "ri", "sa", "vel", "dun", "or", "pi", "zo", "tra", "mu", "nel",
             "cas", "son", "tan", "ix", "pen", "dor", "lys", "gra", "hel", "jun", "kor", "mel", "nip", "ost",
             "pla", "rex", "sko", "tur", "ul", "vex", "wen", "yak", "zar", "bri", "cle", "fro", "glu", "ith",
             "mak", "ro"]
ARTICLES = ["Le", "La", "Les"]
SUFFIXES = ["Junior", "Duel", "Express", "Royal", "des Sables", "Deluxe"]
ENGLISH = ["Quest", "Island", "Rush", "Tower", "Legends", "Kingdom", "Dice", "Run"]
# Component words of the corpus and what a look-alike game may call them instead (plurals follow).
COMPONENTS = {
    "aventurier": ["explorateur", "pirate", "chevalier", "marchand", "robot"],
    "pépite": ["gemme", "perle", "étoile", "pièce d'ambre"],
    "cristal": ["rubis", "saphir", "fossile"],
    "temple": ["phare", "château", "donjon", "oasis"],
    "bonze": ["grimpeur", "alpiniste", "sherpa"],
    "oiseau": ["poisson", "insecte", "papillon"],
    "coureur": ["nageur", "cavalier", "pilote"],
    "plaquette": ["tuile", "carte chemin", "dalle"],
}
QUESTIONS = [
    "combien de cartes on pioche au début ?", "qui commence la partie ?", "comment se termine la partie ?",
    "on peut relancer les dés combien de fois ?", "comment on compte les points ?",
    "que se passe-t-il en cas d'égalité ?", "on joue à combien de joueurs ?", "la mise en place, c'est quoi ?",
]
TEMPLATES = ["Dans {t}, {q}", "{t} : {q}", "À {t}, {q}", "{q} (jeu : {t})", "question sur {t} : {q}"]


@dataclass(frozen=True)
class ShelfGame:
    id: str
    title: str
    aliases: tuple[str, ...]
    source: str  # the corpus game whose sentences dominate


def _title(rng: random.Random, taken: set[str]) -> tuple[str, str]:
    """(title, its invented name): the name is new to the shelf, as a real game's name is, but a tenth of
    the titles reuse an earlier name with a variant suffix ("… Junior"), as real shelves do."""
    roll = rng.random()
    if 0.2 <= roll < 0.3 and taken:
        base = rng.choice(sorted(taken))
        title = f"{base.capitalize()} {rng.choice(SUFFIXES)}"
        if title.lower() not in taken:
            taken.add(title.lower())
            return title, base.capitalize()
    while True:
        name = "".join(rng.choice(SYLLABLES) for _ in range(rng.choice((2, 3, 3, 4)))).capitalize()
        if name.lower() not in taken:
            taken.add(name.lower())
            return (f"{rng.choice(ARTICLES)} {name}" if roll < 0.2 else name), name


def _rename(text: str, mapping: dict[str, str], rng: random.Random) -> str:
    for word, new in mapping.items():
        text = re.sub(rf"\b{word}(s|x)?\b", lambda m, new=new: new + ("s" if m.group(1) else ""), text, flags=re.IGNORECASE)
    # Numbers change from game to game (scores, counts), pages are kept plausible.
    return re.sub(r"\b\d+\b", lambda m: str(max(1, int(m.group()) + rng.randint(-2, 3))), text)


def generate(n_games: int, out: Path, seed: int = 14, min_passages: int = 50, max_passages: int = 300) -> list[ShelfGame]:
    """Write n_games corpus files into `out`; returns what was generated (for the questions)."""
    docs, passages = load_passages(REPO / "corpus")
    by_game: dict[str, list] = {}
    for p in passages:
        by_game.setdefault(p.game, []).append(p)
    titles = {d.game.id: d.game.title for d in docs}
    sources = sorted(by_game)
    rng = random.Random(seed)
    taken: set[str] = {t.lower() for t in titles.values()}
    out.mkdir(parents=True, exist_ok=True)
    games = []
    for i in range(n_games):
        source = sources[i % len(sources)]
        title, name = _title(rng, taken)
        aliases = (f"{name} {rng.choice(ENGLISH)}",) if rng.random() < 0.3 else ()
        game = ShelfGame(f"jeu-{i:05d}", title, aliases, source)
        games.append(game)
        mapping = {word: rng.choice(names) for word, names in COMPONENTS.items()}
        count = rng.randint(min_passages, max_passages)
        # Mostly the source game's sentences, a third from any game: shared vocabulary across the shelf.
        picks = [rng.choice(by_game[source]) if rng.random() < 0.67 else rng.choice(passages) for _ in range(count)]
        lines = ["---", f"id: {game.id}", f"title: {title}"]
        if aliases:
            lines.append(f"aliases: {', '.join(aliases)}")
        lines += ["players: 2 à 4", "---", ""]
        section = None
        for j, p in enumerate(picks):
            text = p.text.replace(titles[p.game], title).replace("\n", " ")
            text = _rename(text, mapping, rng).replace("(", "[").replace(")", "]")
            if p.section != section or j % 12 == 0:
                section = p.section
                lines += [f"# {section or 'Règles'} {j // 12 + 1}", ""]
            lines += [f"{text} (p. {1 + j // 10})", ""]
        (out / f"{game.id}.md").write_text("\n".join(lines), "utf-8")
    return games


def typo(word: str, rng: random.Random) -> str:
    """One keyboard slip in a word of 5 letters or more: a letter dropped, doubled, swapped or replaced."""
    if len(word) < 5:
        return word
    i = rng.randrange(1, len(word) - 1)
    kind = rng.randrange(4)
    if kind == 0:
        return word[:i] + word[i + 1 :]
    if kind == 1:
        return word[:i] + word[i] + word[i:]
    if kind == 2:
        return word[:i] + word[i + 1] + word[i] + word[i + 2 :]
    return word[:i] + rng.choice("aeiourstln".replace(word[i], "")) + word[i + 1 :]


def named_questions(games: list[ShelfGame], n: int, seed: int = 7, with_typo: bool = True) -> list[tuple[str, str]]:
    """(question, game id): the title (or an English alias) written into a player's question, with one typo
    in its longest word."""
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        game = rng.choice(games)
        name = rng.choice(game.aliases) if game.aliases and rng.random() < 0.3 else game.title
        words = name.split()
        longest = max(range(len(words)), key=lambda k: len(words[k]))
        if with_typo:
            words[longest] = typo(words[longest], rng)
        name = " ".join(words)
        if rng.random() < 0.5:
            name = name.lower()
        out.append((rng.choice(TEMPLATES).format(t=name, q=rng.choice(QUESTIONS)), game.id))
    return out


class HashingEmbedder:
    """Bag-of-stems hashing vectors of the model's dimension (384): texts sharing words get close vectors.
    Stands in for e5 where only search cost, routing by name or memory is measured."""

    model_id = "bench-hashing"
    dim = 384
    passage_form = "{title}\n{text}"  # e5's (indexer/models/description.py)

    def fingerprint(self) -> str:
        return "bench-hashing-384"

    @staticmethod
    @lru_cache(maxsize=200_000)
    def _term(term: str) -> np.ndarray:
        seed = int.from_bytes(hashlib.sha256(term.encode()).digest()[:8], "little")
        return np.random.default_rng(seed).standard_normal(384).astype(np.float32)

    def _encode(self, texts: list[str]) -> np.ndarray:
        out = np.zeros((len(texts), self.dim), dtype=np.float32)
        for i, text in enumerate(texts):
            for term in analyze(text) or ["<vide>"]:
                out[i] += self._term(term)
            out[i] /= np.linalg.norm(out[i]) or 1.0
        return out

    encode_queries = _encode
    encode_passages = _encode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=100)
    parser.add_argument("--out", type=Path, required=True)
    args = parser.parse_args()
    games = generate(args.games, args.out)
    print(f"{len(games)} jeux écrits dans {args.out}")


if __name__ == "__main__":
    main()
