"""How many threads one inference or one training uses; imports nothing of the model room, so that the runtimes,
the trainer and the settings all read it without importing one another."""

import os


def default_threads() -> int:
    """Threads for one inference: the machines here have 2 cores; more threads than cores
    only adds contention with the web server's own threads."""
    return max(1, min(2, os.cpu_count() or 1))
