"""The DEAP toolbox of a config, and the breeding of a pair of parents.

``mate`` and ``mutate`` come from the operator registry (:mod:`~evo.ea.operators`);
``breed`` is what the toolbox's ``map`` runs: variation and evaluation of one pair, its
every draw from a generator seeded by ``(seed, generation, pair)``, so that the result
does not depend on which process ran it, nor in which order.
"""

from __future__ import annotations

import numpy as np
from deap import base, tools

from evo.config import Config
from evo.core.game import Game
from evo.core.growth import random_breaker
from evo.core.tree import Tree
from evo.ea.deadline import TimeLimit
from evo.ea.fitness import evaluate_total, evaluate_total_worst
from evo.ea.individuals import as_tree, individual_class
from evo.ea.operators import OPERATORS
from evo.ea.selection import sel_tournament

#: A bred child and its fitness values, or ``(None, None)`` for a copy of its parent.
Bred = tuple[Tree, tuple[int, ...]] | tuple[None, None]


def build_toolbox(config: Config, game: Game) -> base.Toolbox:
    """The toolbox of a config: ``mate``; one ``mutate_<kind>`` per mutation operator
    and ``mutate`` (one of them, drawn by weight); ``evaluate``; ``select``;
    ``individual``; ``breed``; ``map`` (in this process, stopping at the time limit, or
    a process pool's); and ``time_limit``, the :class:`~evo.ea.deadline.TimeLimit` that
    the loop sets around a generation and the operators that take it check."""
    tb = base.Toolbox()
    tb.game = game
    tb.config = config
    tb.time_limit = TimeLimit()
    run = {"pool": config.pool, "time_limit": tb.time_limit}
    cx = config.crossover.operator
    op = OPERATORS[cx.kind]
    tb.register("mate", op.function, **op.params(_entry_params(cx), **run))
    names, weights = [], []
    for i, m in enumerate(config.mutation.operators):
        op = OPERATORS[m.kind]
        name = f"mutate_{m.kind.replace('-', '_')}"
        if hasattr(tb, name):
            name = f"{name}_{i}"
        tb.register(name, op.function, **op.params(_entry_params(m), **run))
        names.append(name)
        weights.append(m.weight)
    tb.mutation_names = names
    w = np.array(weights, dtype=np.float64)
    tb.mutation_cum = np.cumsum(w) / w.sum() if w.sum() > 0 else None
    tb.register("mutate", mutate, tb)
    pareto = config.selection.method == "nsga2"
    tb.cls = individual_class(objectives=config.selection.objectives)
    if pareto:
        tb.register("evaluate", evaluate_total_worst, at_worst=config.selection.at_worst)
        tb.register("select", tools.selNSGA2)
    else:
        tb.register("evaluate", evaluate_total, max_guesses=config.max_guesses)
        tb.register("select", sel_tournament, tournsize=config.selection.tournament_size)
    tb.register("individual", random_breaker, game, pool=config.population.init.pool)
    tb.register("breed", breed, tb)
    tb.register("map", tb.time_limit.map)
    return tb


def _entry_params(entry) -> dict:
    """The keyword parameters a config's operator entry gives its function."""
    if hasattr(entry, "params"):  # registered from Python: its extra keys
        return entry.params()
    return entry.model_dump(exclude={"kind", "weight"})


def mutate(tb: base.Toolbox, tree: Tree, *, rng: np.random.Generator) -> Tree:
    """One of the toolbox's mutation operators, drawn with probability proportional to
    its weight, applied to ``tree``."""
    k = int(np.searchsorted(tb.mutation_cum, rng.random(), side="right"))
    return getattr(tb, tb.mutation_names[min(k, len(tb.mutation_names) - 1)])(tree, rng=rng)


def breed(tb: base.Toolbox, parents: tuple[Tree, Tree], key: tuple[int, ...]) -> list[Bred]:
    """Offspring of two parents: crossover with probability ``crossover.rate``, then each
    child mutated with probability ``mutation.rate`` (``mutation.repeat`` times); draws
    from a generator seeded by ``key``. Returns ``[(tree, fitness values)]``, with
    ``(None, None)`` for a child identical to its parent (nothing to send or evaluate)."""
    rng = np.random.default_rng(np.random.SeedSequence(list(key)))
    cfg = tb.config
    a, b = parents
    kids = [a, b]
    if rng.random() < cfg.crossover.rate:
        kids = list(tb.mate(a, b, rng=rng))
    out: list[Bred] = []
    for child, parent in zip(kids, (a, b)):
        if cfg.mutation.rate > 0 and rng.random() < cfg.mutation.rate:
            for _ in range(cfg.mutation.repeat):
                tb.time_limit.check()  # a cut generation is thrown away: stopping is safe
                child = tb.mutate(child, rng=rng)
        if child is parent:
            out.append((None, None))
        else:
            out.append((as_tree(child), tb.evaluate(child)))
    return out
