"""Exhaustive baselines: classic strategies built as breaker trees, so that fitness,
rendering and comparison treat them like evolved ones.

Names: ``knuth``, ``irving``, ``kooi``, ``entropy`` and their ``-consistent`` forms;
``lc``, ``rc`` (seeded); openings such as ``5463+lc``, ``1123+2245+rc`` or ``11223+entropy``;
``human-friendly`` and ``extended`` (Goel and Garg's Bulls and Cows players, with
``-stable`` forms for the other tie order) and evo's variants of them, ``least-frequent``
and ``separating``; ``easy`` and ``advanced`` (the write-up's human Mastermind
strategies); ``optimal`` and ``optimal-consistent``. Each is a player
of :mod:`evo.search` (or the exact search), built into a tree and cached per game.

The modules inside, by what they hold: :mod:`~evo.baselines.registry` (the names and
their parsing), :mod:`~evo.baselines.builders` (a name to its tree, and how long that
takes), :mod:`~evo.baselines.runner` (from the cache or built, timed and cached),
:mod:`~evo.baselines.cache` (the files), :mod:`~evo.baselines.records` (what a run hands
back), :mod:`~evo.baselines.known` (the best-known totals), :mod:`~evo.baselines.limits`
(refusals), and one module per family of players. This package re-exports their public
names.

>>> game = make_game(4, 6)
>>> run(game, "knuth").tree.total     # 5801, worst case 5 (cached on disk)
>>> build(game, "irving")             # no cache
"""

from __future__ import annotations

from evo.baselines import cache
from evo.baselines.builders import build, estimate_seconds, lookahead, reads_table
from evo.baselines.cache import cache_key, cached
from evo.baselines.consistent import optimal_consistent
from evo.baselines.easy import advanced, easy
from evo.baselines.human import least_frequent, separating
from evo.baselines.known import (
    BEST_REPORTED,
    KNOWN_OPTIMA,
    OPTIMA_SOURCES,
    SOLVE_OPTIMUM_UP_TO,
    KnownTotal,
    known_optimum,
)
from evo.baselines.limits import DEFAULT_TIME_LIMIT, BaselineRefused
from evo.baselines.optimal import (
    NoneBelow,
    OptimalRefused,
    Where,
    optimal,
)
from evo.baselines.paper import extended, human_friendly
from evo.baselines.records import Baseline, BaselineResult, Refused
from evo.baselines.registry import (
    CONSISTENT_OPTIMUM_UP_TO,
    EASY,
    HUMAN,
    LOOKAHEAD,
    NAMES,
    PAPER_STABLE,
    default_names,
    parse_name,
    parse_names,
)
from evo.baselines.runner import knuth_total, run, run_all
from evo.baselines.simple import (
    estimate_rc,
    lowest_consistent,
    random_consistent,
    with_opening,
)
from evo.core.kinds import HEURISTICS

__all__ = [
    "BEST_REPORTED",
    "CONSISTENT_OPTIMUM_UP_TO",
    "DEFAULT_TIME_LIMIT",
    "EASY",
    "HEURISTICS",
    "HUMAN",
    "PAPER_STABLE",
    "KNOWN_OPTIMA",
    "LOOKAHEAD",
    "NAMES",
    "OPTIMA_SOURCES",
    "Baseline",
    "BaselineRefused",
    "BaselineResult",
    "NoneBelow",
    "OptimalRefused",
    "Refused",
    "Where",
    "build",
    "cache",
    "KnownTotal",
    "SOLVE_OPTIMUM_UP_TO",
    "cache_key",
    "knuth_total",
    "cached",
    "default_names",
    "estimate_rc",
    "estimate_seconds",
    "reads_table",
    "known_optimum",
    "lookahead",
    "lowest_consistent",
    "optimal",
    "parse_name",
    "parse_names",
    "random_consistent",
    "run",
    "run_all",
    "with_opening",
    "advanced",
    "easy",
    "extended",
    "human_friendly",
    "least_frequent",
    "optimal_consistent",
    "separating",
]
