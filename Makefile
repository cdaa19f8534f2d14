# The two commands a new user needs: `make report` (the main job) and `make test` (the whole suite).
# Both bootstrap .venv from requirements.lock (exact, tested versions) on first use.
PYTHON ?= python3
VENV := .venv
PY := $(VENV)/bin/python
STAMP := $(VENV)/.installed
PROFILE ?= quick
REPORT ?= latest

.PHONY: report test lint lab bench browser clean-venv

$(STAMP): requirements.lock pyproject.toml
	test -x $(PY) || $(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -r requirements.lock
	$(PY) -m pip install --quiet --no-deps --no-build-isolation -e .
	$(PY) -m ipykernel install --sys-prefix --name python3 >/dev/null
	touch $(STAMP)

# Debian's Chromium for the headless-browser test (root, or sudo, needed to install it once).
browser:
	@command -v chromium >/dev/null 2>&1 || { \
	  if [ "$$(id -u)" = 0 ]; then SUDO=; else SUDO=sudo; fi; \
	  $$SUDO apt-get update -qq && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null; }

report: $(STAMP)
	$(PY) -m cogames_lib report --profile $(PROFILE) --out reports/$(REPORT)

test: $(STAMP) browser
	$(PY) -m ruff check cogames_lib tests benchmarks
	COGAMES_REQUIRE_BROWSER=1 $(PY) -m pytest -q -n 2 --dist loadgroup

lint: $(STAMP)
	$(PY) -m ruff check cogames_lib tests benchmarks
	$(PY) -m ruff format --check cogames_lib tests benchmarks

# JupyterLab refuses to run as root without --allow-root (containers and CI machines often are root).
lab: $(STAMP)
	$(VENV)/bin/jupyter lab --ip 127.0.0.1 --no-browser $$([ "$$(id -u)" = 0 ] && echo --allow-root) notebooks/

bench: $(STAMP)
	$(PY) -m cogames_lib bench

clean-venv:
	rm -rf $(VENV)
