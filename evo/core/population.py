"""Random populations of breakers and their fitness statistics."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass

import numpy as np

from evo.core.game import Game
from evo.core.growth import random_breaker
from evo.core.kinds import Pool
from evo.core.rng import tree_generators
from evo.core.tree import Tree


def random_population(
    game: Game,
    size: int,
    *,
    seed: int | None = None,
    pool: Pool = "all",
    progress: Callable[[int], None] | None = None,
) -> list[Tree]:
    """``size`` random breakers (random path completion), reproducible from ``seed``."""
    trees = []
    for rng in tree_generators(seed, size):
        trees.append(random_breaker(game, rng=rng, pool=pool))
        if progress is not None:
            progress(1)
    return trees


@dataclass(frozen=True)
class PopulationStats:
    """Fitness (average number of guesses) of a population, as the study tabulates it."""

    game: dict  # the game's spec (evo.core.game.Game.spec)
    pool: Pool
    size: int
    min: float
    max: float
    avg: float
    std: float
    min_total: int
    max_total: int
    worst: int
    seconds: float

    def as_dict(self) -> dict:
        """The figures, the game's keys first (``pegs``, ``colors``, ``variant``)."""
        out = asdict(self)
        return {**out.pop("game"), **out}


def population_stats(trees: list[Tree], pool: Pool, seconds: float) -> PopulationStats:
    """Min, max, mean and (population) standard deviation of the average number of guesses."""
    game = trees[0].game
    totals = np.array([t.total for t in trees], dtype=np.int64)
    avgs = totals / game.num_codes
    return PopulationStats(
        game=game.spec,
        pool=pool,
        size=len(trees),
        min=float(avgs.min()),
        max=float(avgs.max()),
        avg=float(avgs.mean()),
        std=float(avgs.std()),
        min_total=int(totals.min()),
        max_total=int(totals.max()),
        worst=max(t.worst for t in trees),
        seconds=seconds,
    )


def timed_population(
    game: Game,
    size: int,
    *,
    seed: int | None,
    pool: Pool = "all",
    progress: Callable[[int], None] | None = None,
) -> tuple[list[Tree], PopulationStats]:
    """Grow a population and time it (the feedback table is built before the clock starts)."""
    game.prepare()  # one-time cost, not part of the population's time
    t0 = time.perf_counter()
    trees = random_population(game, size, seed=seed, pool=pool, progress=progress)
    return trees, population_stats(trees, pool, time.perf_counter() - t0)
