# evo: two commands, `make run` and `make test` (`make test-fast` without the slow tests,
# `make test-heavy` for the few heavy ones), each setting everything up first;
# `make install` also links the `evo` command into ~/.local/bin.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CONFIG ?= configs/quick.yaml

.PHONY: run test test-fast test-heavy bench setup dot chromium kernels install docs lint clean

run: setup
	$(BIN)/evo run $(CONFIG)

# The tests run on every core (pytest-xdist: -n auto); a test that must share a worker with
# another is in an xdist_group. `make test` runs every test but the heavy ones, then names
# the 15 slowest (and any test that compiled one of evo's kernels itself, which after the
# set-up none should: tests/conftest.py); `make test-fast` also leaves out those marked
# slow (each over about 2 s here: worker processes, subprocess runs, Chromium, big games,
# Dask clusters); `make test-heavy` runs only the heavy ones (the wheel in a fresh venv,
# compiling from an empty cache, the big breakers' replay, the notebook). CI runs `make test`
# and `make test-heavy`: every test, each once. The tests start hundreds of Python processes
# (workers, `evo` commands) and each xdist worker collects every test module: with
# PYTHONDONTWRITEBYTECODE set, each of them compiled evo's modules again and pytest
# rewrote every test module's asserts again (11 s of collection per worker, 4 s with the
# bytecode kept in the checkout's __pycache__ folders, which git ignores).
PYTEST := env -u PYTHONDONTWRITEBYTECODE $(BIN)/python -m pytest -n auto --dist loadgroup

test: setup
	$(PYTEST) -m "not heavy" --durations=15

test-fast: setup
	$(PYTEST) -m "not slow and not heavy"

test-heavy: setup
	$(PYTEST) -m heavy --durations=15

bench: setup
	$(BIN)/python benchmarks/run_all.py

# Regenerate docs/CONFIG.md from the config models (a test fails when it is out of date),
# and the API reference from the docstrings into docs/api/ (open docs/api/index.html).
docs: setup
	$(BIN)/python scripts/config_doc.py
	$(BIN)/python scripts/api_doc.py docs/api

lint: setup
	$(BIN)/ruff check evo tests benchmarks scripts
	$(BIN)/ruff format --check evo tests benchmarks scripts
	$(BIN)/mypy

setup: $(STAMP) dot chromium kernels

# evo's compiled kernels for every profile (games with a feedback table: the Mastermind family's,
# Wordle's, custom games'; and big Mastermind games without one), compiled once per machine in processes
# side by side, so that no command's clock and no test pays for it (a command compiles what it
# needs first, and says so, when this was not done).
kernels: $(STAMP)
	@$(BIN)/python -c 'from evo.search.kernels import ensure_compiled; ensure_compiled(say=print)'

# `evo` on the PATH: a link to the virtual environment's command in ~/.local/bin.
install: setup
	@mkdir -p $(HOME)/.local/bin
	ln -sf $(abspath $(BIN)/evo) $(HOME)/.local/bin/evo
	@case ":$$PATH:" in *":$(HOME)/.local/bin:"*) echo "evo is ready: try 'evo --help'";; \
	  *) echo "add ~/.local/bin to your PATH (export PATH=\"\$$HOME/.local/bin:\$$PATH\"), then try 'evo --help'";; esac

# The virtual environment and the Python packages, reinstalled when pyproject.toml changes.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "evo needs Python 3.10 or newer"' \
	  || { echo "evo needs Python 3.10 or newer (found: $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	@$(BIN)/python -m pip uninstall --quiet --yes evo 2>/dev/null || true  # the old distribution name
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

# Graphviz's `dot` program draws the trees; install it with the system package manager when missing.
dot:
	@command -v dot >/dev/null 2>&1 || sh scripts/install-graphviz.sh

# Headless Chromium for the explorer's browser tests (Playwright drives it; no browser download).
chromium:
	@command -v chromium >/dev/null 2>&1 || sh scripts/install-chromium.sh
