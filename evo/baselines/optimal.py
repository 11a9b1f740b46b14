"""The exact optimum baseline: the tree of least total for a whole game.

The search itself is :class:`evo.search.exact.Solver` with the ``symmetry`` policy (one
candidate per orbit of the symmetries fixing the history). This module decides whether
to run it (an estimate from measured games, refused beyond the time limit), gives up at
the limit, and records the best-known optima with their sources.
"""

from __future__ import annotations

import time

import numpy as np

from evo.baselines.limits import BaselineRefused, check_time_limit, duration_text, refuse_beyond
from evo.core.game import Game, count_codes
from evo.core.tree import Tree
from evo.search.build import Node, build_tree
from evo.search.exact import SearchTimeout, Solver

#: Seconds measured for the whole optimum (search and tree, with the first load of the
#: compiled kernels) of games, on the machine of benchmarks/RESULTS.md (2 cores; the
#: small games heavily shared at the time, the largest of each variant measured
#: again, whole processes, once the search was compiled whole); the refusal extrapolates
#: from them.
MEASURED_SECONDS: dict[tuple[str, int, int], float] = {
    ("mastermind", 3, 5): 1.9,
    ("mastermind", 5, 3): 2.5,
    ("mastermind", 3, 6): 1.4,
    ("mastermind", 4, 4): 1.6,
    ("mastermind", 3, 7): 1.4,
    ("mastermind", 7, 2): 3.3,
    ("mastermind", 4, 5): 3.1,
    ("mastermind", 3, 8): 2.4,
    ("mastermind", 5, 4): 3.8,
    ("mastermind", 4, 6): 0.54,
    ("mastermind", 3, 9): 5.1,
    ("mastermind", 4, 7): 4.9,
    ("mastermind", 4, 8): 22.7,
    ("mastermind", 5, 5): 2.4,
    ("bulls-cows", 3, 6): 2.3,
    ("bulls-cows", 3, 7): 1.7,
    ("bulls-cows", 3, 8): 2.4,
    ("bulls-cows", 4, 6): 1.9,
    ("bulls-cows", 3, 10): 1.7,
    ("bulls-cows", 4, 7): 2.4,
    ("bulls-cows", 4, 8): 0.8,
    ("bulls-cows", 4, 9): 1.3,
    ("bulls-cows", 4, 10): 26.3,
}

_GODDARD = "Goddard 2004, Mastermind revisited"
_EVO = "evo's own exact search (evo.search.exact; benchmarks/RESULTS.md)"

#: Best-known optimal totals (expected case): ``(pegs, colors, variant, total, source)``.
#: Every published figure here was also found by :func:`optimal`; the others are its own.
_OPTIMA = [
    (2, 2, "mastermind", 8, _GODDARD),
    (3, 2, "mastermind", 18, _GODDARD),
    (4, 2, "mastermind", 44, _GODDARD),
    (5, 2, "mastermind", 97, _GODDARD),
    (6, 2, "mastermind", 224, _GODDARD),
    (7, 2, "mastermind", 496, _GODDARD),
    (2, 3, "mastermind", 21, _GODDARD),
    (3, 3, "mastermind", 73, _GODDARD),
    (4, 3, "mastermind", 246, _GODDARD),
    (5, 3, "mastermind", 816, _GODDARD),
    (2, 4, "mastermind", 45, _GODDARD),
    (3, 4, "mastermind", 206, _GODDARD),
    (4, 4, "mastermind", 905, _GODDARD),
    (2, 5, "mastermind", 81, _GODDARD),
    (3, 5, "mastermind", 451, _GODDARD),
    (4, 5, "mastermind", 2463, _GODDARD),
    (4, 6, "mastermind", 5625, "Koyama & Lai 1993"),
    (4, 7, "mastermind", 11228, _EVO),
    (4, 8, "mastermind", 20471, f"reported optimal (arfst23/Mastermind, exhaustive); {_EVO}"),
    (5, 5, "mastermind", 13496, _EVO),
    (3, 6, "mastermind", 854, _EVO),
    (3, 7, "mastermind", 1474, _EVO),
    (3, 8, "mastermind", 2359, _EVO),
    (5, 4, "mastermind", 3954, _EVO),
    (3, 9, "mastermind", 3596, _EVO),
    (3, 6, "bulls-cows", 436, _EVO),
    (3, 7, "bulls-cows", 836, _EVO),
    (3, 8, "bulls-cows", 1449, _EVO),
    (4, 6, "bulls-cows", 1446, _EVO),
    (3, 10, "bulls-cows", 3575, _EVO),
    (4, 7, "bulls-cows", 3639, _EVO),
    (4, 8, "bulls-cows", 7817, _EVO),
    (4, 9, "bulls-cows", 14914, _EVO),
    (4, 10, "bulls-cows", 26274, "published optimum of 4-digit Bulls and Cows"),
]

#: Best-known optimal totals keyed by ``(pegs, colors, variant)``.
KNOWN_OPTIMA: dict[tuple[int, int, str], int] = {(p, c, v): t for p, c, v, t, _ in _OPTIMA}

#: Where each of :data:`KNOWN_OPTIMA` comes from.
OPTIMA_SOURCES: dict[tuple[int, int, str], str] = {(p, c, v): s for p, c, v, _, s in _OPTIMA}


#: Seconds the optimum may take when the caller gives no limit.
DEFAULT_TIME_LIMIT = 600.0


#: The refusal of the optimum: a :class:`~evo.baselines.limits.BaselineRefused` (the
#: name it had when the optimum was the only baseline with a time limit).
OptimalRefused = BaselineRefused


def estimate_seconds(game: Game) -> float | None:
    """Seconds the optimum is expected to take: the measured time of a game in
    :data:`MEASURED_SECONDS`, else an exponential in the number of codes fitted (least
    squares on the logarithm of the time) to the three largest measured games of the
    variant; None without two."""
    key = (game.variant, game.pegs, game.colors)
    if key in MEASURED_SECONDS:
        return MEASURED_SECONDS[key]
    points = sorted(
        (count_codes(p, c, v), s) for (v, p, c), s in MEASURED_SECONDS.items() if v == game.variant
    )[-3:]
    if len(points) < 2:
        return None
    m = np.array([p[0] for p in points], dtype=float)
    t = np.log([max(p[1], 1e-3) for p in points])
    if np.ptp(m) == 0:
        return float(np.exp(t.max()))
    rate, intercept = np.polyfit(m, t, 1)
    return float(np.exp(intercept + max(float(rate), 0.0) * game.num_codes))


def optimal(game: Game, *, time_limit: float | None = DEFAULT_TIME_LIMIT) -> Tree:
    """The tree of smallest total. Raises :class:`OptimalRefused` (with an estimate)
    when the estimate is beyond ``time_limit`` seconds, or when the limit is reached."""
    time_limit = check_time_limit(time_limit)
    refuse_beyond(game, "optimal", estimate_seconds(game), time_limit)
    start = time.monotonic()
    deadline = None if time_limit is None else start + time_limit
    solver = Solver(game, policy="symmetry", deadline=deadline)
    codes = game.all_codes().astype(np.int64)
    try:
        solver.solve(codes, Node(game), np.iinfo(np.int64).max)
    except SearchTimeout:
        if time_limit is None:  # no deadline, so no timeout: not expected
            raise
        est = estimate_seconds(game)
        more = f"; estimated {duration_text(est)}" if est is not None and est > time_limit else ""
        raise BaselineRefused(
            f"gave up: the exact optimum of {game.name} ({game.num_codes:,} codes) did not "
            f"finish in the {duration_text(time_limit)} allowed, after "
            f"{solver.nodes:,} searched nodes{more}",
            estimate_seconds=est,
        ) from None
    return build_tree(game, solver.best_guess)
