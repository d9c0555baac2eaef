"""One PDF import in a child process, so that its time, CPU and peak memory are the import's alone.

    python -m benchmarks.import_process PDF CORPUS_DIR [READER]   # prints one JSON line

`run_import(pdf, corpus, reader)` runs it (the text layer: indexer.pdf.READERS, $RULESQA_IMPORT_READER by default) and returns that line as a dict, or {"error": the child's last line}.
"""

from __future__ import annotations

import json
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def child(pdf: str, corpus: str, reader: str = "auto") -> None:
    from indexer.pdf import import_pdf

    start, cpu = time.perf_counter(), time.process_time()
    result = import_pdf(Path(pdf), Path(corpus), "bench", "Bench", force=True, max_pages=100_000,
                        reader=reader)
    seconds, cpu = time.perf_counter() - start, time.process_time() - cpu
    print(json.dumps({"seconds": seconds, "cpu": cpu, "pages": result.pages, "numbering": result.numbering,
                      "rss_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024}))


def run_import(pdf: Path, corpus: Path, reader: str | None = None) -> dict:
    reader = reader or os.environ.get("RULESQA_IMPORT_READER", "auto")
    out = subprocess.run([sys.executable, "-m", "benchmarks.import_process", str(pdf), str(corpus), reader],
                         capture_output=True, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    if out.returncode != 0:
        return {"error": (out.stderr.strip().splitlines() or ["?"])[-1]}
    return json.loads(out.stdout.strip().splitlines()[-1])


if __name__ == "__main__":
    child(*sys.argv[1:4])
