"""The DEAP toolbox of a config, and the breeding of a pair of parents.

``mate`` and ``mutate`` come from the operator registry (:mod:`~evo.ea.operators`);
``breed`` is what the toolbox's ``map`` runs: variation and evaluation of one pair, its
every draw from a generator seeded by ``(seed, generation, pair)``, so that the result
does not depend on which process ran it, nor in which order.
"""

from __future__ import annotations

import functools
import random
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from deap import base, tools

from evo.config import BUILTIN_KINDS, Config
from evo.core.game import Game
from evo.core.growth import Template, build_exact, random_breaker
from evo.core.rng import selection_generator, task_generator
from evo.core.tree import ARRAYS, InvalidTreeError, Tree
from evo.ea.deadline import TimeLimit
from evo.ea.fitness import evaluate_total, evaluate_total_worst
from evo.ea.individuals import as_tree, individual_class
from evo.ea.operators import OPERATORS, OperatorError
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
    run = {"pool": config.pool, "time_limit": tb.time_limit, "max_guesses": config.max_guesses}
    cx = config.crossover.operator
    op = OPERATORS[cx.kind]
    tb.register("mate", guarded(op.function, cx.kind), **op.params(_entry_params(cx), **run))
    names, kinds, weights = [], [], []
    for i, m in enumerate(config.mutation.operators):
        op = OPERATORS[m.kind]
        name = f"mutate_{m.kind.replace('-', '_')}"
        if hasattr(tb, name):
            name = f"{name}_{i}"
        tb.register(name, guarded(op.function, m.kind), **op.params(_entry_params(m), **run))
        names.append(name)
        kinds.append(m.kind)
        weights.append(m.weight)
    tb.mutation_names = names
    tb.mutation_kinds = kinds
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
        if config.selection.method == "tournament":
            tb.register("select", sel_tournament, tournsize=config.selection.tournament_size)
        else:  # registered from Python
            chosen = OPERATORS[config.selection.method]
            tb.register(
                "select",
                checked_selection(chosen.function, config.selection.method),
                **chosen.defaults,
            )
    tb.register("individual", random_breaker, game, pool=config.population.init.pool)
    tb.register("breed", breed, tb)
    tb.register("map", tb.time_limit.map)
    return tb


def guarded(function: Callable, operator: str) -> Callable:
    """The function of ``operator``, with the trees it is given read-only when it was
    registered from Python: one that changes them in place (the population's own trees,
    which would then disagree with their fitness) raises :class:`OperatorError` naming
    it, where its parent would have been corrupted unseen. Built-in operators are
    trusted, and called as they are."""
    if operator in BUILTIN_KINDS:
        return function

    @functools.wraps(function)
    def call(*trees: Tree, **kwargs: Any) -> Any:
        with _read_only(trees, operator=operator):
            return function(*trees, **kwargs)

    return call


@contextmanager
def _read_only(trees: tuple[Tree, ...], *, operator: str) -> Iterator[None]:
    """``trees``' arrays (and those they cache) read-only while the block runs; then
    :class:`OperatorError` naming ``operator`` when it wrote into one, or gave a tree
    other arrays or another cache."""
    frozen: list[np.ndarray] = []
    before = []
    for tree in trees:
        if not isinstance(tree, Tree):
            continue
        own = {name: getattr(tree, name) for name in ARRAYS}
        before.append((tree, own, tree._cache, dict(tree._cache)))
        for a in [*own.values(), *tree._cache.values()]:
            if isinstance(a, np.ndarray) and a.flags.writeable:
                a.flags.writeable = False
                frozen.append(a)
    try:
        yield
    except ValueError as e:
        if "read-only" not in str(e):
            raise
        raise OperatorError(_changed(operator, f"it wrote into one: {e}")) from None
    finally:  # the arrays that own their memory first: a view follows its base
        for a in sorted(frozen, key=lambda a: isinstance(a.base, np.ndarray)):
            a.flags.writeable = True
    for tree, own, cache, kept in before:
        if any(getattr(tree, name) is not a for name, a in own.items()) or tree._cache is not cache:
            raise OperatorError(_changed(operator, "it gave one other arrays"))
        if any(cache.get(key) is not value for key, value in kept.items()):
            raise OperatorError(_changed(operator, "it changed what one had computed"))


def _changed(operator: str, how: str) -> str:
    return (
        f"the operator {operator!r} changed the tree it was given ({how}); an operator "
        "returns a new tree and leaves its input as it is (docs/DESIGN.md §7)"
    )


def _entry_params(entry) -> dict:
    """The keyword parameters a config's operator entry gives its function."""
    if hasattr(entry, "params"):  # registered from Python: its extra keys
        return entry.params()
    return entry.model_dump(exclude={"kind", "weight"})


def mutate(tb: base.Toolbox, tree: Tree, *, rng: np.random.Generator) -> Tree:
    """One of the toolbox's mutation operators, drawn with probability proportional to
    its weight, applied to ``tree``."""
    k = min(
        int(np.searchsorted(tb.mutation_cum, rng.random(), side="right")),
        len(tb.mutation_names) - 1,
    )
    child = getattr(tb, tb.mutation_names[k])(tree, rng=rng)
    return checked(child, tree, operator=tb.mutation_kinds[k])


def checked(child: Any, parent: Tree, *, operator: str) -> Tree:
    """``child``, an operator's result, once it is known to be a whole breaker of the
    parent's game: the parent itself (nothing changed), or a tree of every code. An
    operator registered from Python is not trusted further: its tree is rebuilt from its
    guesses and feedbacks, every code played (:func:`~evo.core.growth.build_exact`), so
    no fitness is counted from arrays that disagree. Raises :class:`OperatorError`
    naming the operator."""
    if child is parent:
        return child
    if not isinstance(child, Tree):
        raise OperatorError(
            f"the operator {operator!r} returned {type(child).__name__}, not a tree"
        )
    game = parent.game
    if child.game.key != game.key:
        raise OperatorError(f"the operator {operator!r} returned a tree of {child.game.name}")
    if child.num_codes != parent.num_codes or len(child) == 0 or child.count[0] != child.num_codes:
        raise OperatorError(
            f"the operator {operator!r} returned a tree of {child.num_codes:,} codes, not a "
            f"breaker of all {parent.num_codes:,} (a subtree not spliced back into its tree?)"
        )
    if operator in BUILTIN_KINDS:
        return child
    try:
        rebuilt = build_exact(game, Template.of(child), codes=parent.codes)
    except InvalidTreeError as e:
        raise OperatorError(
            f"the operator {operator!r} returned a tree that is not valid: {e}"
        ) from None
    return rebuilt


def breed(tb: base.Toolbox, parents: tuple[Tree, Tree], key: tuple[int, ...]) -> list[Bred]:
    """Offspring of two parents: crossover with probability ``crossover.rate``, then each
    child mutated with probability ``mutation.rate`` (``mutation.repeat`` times); draws
    from a generator seeded by ``key``. Returns ``[(tree, fitness values)]``, with
    ``(None, None)`` for a child identical to its parent (nothing to send or evaluate)."""
    rng = task_generator(*key)
    cfg = tb.config
    a, b = parents
    kids = [a, b]
    if rng.random() < cfg.crossover.rate:
        kind = cfg.crossover.operator.kind
        pair = tb.mate(a, b, rng=rng)
        if not isinstance(pair, tuple | list) or len(pair) != 2:
            got = type(pair).__name__
            raise OperatorError(f"the crossover {kind!r} returned a {got}, not two trees")
        kids = [checked(k, p, operator=kind) for k, p in zip(pair, (a, b))]
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


def checked_selection(function: Callable, name: str) -> Callable:
    """A registered selection, called as the loop calls the tournament (with the run's
    ``random.Random``), that draws from a NumPy generator seeded from it
    (:func:`~evo.core.rng.selection_generator`) and whose result is checked: a list of
    the individuals it was given, as many as asked (:class:`OperatorError` naming it
    otherwise)."""

    def select(individuals: list, k: int, *, rng: random.Random, **kw: Any) -> list:
        chosen = function(individuals, k, rng=selection_generator(rng), **kw)
        ids = {id(i) for i in individuals}
        if not isinstance(chosen, list | tuple) or len(chosen) != k:
            raise OperatorError(
                f"the selection {name!r} returned {type(chosen).__name__} of "
                f"{len(chosen) if hasattr(chosen, '__len__') else '?'} items, not a list of {k}"
            )
        if any(id(i) not in ids for i in chosen):
            raise OperatorError(f"the selection {name!r} returned breakers it was not given")
        return list(chosen)

    return select
