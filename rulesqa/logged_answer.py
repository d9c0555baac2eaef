"""What `rulesqa ask` runs: the question answered by the Answerer the settings describe, then logged as asked
from the CLI (unless the log is off); a log that cannot be written costs one warning on stderr, never the answer."""

import logging
import sys
import time


def answer_logged(conf, query, explain: bool = False):
    """(the Answer to `query` (service.engine.question.validate's), recorded in the questions log; with `explain`,
    what the judge read of each passage shown, else None)."""
    from service.questions_log.recorder import open_writer, record
    from service.runtime.answerers import build_answerer

    answerer = build_answerer(conf)
    started = time.perf_counter()
    answer = answerer.answer(query)
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
    return answer, answerer.explain(query) if explain else None
