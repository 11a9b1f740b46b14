"""``optimal-consistent``: the tree of least total among those whose every guess is a
code still possible (the write-up's "average consistent" strategy, AC).

The search is :class:`evo.search.exact.Solver` with the consistent pool and the
``symmetry`` policy. A code set's least total does not depend on the path that reached
it, so the guess kept for a set is right wherever the set is met again. For (4,6) the
least total is 5,660 with first guess 1123 (the write-up's exhaustive search reported
5,671; its table differs from this tree by one to six guesses in eight of the
subtrees under 1123).
"""

from __future__ import annotations

import time

import numpy as np

from evo.baselines.limits import (
    DEFAULT_TIME_LIMIT,
    BaselineRefused,
    check_time_limit,
    duration_text,
)
from evo.core.game import Game
from evo.core.tree import Tree
from evo.search.build import Node, build_tree
from evo.search.exact import SearchTimeout, Solver

NAME = "optimal-consistent"


def optimal_consistent(game: Game, *, time_limit: float | None = DEFAULT_TIME_LIMIT) -> Tree:
    """The consistent-only tree of least total. Raises
    :class:`~evo.baselines.limits.BaselineRefused` when the search does not finish within
    ``time_limit`` seconds (None: no limit)."""
    time_limit = check_time_limit(time_limit)
    deadline = None if time_limit is None else time.monotonic() + time_limit
    solver = Solver(game, pool="consistent", policy="symmetry", deadline=deadline)
    try:
        solver.solve(game.all_codes().astype(np.int64), Node(game), np.iinfo(np.int64).max)
    except SearchTimeout:
        raise BaselineRefused(
            f"gave up: the consistent optimum of {game.name} ({game.num_codes:,} codes) did "
            f"not finish in the {duration_text(time_limit or 0)} allowed, after "
            f"{solver.nodes:,} searched nodes",
            name=NAME,
        ) from None
    return build_tree(game, solver.best_guess)
