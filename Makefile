# The two commands a new user needs: `make report` (the main job) and `make test` (the whole suite).
# Both bootstrap .venv from requirements.lock (exact, tested versions) on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PROFILE ?= quick
REPORT ?= latest
# A machine whose pip resolves the pinned torch to a multi-GB CUDA build can take the CPU-only wheel from
# PyTorch's CPU wheel index (its URL is on PyTorch's installation page): `make TORCH_INDEX=<that URL> test`.
# Empty by default: every install step then needs the package index alone.
TORCH_INDEX ?=
PIP_EXTRA := $(if $(TORCH_INDEX),--extra-index-url $(TORCH_INDEX),)
# setuptools' editable build emits an informational "Editable installation" box (a folder named like the
# package in the working directory may shadow it) that pip re-prints as a BuildBackendWarning even with
# --quiet; only that one message is silenced, every other warning or error still shows.
QUIET_EDITABLE := PYTHONWARNINGS="ignore:Editable installation"
SHELL := /bin/bash
.SHELLFLAGS := -eo pipefail -c

.PHONY: report test lint lab bench browser docs-screenshot docs-figures clean-venv

# First use: one line per set-up step, and one per package while the pinned dependencies install.
$(STAMP): requirements.lock pyproject.toml
	@echo "setup 1/5: virtual environment $(VENV)"
	@test -x $(PY) || $(PYTHON) -m venv $(VENV)
	@echo "setup 2/5: upgrading pip"
	@$(PY) -m pip install --quiet --upgrade pip
	@echo "setup 3/5: $$(grep -c '==' requirements.lock) pinned packages from requirements.lock (a few minutes the first time)"
	@$(PY) -m pip install --progress-bar off -r requirements.lock $(PIP_EXTRA) \
	  | awk -v total=$$(grep -c '==' requirements.lock) \
	    '/^Collecting/ { n++; printf "  [%d/%d] %s\n", n, total, $$2; fflush() } \
	     /^Requirement already satisfied/ { n++; printf "  [%d/%d] %s (present)\n", n, total, $$4; fflush() }'
	@echo "setup 4/5: cogames_lib (editable)"
	@$(QUIET_EDITABLE) $(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	@echo "setup 5/5: Jupyter kernel"
	@$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	@touch $(STAMP)

# Debian's Chromium for the headless-browser test (root, or sudo, needed to install it once).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

report: $(STAMP)
	$(PY) -m cogames_lib report --profile $(PROFILE) --out reports/$(REPORT) --fresh

test: $(STAMP) browser
	$(PY) -m ruff check cogames_lib tests benchmarks
	$(PY) -m mypy
	COGAMES_REQUIRE_BROWSER=1 $(PY) -m pytest -q -n 2 --dist loadgroup

lint: $(STAMP)
	$(PY) -m ruff check cogames_lib tests benchmarks
	$(PY) -m ruff format --check cogames_lib tests benchmarks
	$(PY) -m mypy

# JupyterLab refuses to run as root without --allow-root (containers and CI machines often are root).
lab: $(STAMP)
	$(VENV)/bin/jupyter lab --ip 127.0.0.1 --no-browser $$([ "$$(id -u)" = 0 ] && echo --allow-root) cogames_lib/notebooks/

# The README's picture of the report index, regenerated from a fresh report in headless Chromium.
docs-screenshot: report browser
	$(PY) -m cogames_lib.report.browser reports/$(REPORT)/index.html docs/report_index.png

# Every README picture from committed data: the reference study's figures (data/staghunt_reference/), then
# the index of a fresh quick report (docs-screenshot); docs/figures.json records the data version of each
# (tests/test_docs_figures.py fails when the data changed after its picture was drawn).
docs-figures: docs-screenshot
	$(PY) -m cogames_lib.report.docs_figures
	$(PY) -m cogames_lib.report.docs_figures --record-only

bench: $(STAMP)
	$(PY) -m cogames_lib bench

clean-venv:
	rm -rf $(VENV)
