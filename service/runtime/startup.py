"""Load the answerer for a long-running process (`rulesqa serve`, a replica), building the index first when
there is none to answer from.

The server never trains and never builds in its own process: a build (the model conversion, the
adaptation when RULESQA_ADAPT is on, the encoding of every passage) is run by `build_in_child`, a
`rulesqa index` child process, so that its memory is the child's and is handed back when it exits. So:

- a missing or unusable index (another format, another model than RULESQA_MODEL) is built by a child
  before the server answers (`open_answerer` waits for it);
- an index built from another version of the corpus is *stale* but answers: `open_answerer` returns it at
  once with the reason, and the server rebuilds it in a child in the background, then swaps the new
  version in as POST /api/admin/reload does (`reload_answerer`).

Entry points: `open_answerer(settings)` (what a server starts with), `load_answerer(settings)` (the same,
for a caller that does not rebuild in the background), `reload_answerer(settings, current)`.
"""

from __future__ import annotations

import logging
import os
import signal
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from indexer.errors import IndexMismatchError, RulesqaError
from service.engine.answerer import Answerer
from service.runtime.answerers import build_answerer
from service.runtime.settings import Settings

log = logging.getLogger("rulesqa")


class BuildError(RulesqaError):
    """A build run in a child process (the server's `rulesqa index`) failed; its own message came first."""

# How long a child build asked to stop (Ctrl-C, server shutdown) may take to remove its scratch folders.
STOP_GRACE_S = 10


@dataclass(frozen=True)
class Opened:
    answerer: Answerer
    stale: str | None = None  # why the index should be rebuilt while it answers (the corpus changed), or None


def index_command(settings: Settings) -> list[str]:
    """The child process that builds settings.index_dir as `rulesqa index` would, with these settings."""
    return [sys.executable, "-m", "rulesqa", "index", "--quiet"]


def start_build(settings: Settings, asks: bool = True) -> subprocess.Popen:
    """Start the child build. Its stderr is this process's (progress, a wait for another build's lock, its
    one error line); its stdout (the index path) is dropped. `asks`: its stdin is this process's, so that a
    build before the server answers may ask on the terminal (the Gemma terms); a rebuild behind a server that
    answers asks nothing (stdin closed: a refusal is then its one line and the fallback)."""
    return subprocess.Popen(index_command(settings), stdin=None if asks else subprocess.DEVNULL,
                            stdout=subprocess.DEVNULL, stderr=None, env={**os.environ, **settings.build_environment()})


def build_in_child(settings: Settings) -> None:
    """Build settings.index_dir in a child process and wait for it; BuildError if it fails."""
    child = start_build(settings)
    try:
        code = child.wait()
    except BaseException:  # interrupted: stop the child too (never an orphan build), letting it clean up
        stop_build(child)
        raise
    if code != 0:
        raise BuildError(f"la construction de l'index {settings.index_dir} a échoué (code {code})")


def stop_build(child: subprocess.Popen) -> None:
    """Stop a child build as Ctrl-C would (it removes its scratch folders), killing it if it lingers."""
    if child.poll() is None:
        child.send_signal(signal.SIGINT)
        try:
            child.wait(STOP_GRACE_S)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def _corpus_hash(corpus_dir: Path) -> str:
    from indexer.passages import load_passages
    from indexer.passage_text import corpus_hash

    docs, passages = load_passages(corpus_dir)
    return corpus_hash([d.game for d in docs], passages)


def load_index_and_model(index_dir: Path, make_embedder, *also):
    """(index data or the IndexMismatchError reading it, embedder, results of `also`...): the index's files
    are read in a thread while the model loads (the calls in `also` run in a third thread). On a shelf
    both take seconds, and much of both runs in native code (file reads, faiss, onnxruntime's session),
    so they overlap rather than add up."""
    from concurrent.futures import ThreadPoolExecutor

    from indexer import store

    with ThreadPoolExecutor(1 + len(also)) as pool:
        pending = pool.submit(store.load, index_dir)
        extra = [pool.submit(call) for call in also]
        embedder = make_embedder()
        try:
            data = pending.result()
        except IndexMismatchError as exc:
            data = exc
        return (data, embedder, *(f.result() for f in extra))


def _load(settings: Settings, embedder=None, *, check_corpus: bool):
    """(answerer, stale reason or None); IndexMismatchError when the index cannot answer."""
    corpus_dir = Path(settings.corpus_dir)

    def corpus_hash():
        if not check_corpus or not corpus_dir.is_dir():
            return None
        try:
            return _corpus_hash(corpus_dir)
        except RulesqaError as exc:  # a corpus being edited: answer from the index, say why it is not rebuilt
            log.warning("corpus illisible (%s) ; l'index actuel continue de répondre", exc)
            return None

    def make_embedder():
        try:
            return embedder if embedder is not None else settings.index_embedder()
        except IndexMismatchError as exc:
            return exc

    data, model, current = load_index_and_model(settings.index_dir, make_embedder, corpus_hash)
    for failed in (data, model):
        if isinstance(failed, IndexMismatchError):
            raise failed
    answerer = build_answerer(settings, data=data, embedder=model)
    stale = None
    if current is not None and current != answerer.retriever.manifest.corpus.hash:
        stale = f"le corpus {corpus_dir} a changé depuis l'index"
    elif check_corpus:
        stale = former_default(settings, answerer.retriever.manifest)
    return answerer, stale


def former_default(settings: Settings, manifest) -> str | None:
    """Why an index built with e5-small (the fallback) should be rebuilt with the default family, when that is
    another one (EmbeddingGemma, once its rule holds: docs/eval/MODELS.md): only when no model was asked for
    (RULESQA_MODEL unset, no adaptation, which is e5's) and the default can be built without asking anyone
    (service/runtime/model_terms.py); otherwise None, said in one line when the default waits for its terms."""
    from indexer.models.registry import DEFAULT_FAMILY, DEFAULT_NAMES, FAMILIES
    from service.runtime.model_terms import gemma_ready
    from service.runtime.settings import FALLBACK_FAMILY

    held = manifest.model.family if manifest.model else ""
    if settings.model not in DEFAULT_NAMES or settings.adapt or held != FALLBACK_FAMILY or DEFAULT_FAMILY == held:
        return None
    default = FAMILIES[DEFAULT_FAMILY]
    if default.licence == "Gemma Terms of Use" and not gemma_ready(settings.models_dir, settings.accept_gemma_terms):
        log.warning("l'index répond avec %s ; %s, le modèle par défaut, attend l'acceptation des conditions "
                    "d'utilisation de Gemma (RULESQA_ACCEPT_GEMMA_TERMS=true, ou rulesqa model build --model %s "
                    "--accept-terms ; RULESQA_MODEL=%s garde ce modèle)", manifest.embedding.model_id,
                    default.model_id, default.name, FALLBACK_FAMILY)
        return None
    return (f"l'index a été construit avec {manifest.embedding.model_id} ; le modèle par défaut est désormais "
            f"{default.model_id} (RULESQA_MODEL={FALLBACK_FAMILY} garde l'ancien)")


def open_answerer(settings: Settings, embedder=None, build=None) -> Opened:
    """The answerer over settings.index_dir, and whether the index is stale. With
    settings.build_index_if_missing, an index that cannot answer is first built by `build` (by default
    `build_in_child`); a stale one answers as it is, `Opened.stale` saying why it should be rebuilt.
    `embedder`: the model to answer with instead of the index's own (tests)."""
    build = build or build_in_child
    check = settings.build_index_if_missing
    try:
        answerer, stale = _load(settings, embedder, check_corpus=check)
    except IndexMismatchError as exc:
        if not check:
            raise
        log.warning("index indisponible (%s) ; construction depuis %s", exc, settings.corpus_dir)
        build(settings)
        answerer, stale = _load(settings, embedder, check_corpus=False)
        log.info("index construit : %s passages", answerer.retriever.manifest.corpus.passages)
    return Opened(answerer, stale)


def load_answerer(settings: Settings, embedder=None, build=None) -> Answerer:
    """The answerer over settings.index_dir, an index that cannot answer built first (`open_answerer`).
    A stale index is rebuilt too, before answering, for a caller that cannot do it in the background."""
    opened = open_answerer(settings, embedder, build)
    if opened.stale is None:
        return opened.answerer
    log.warning("%s ; mise à jour de l'index", opened.stale)
    (build or build_in_child)(settings)
    return reload_answerer(settings, opened.answerer)


def reload_answerer(settings: Settings, current: Answerer) -> Answerer:
    """The answerer over the index folder's current version. The current model (and calibration) is kept
    when that version was built with it; otherwise the version's own model is loaded, with its calibration.
    An IndexMismatchError leaves the caller answering with `current`."""
    from indexer import store

    manifest = store.read_manifest(settings.index_dir)
    embedder = current.retriever.embedder
    if (manifest.embedding.model_id, manifest.embedding.fingerprint) == (embedder.model_id, embedder.fingerprint()):
        return build_answerer(settings, embedder=embedder, calibration=current.calibration, reranker=current.reranker)
    log.info("nouvelle version de l'index avec le modèle %s", manifest.embedding.model_id)
    return build_answerer(settings, reranker=current.reranker)
