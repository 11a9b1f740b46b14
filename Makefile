# evo: two commands, `make run` and `make test`, each setting everything up first.
PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed
CONFIG ?= configs/quick.yaml

.PHONY: run test bench setup dot lint clean

run: setup
	$(BIN)/evo run $(CONFIG)

test: setup
	$(BIN)/python -m pytest

bench: setup
	$(BIN)/python benchmarks/run_all.py

lint: setup
	$(BIN)/ruff check evo tests benchmarks scripts
	$(BIN)/ruff format --check evo tests benchmarks scripts
	$(BIN)/mypy

setup: $(STAMP) dot

# The virtual environment and the Python packages, reinstalled when pyproject.toml changes.
$(STAMP): pyproject.toml
	@$(PYTHON) -c 'import sys; assert sys.version_info >= (3, 10), "evo needs Python 3.10 or newer"' \
	  || { echo "evo needs Python 3.10 or newer (found: $$($(PYTHON) --version))"; exit 1; }
	$(PYTHON) -m venv $(VENV)
	$(BIN)/python -m pip install --quiet --upgrade pip
	$(BIN)/python -m pip install --quiet -e '.[dev]'
	@touch $(STAMP)

# Graphviz's `dot` program draws the trees; install it with the system package manager when missing.
dot:
	@command -v dot >/dev/null 2>&1 || sh scripts/install-graphviz.sh
