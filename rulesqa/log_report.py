"""What `rulesqa report` runs on the questions log (service/questions_log/): the report of what the rules do not
answer, or gold-set candidates written to a file for review."""

from contextlib import contextmanager
from pathlib import Path

import typer

from indexer.errors import RulesqaError
from rulesqa.errors import UsageError

QUESTIONS_DIR = Path(__file__).resolve().parents[1] / "eval" / "questions"


def questions_report(conf, since: int | None, game: str | None) -> dict:
    """The report; near-duplicate questions grouped by the answers' own model, or by identical text (said in one
    line on stderr) when the index's model cannot be loaded."""
    from service.questions_log.report import build_report

    with _opened(conf) as store:
        embedder = None
        try:
            embedder = conf.index_embedder()
        except RulesqaError as exc:
            typer.echo(f"rulesqa: regroupement par texte identique seulement ({exc})", err=True)
        return build_report(store, embedder, since, game)


def write_gold_candidates(conf, out: Path, since: int | None, game: str | None) -> tuple[int, Path]:
    """(how many, the file): candidates for the gold set, never into eval/questions/ (they are reviewed first)."""
    from service.questions_log.report import candidates, write_candidates

    if out.resolve().parent == QUESTIONS_DIR.resolve():
        raise UsageError(f"{out} : les candidats se relisent avant d'entrer dans eval/questions/ ; écrivez-les ailleurs")
    with _opened(conf) as store:
        items = candidates(store, _corpus_passages(conf.corpus_dir), since, game)
        return len(items), write_candidates(items, out)


@contextmanager
def _opened(conf):
    """The questions log's store, open for one block and closed after it."""
    from service.questions_log.store import Store

    store = Store(conf.database_url).open()
    try:
        yield store
    finally:
        store.close()


def _corpus_passages(corpus_dir: Path) -> dict:
    """The corpus's passages by id (the candidates' top passage text); empty when the corpus is unreadable."""
    from indexer.passages import load_passages

    try:
        return {p.id: p for p in load_passages(corpus_dir)[1]}
    except RulesqaError:
        return {}
