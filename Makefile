# One virtual environment, pinned by constraints.txt; every target installs what it needs.
VENV ?= .venv
PY := $(VENV)/bin/python
SUITE ?= rag_qa

.PHONY: install browser demo test test-fast lint bench clean server pool deploy worker postgres

# Installed by uv, or by pip where uv cannot (.ci/install-venv says why: uv is ~10x faster).
$(VENV)/.installed: pyproject.toml constraints.txt
	sh .ci/install-venv $(VENV) -e ".[dev,dask]"
	touch $@

install: $(VENV)/.installed

## demo: offline evaluation of the bundled rag_qa dataset; prints the run directory
demo: install
	$(VENV)/bin/assay run $(SUITE) --offline

## browser: headless Chromium for the report's browser test (Debian package, installed where missing)
browser:
	sh .ci/ensure-browser

## test: the whole test suite, offline (the slowest tests listed at the end: where CI's minutes go).
## TEST_WORKERS pytest-xdist processes, one test file each at a time (--dist loadfile), so a file's
## module fixtures (a Prefect server, deployments, a bundled run) are made once; TEST_WORKERS=0: serial.
TEST_WORKERS ?= 2
XDIST = -n $(TEST_WORKERS) --dist loadfile
## Where PYTHONDONTWRITEBYTECODE is set (CI), no interpreter writes bytecode and every one the tests start
## (runs, workers, flow-run processes) compiled prefect, GX, pandas, assay... again (imports 2x slower). The
## tests unset it: the first interpreter to import a module writes its bytecode for the others.
test: install browser
	env -u PYTHONDONTWRITEBYTECODE $(PY) -m pytest -q $(XDIST) --durations=40

## test-fast: unit tests only (no Prefect server, no model loads)
test-fast: install
	$(PY) -m pytest -q $(XDIST) tests/unit -m "not slow"

## postgres: Debian's postgresql server binaries (apt-get when missing) for the PostgreSQL-backed server test
postgres:
	.ci/ensure-postgres.sh

lint: install
	$(VENV)/bin/ruff check assay flows tasks tests bench

bench: install browser
	$(PY) bench/judge_throughput.py
	$(PY) bench/report_explorer.py
	$(PY) bench/jury_agreement.py
	$(PY) bench/clinical_extraction.py

## The scheduled path on a local Prefect server (loopback). Run each in its own terminal:
PREFECT_PORT ?= 4200
LOCAL_API := http://127.0.0.1:$(PREFECT_PORT)/api
server: install
	PREFECT_SERVER_ANALYTICS_ENABLED=false DO_NOT_TRACK=1 $(VENV)/bin/prefect server start --host 127.0.0.1 --port $(PREFECT_PORT)

pool: install
	PREFECT_API_URL=$(LOCAL_API) $(VENV)/bin/prefect work-pool create assay-local --type process || true

deploy: install
	PREFECT_API_URL=$(LOCAL_API) PREFECT_CLI_PROMPT=false ASSAY_PROJECT_DIR=$(CURDIR) $(VENV)/bin/prefect deploy --all

worker: install
	PREFECT_API_URL=$(LOCAL_API) ASSAY_PROJECT_DIR=$(CURDIR) $(VENV)/bin/prefect worker start --pool assay-local

clean:
	rm -rf runs .pytest_cache .ruff_cache
