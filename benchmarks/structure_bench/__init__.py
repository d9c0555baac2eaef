"""The structure benchmark's parts (benchmarks/bench_import_structure.py): invented rulebook sources and the
gold they give (source.py, sources/), their producers (groff, html, latex, odt), and the scorer of an
imported rulebook against a gold (score.py), which benchmarks/realdocs shares."""
