"""References for the exact search: the solver with its depth-limited searches in the
Python recursion (what the compiled one must match), code sets a game reaches, and a
search only its deadline's watch thread can stop."""

from __future__ import annotations

import contextlib
import threading
from collections.abc import Iterator

import numpy as np
import pytest

from evo.core.game import Game
from evo.search import exact
from evo.search import memo_kernel as mk
from evo.search.exact import Solver


class PythonSolver(Solver):
    """The solver with its depth-limited searches in the Python recursion."""

    _compiled_within = False


@contextlib.contextmanager
def only_the_watch_stops(solver: Solver, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """The solver's compiled searches stopped by its deadline's watch thread alone: their
    own look at the clock (every ``BUDGET_NODES`` nodes) is put out of reach. A backstop
    stops them 60 s in, so that a test whose watch failed fails on its clock, not hangs."""
    monkeypatch.setattr(exact, "BUDGET_NODES", 1 << 60)
    done = threading.Event()

    def backstop() -> None:
        if not done.wait(60):
            for memo in solver._memos():
                memo[4][mk.STOP] = 1

    thread = threading.Thread(target=backstop, daemon=True)
    thread.start()
    try:
        yield
    finally:
        done.set()
        thread.join()


def reached(game: Game, rng: np.random.Generator) -> tuple[tuple[int, ...], np.ndarray]:
    """A history of one or two random guesses and the codes still possible after it."""
    history = tuple(int(g) for g in rng.choice(game.num_codes, int(rng.integers(1, 3)), False))
    secret, codes = int(rng.integers(game.num_codes)), np.arange(game.num_codes)
    table = np.asarray(game.table)
    for g in history:
        codes = codes[table[g, codes] == table[g, secret]]
    return history, codes[~np.isin(codes, history)].astype(np.int64)
