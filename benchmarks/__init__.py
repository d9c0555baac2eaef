"""Scripts that print figures, each run as a module from the repository's root
(`python -m benchmarks.bench_service --help`); tested under tests/benchmarks/. They import the product's
packages and testbed/ (ports, PDFs, throwaway clusters), never tests/."""
