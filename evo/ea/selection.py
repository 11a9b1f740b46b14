"""Selection with an explicit generator: DEAP's tournaments, draw for draw.

DEAP's selection functions draw from the ``random`` module's shared generator, which other
threads of a process (a Dask worker's, for one) may draw from too. These take the
generator by keyword and make the same draws as ``tools.selTournament`` and
``tools.selTournamentDCD`` from the same state, so logbooks do not change.
"""

from __future__ import annotations

import random
from operator import attrgetter


def sel_tournament(individuals: list, k: int, *, tournsize: int, rng: random.Random) -> list:
    """The best of ``tournsize`` individuals drawn with replacement, ``k`` times."""
    best = attrgetter("fitness")
    return [max([rng.choice(individuals) for _ in range(tournsize)], key=best) for _ in range(k)]


def sel_tournament_dcd(individuals: list, k: int, *, rng: random.Random) -> list:
    """NSGA-II's binary tournaments on dominance, then crowding distance, then a coin."""

    def duel(a, b):
        if a.fitness.dominates(b.fitness):
            return a
        if b.fitness.dominates(a.fitness):
            return b
        if a.fitness.crowding_dist != b.fitness.crowding_dist:
            return a if a.fitness.crowding_dist > b.fitness.crowding_dist else b
        return a if rng.random() <= 0.5 else b

    first = rng.sample(individuals, len(individuals))
    second = rng.sample(individuals, len(individuals))
    chosen = []
    for i in range(0, k, 4):
        chosen += [duel(first[i], first[i + 1]), duel(first[i + 2], first[i + 3])]
        chosen += [duel(second[i], second[i + 1]), duel(second[i + 2], second[i + 3])]
    return chosen


def sel_distinct(individuals: list, k: int, *, rng: random.Random) -> list:
    """``k`` different individuals, at random."""
    return rng.sample(individuals, k)
