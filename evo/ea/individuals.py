"""Individuals: breaker trees with a DEAP fitness, made by DEAP's ``creator``.

``Breaker`` minimises the total (plus a penalty past ``max_guesses``); ``ParetoBreaker``
minimises the total and the worst case (NSGA-II), ``ParetoBreaker3`` also the number of
codes at the worst case. Trees are never modified in place:
operators return new trees, so an unchanged offspring is its parent's object.
"""

from __future__ import annotations

import copy
from dataclasses import fields

import numpy as np
from deap import base, creator

from evo.core.tree import Tree


def _shallow_deepcopy(self, memo):
    """Trees are never modified in place: a copy (the hall of fame makes them) shares the
    arrays and the game (with its feedback table) and gets its own fitness."""
    new = copy.copy(self)
    new.fitness = copy.deepcopy(self.fitness, memo)
    return new


def _ensure_types() -> None:
    """Create the ``creator`` types once (importing this module twice must not warn)."""
    if not hasattr(creator, "FitnessMin"):
        creator.create("FitnessMin", base.Fitness, weights=(-1.0,))
    if not hasattr(creator, "FitnessTotalWorst"):
        creator.create("FitnessTotalWorst", base.Fitness, weights=(-1.0, -1.0))
    if not hasattr(creator, "Breaker"):
        creator.create("Breaker", Tree, fitness=creator.FitnessMin, __deepcopy__=_shallow_deepcopy)
    if not hasattr(creator, "ParetoBreaker"):
        creator.create(
            "ParetoBreaker", Tree, fitness=creator.FitnessTotalWorst, __deepcopy__=_shallow_deepcopy
        )
    if not hasattr(creator, "FitnessTotalWorstCount"):
        creator.create("FitnessTotalWorstCount", base.Fitness, weights=(-1.0, -1.0, -1.0))
    if not hasattr(creator, "ParetoBreaker3"):
        creator.create(
            "ParetoBreaker3",
            Tree,
            fitness=creator.FitnessTotalWorstCount,
            __deepcopy__=_shallow_deepcopy,
        )


_ensure_types()

_TREE_FIELDS = [f.name for f in fields(Tree) if f.name != "_cache"]


def individual_class(*, objectives: int) -> type:
    """``Breaker`` (the total), ``ParetoBreaker`` (total, worst case) or
    ``ParetoBreaker3`` (total, worst case, codes at the worst case)."""
    return {1: creator.Breaker, 2: creator.ParetoBreaker, 3: creator.ParetoBreaker3}[objectives]


def as_individual(
    cls: type, tree: Tree, values: tuple | None = None, *, crowding: float | None = None
):
    """``tree`` as an individual of ``cls`` (sharing its arrays), with fitness ``values``
    (and NSGA-II's ``crowding`` distance, which its tournament reads, when given)."""
    ind = cls(**{k: getattr(tree, k) for k in _TREE_FIELDS})
    ind._cache = dict(tree._cache)
    if values is not None:
        ind.fitness.values = values
    if crowding is not None:
        ind.fitness.crowding_dist = float(crowding)
    return ind


def as_tree(ind: Tree) -> Tree:
    """A plain :class:`Tree` with the individual's arrays (for pickling and files)."""
    tree = Tree(**{k: getattr(ind, k) for k in _TREE_FIELDS})
    tree._cache = dict(ind._cache)
    return tree


def same_tree(a: Tree, b: Tree) -> bool:
    """Two breakers are the same tree (the hall of fame keeps one of each)."""
    return a.total == b.total and len(a) == len(b) and np.array_equal(a.guess, b.guess)
