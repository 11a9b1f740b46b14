"""What each generation records: DEAP statistics and the logbook's columns."""

from __future__ import annotations

import numpy as np
from deap import tools

from evo.core.tree import Tree

#: The logbook's columns, in order.
LOGBOOK_HEADER = ["gen", "nevals", "min", "avg", "max", "std", "worst", "worst_min", "roots"]


def stat_key(ind: Tree) -> tuple[int, int, int]:
    """What the statistics read of a breaker: its total, worst case and root guess."""
    return (ind.total, ind.worst, int(ind.guess[0]))


def make_statistics(*, key=stat_key) -> tools.Statistics:
    """Per generation: min, average, max and standard deviation of the total; the worst
    case of the best breaker and the smallest in the population; distinct root guesses.
    ``key``: how to read ``(total, worst, root)`` from what is compiled."""
    stats = tools.Statistics(key=key)
    stats.register("min", lambda k: int(min(x[0] for x in k)))
    stats.register("avg", lambda k: round(float(np.mean([x[0] for x in k])), 3))
    stats.register("max", lambda k: int(max(x[0] for x in k)))
    stats.register("std", lambda k: round(float(np.std([x[0] for x in k])), 3))
    stats.register("worst", lambda k: int(min(k)[1]))
    stats.register("worst_min", lambda k: int(min(x[1] for x in k)))
    stats.register("roots", lambda k: len({x[2] for x in k}))
    return stats


def new_logbook() -> tools.Logbook:
    """An empty logbook with the run's columns."""
    lb = tools.Logbook()
    lb.header = list(LOGBOOK_HEADER)
    return lb
