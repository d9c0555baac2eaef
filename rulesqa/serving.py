"""What `rulesqa serve` runs on this machine (rulesqa/cluster_serve.py: on a Ray cluster): the server's options
checked, the logs set, the answerer opened before the server starts, then uvicorn in the foreground."""

import logging
import sys

import typer

from rulesqa.errors import UsageError

HTTP = ("auto", "h11", "httptools")
LOOPS = ("auto", "asyncio", "uvloop")


def check_server(http: str, loop: str) -> None:
    """UsageError for an HTTP parser or event loop uvicorn does not know, or one that is not installed."""
    import importlib.util

    if http not in HTTP or loop not in LOOPS:
        raise UsageError(f"--http {http} --loop {loop} : --http auto, h11 ou httptools ; --loop auto, asyncio ou uvloop")
    for chosen in (http, loop):
        if chosen in ("httptools", "uvloop") and importlib.util.find_spec(chosen) is None:
            raise UsageError(f"{chosen} n'est pas installé (pip install {chosen}) ; « auto » prend ce qui est installé")


def prepare_process() -> None:
    """What a serving process loads and logs, set before anything is imported for it."""
    # bm25s imports numba whenever it is installed (ranx, for the eval, installs it); the service scores BM25
    # with bm25s's numpy code, and numba's LLVM would add about 65 MiB to the server for nothing.
    sys.modules.setdefault("numba", None)
    # Our own lines (index builds, access log) at INFO; libraries' chatter (faiss's loader) only if it matters.
    logging.basicConfig(level=logging.WARNING, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    logging.getLogger("rulesqa").setLevel(logging.INFO)
    logging.getLogger("bm25s").setLevel(logging.WARNING)


def serve_here(conf, host: str, port: int, http: str, loop: str, shards: int | None) -> None:
    if shards:
        raise UsageError("--shards sert un index partagé sur une grappe : avec --ray ADRESSE")
    import uvicorn

    from service.web.app import create_app
    from service.runtime.startup import open_answerer

    # Loaded before the server starts, so that an impossible start is one clear line and exit code 2. A missing
    # index is built first by a child process; a stale one answers while a child rebuilds it (service/runtime/startup.py).
    opened = open_answerer(conf)
    typer.echo(f"rulesqa : http://{host}:{port}/ (API : /docs)", err=True)
    uvicorn.run(create_app(conf, opened.answerer, stale=opened.stale), host=host, port=port, access_log=False,
                log_level="info", http=http, loop=loop)
