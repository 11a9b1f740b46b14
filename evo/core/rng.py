"""Every random generator of evo, derived from a seed in one place: a seed fixes every
draw of a run, whatever process or island makes it.

NumPy generators come from ``SeedSequence`` entropy keys, one key per independent task
(a tree of a population, a pair of parents bred in a generation, an island), so that a
task draws the same numbers in any process and any order. Selection and migration, which
run in the main process with DEAP's ``random``-style calls, get ``random.Random``
generators of their own (other threads may draw from the shared one); a selection
registered from Python gets a NumPy generator seeded from the run's, as every operator of
one's own draws from a NumPy generator.
"""

from __future__ import annotations

import random

import numpy as np

#: Entropy tags that keep the streams of a run's seed apart.
INIT_TAG = 0x1D17  # the first population's random breakers
ISLAND_TAG = 0x151A  # the islands' own seeds
MIGRATION_TAG = 0x316  # the draws of random replacement at migration (plus the epoch)


def generator(seed: int | None = None) -> np.random.Generator:
    """A NumPy generator seeded by ``seed`` (None: fresh entropy)."""
    return np.random.default_rng(seed)


def task_generator(*key: int) -> np.random.Generator:
    """The generator of one task, seeded by its key: ``(seed, INIT_TAG, i)`` for the
    ``i``-th random breaker of a first population (:func:`init_key`), ``(seed,
    generation, pair)`` for a pair of parents bred (:func:`breed_key`)."""
    return np.random.default_rng(np.random.SeedSequence(list(key)))


def init_key(seed: int, i: int) -> tuple[int, int, int]:
    """The key of the ``i``-th random breaker of a run's first population."""
    return (seed, INIT_TAG, i)


def breed_key(seed: int, generation: int, pair: int) -> tuple[int, int, int]:
    """The key of the ``pair``-th pair of parents bred in ``generation``."""
    return (seed, generation, pair)


def tree_generators(seed: int | None, size: int) -> list[np.random.Generator]:
    """One independent generator per individual, spawned from ``seed``: a population is
    the same whatever order or process grows it."""
    return [np.random.default_rng(s) for s in np.random.SeedSequence(seed).spawn(size)]


def selection_random(seed: int) -> random.Random:
    """The run's own generator for selection, seeded by the run's seed (its state is
    saved in every checkpoint)."""
    return random.Random(seed)


def selection_generator(rnd: random.Random) -> np.random.Generator:
    """The NumPy generator a selection registered from Python draws from in one
    generation, seeded from the run's selection generator ``rnd`` (whose state every
    checkpoint saves): operators of one's own all get NumPy generators, and the built-in
    tournament keeps its ``random.Random`` draws."""
    return np.random.default_rng(rnd.getrandbits(128))


def island_seed(seed: int, i: int) -> int:
    """Island ``i``'s seed: independent streams for every island of a run's seed."""
    return int(np.random.SeedSequence([seed, ISLAND_TAG, i]).generate_state(1, np.uint32)[0])


def migration_random(seed: int, epoch: int) -> random.Random:
    """The generator of random replacement at the migration after ``epoch``."""
    return random.Random(island_seed(seed, MIGRATION_TAG + epoch))
