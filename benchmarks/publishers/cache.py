"""The publishers' rulebooks, cached outside git from the manifest (eval/publishers/manifest.json) (their files are the publishers' and are never
committed): each entry names the public repository, commit and path it was found at, and its sha256.

    python -m benchmarks.publishers.cache --from DIR [--cache var/publishers]   # files given in a folder
    python -m benchmarks.publishers.cache --from-git MIRRORS                   # bare git mirrors, owner+name

A file is taken when its bytes have the manifest's hash (whatever its name), or refused in one line when it is
named as an entry's path but its bytes differ. `check` lists what the cache lacks or holds wrongly.
"""

import argparse
import hashlib
import subprocess
import sys
from pathlib import Path

from eval.errors import EvalError
from eval.publishers import CACHE, Rulebook
from eval.publishers import load_manifest as _load


class CacheError(Exception):
    """One line for the person filling the cache."""


def load_manifest() -> list[Rulebook]:
    try:
        return _load()
    except EvalError as exc:
        raise CacheError(str(exc)) from None


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _write(target: Path, data: bytes) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    tmp = target.with_suffix(".part")
    tmp.write_bytes(data)
    tmp.replace(target)


def fill_from_folder(source: Path, cache: Path, books: list[Rulebook]) -> list[str]:
    """The manifest's rulebooks found in `source` (by their bytes' hash) copied into the cache; one line each."""
    if not source.is_dir():
        raise CacheError(f"dossier introuvable : {source}")
    wanted = {b.sha256: b for b in books}
    by_name = {Path(b.path).name: b for b in books}
    done = []
    for path in sorted(p for p in source.rglob("*") if p.is_file()):
        data = path.read_bytes()
        book = wanted.get(sha256(data))
        if book is None:
            named = by_name.get(path.name)
            if named is not None and not named.file(cache).exists():
                raise CacheError(f"{path} : empreinte différente de celle du manifeste pour {named.name} "
                                 f"({sha256(data)[:12]}… au lieu de {named.sha256[:12]}…)")
            continue
        _write(book.file(cache), data)
        done.append(f"{book.name} <- {path}")
    return done


def fill_from_git(mirrors: Path, cache: Path, books: list[Rulebook]) -> list[str]:
    """The rulebooks read with git from bare mirrors named owner+name (as `git clone --mirror` into that name)."""
    done = []
    for book in books:
        git_dir = mirrors / book.repo.replace("/", "+")
        if not git_dir.exists():
            continue
        run = subprocess.run(["git", "--git-dir", str(git_dir), "show", f"{book.commit}:{book.path}"],
                             capture_output=True)
        if run.returncode != 0:
            continue
        if sha256(run.stdout) != book.sha256:
            raise CacheError(f"{book.repo}:{book.path} : empreinte différente de celle du manifeste")
        _write(book.file(cache), run.stdout)
        done.append(f"{book.name} <- {book.repo}@{book.commit[:10]}:{book.path}")
    return done


def check(cache: Path, books: list[Rulebook]) -> tuple[list[Rulebook], list[str]]:
    """(the rulebooks present and whole, one line for each one missing or altered)."""
    present, problems = [], []
    for book in books:
        path = book.file(cache)
        if not path.exists():
            problems.append(f"absent : {book.name} ({book.repo}:{book.path})")
        elif sha256(path.read_bytes()) != book.sha256:
            problems.append(f"altéré : {book.name} (empreinte différente du manifeste)")
        else:
            present.append(book)
    return present, problems


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--from", dest="source", type=Path, help="folder holding the rulebooks' files")
    parser.add_argument("--from-git", type=Path, help="folder of bare git mirrors named owner+name")
    parser.add_argument("--cache", type=Path, default=CACHE)
    args = parser.parse_args(argv)
    try:
        books = load_manifest()
        done = []
        if args.source:
            done += fill_from_folder(args.source, args.cache, books)
        if args.from_git:
            done += fill_from_git(args.from_git, args.cache, books)
        present, problems = check(args.cache, books)
    except CacheError as exc:
        print(f"erreur : {exc}", file=sys.stderr)
        return 2
    for line in done:
        print(line)
    for line in problems:
        print(line, file=sys.stderr)
    print(f"{len(present)}/{len(books)} livrets dans {args.cache}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
