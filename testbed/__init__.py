"""Throwaway machinery that the tests and the benchmarks both start: free loopback ports (ports.py), a
PostgreSQL cluster (pg.py), a two-node Ray cluster (ray_nodes.py), rulebook PDFs with their ground truth
(pdf_fixtures.py). Never installed (pyproject.toml's package list leaves it out); the tests and the
benchmarks import it from the repository's root, and it imports neither of them."""
