"""References for the exact search: the solver with its depth-limited searches in the
Python recursion (what the compiled one must match), and code sets a game reaches."""

from __future__ import annotations

import numpy as np

from evo.core.game import Game
from evo.search.exact import Solver


class PythonSolver(Solver):
    """The solver with its depth-limited searches in the Python recursion."""

    _compiled_within = False


def reached(game: Game, rng: np.random.Generator) -> tuple[tuple[int, ...], np.ndarray]:
    """A history of one or two random guesses and the codes still possible after it."""
    history = tuple(int(g) for g in rng.choice(game.num_codes, int(rng.integers(1, 3)), False))
    secret, codes = int(rng.integers(game.num_codes)), np.arange(game.num_codes)
    table = np.asarray(game.table)
    for g in history:
        codes = codes[table[g, codes] == table[g, secret]]
    return history, codes[~np.isin(codes, history)].astype(np.int64)
