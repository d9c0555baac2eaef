"""The real-documents benchmark's parts (benchmarks/bench_import_realdocs.py): the manuals Debian ships
(corpus.py, SOURCES.md), their gold read from the HTML (gold.py), the producers that print them, the training
rulebooks under rulebook stylesheets (rulebooks.py), and the failure patterns (patterns.py)."""
