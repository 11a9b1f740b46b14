"""The operators by the names configs use: one registry for crossovers, mutations and
the selections registered from Python.

Each operator is a plain function (a mutation ``op(tree, *, rng, **params) -> tree``, a
crossover ``op(a, b, *, rng, **params) -> (a, b)``, a selection ``op(individuals, k, *,
rng, **params) -> list``; ``rng`` a NumPy generator for all three) registered under a
name, as DEAP's toolbox registers functions. A config entry names a crossover or a
mutation by ``kind`` (a selection by ``selection.method``); its other fields but
``weight`` are the function's keyword parameters. An operator that takes ``pool`` gets
the run's guess pool, one that takes ``time_limit`` the run's
:class:`~evo.ea.deadline.TimeLimit`, one that takes ``max_guesses`` the run's limit on the
worst case (None: none).

Operators of one's own are registered from Python with :func:`register_operator`. Worker
processes get them with the run: a pool's workers by value as they start, and an island
task on Dask carries them (pickled by reference: the function must be importable on the workers,
or be defined in ``__main__``, which Dask ships by value).
"""

from __future__ import annotations

import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any, Literal, get_args

from evo.config import BUILTIN_KINDS, BUILTIN_SELECTIONS, register_kind
from evo.ea import crossover, mutation

Role = Literal["crossover", "mutation", "selection"]

#: The roles an operator registered from Python may have (:data:`Role`'s values).
ROLES: tuple[Role, ...] = get_args(Role)

#: What the toolbox hands to an operator that asks for it by parameter name.
RUN_PARAMETERS = ("pool", "time_limit", "max_guesses")


class OperatorError(RuntimeError):
    """An operator returned what is not a breaker of its parent's game: the message names
    the operator (a bug of the operator, not of the run)."""


@dataclass(frozen=True)
class Operator:
    """A variation operator: its function, its role (crossovers take two trees) and the
    parameters it was registered with (a config's entry overrides them)."""

    function: Callable
    role: Role
    defaults: Mapping[str, Any] = field(default_factory=dict)

    def params(self, config_params: dict, **run: Any) -> dict:
        """The keyword parameters to register it with: its defaults, the config's, and
        those of ``run`` (pool, time limit) that the function takes."""
        takes = inspect.signature(self.function).parameters
        given = {k: v for k, v in run.items() if k in takes}
        return {**self.defaults, **config_params, **given}


OPERATORS: dict[str, Operator] = {
    "graft": Operator(crossover.graft_crossover, "crossover"),
    "exchange": Operator(crossover.exchange_crossover, "crossover"),
    "regrow": Operator(mutation.regrow_mutation, "mutation"),
    "best-of-k": Operator(mutation.best_of_k_mutation, "mutation"),
    "greedy": Operator(mutation.greedy_mutation, "mutation"),
    "exhaustive": Operator(mutation.exhaustive_mutation, "mutation"),
}


def register_operator(
    name: str, function: Callable, *, role: Role = "mutation", **params: Any
) -> None:
    """Make ``function`` an operator that configs can name, with ``params`` as its default
    keyword parameters (as ``toolbox.register`` does): a mutation or a crossover as
    ``kind: name``, a selection as ``selection.method: name``.

    Every operator draws only from ``rng``, a NumPy ``Generator`` (the same kind for all
    three roles), and never changes its inputs. A mutation is called ``function(tree,
    rng=..., **params)`` and returns a tree (the same object when nothing changed); a
    crossover ``function(a, b, rng=..., **params)`` and returns two; a selection
    ``function(individuals, k, rng=..., **params)`` and returns ``k`` of the individuals
    to breed (:func:`register_selection`). A config entry may set any keyword parameter of
    a mutation or a crossover (and ``weight``, for mutations). Registering a name again
    replaces it; the built-in names cannot be replaced.

    >>> import evo
    >>> from evo.ops import grow, offer, pick_node
    >>> def best_of_two(tree, *, rng, pool="all"):
    ...     node = pick_node(tree, rng=rng)  # a node of 3 codes or more, or None
    ...     if node is None:
    ...         return tree
    ...     subs = [grow(tree.game, tree.code_set(node), rng=rng, pool=pool) for _ in range(2)]
    ...     return offer(tree, node, min(subs, key=lambda s: s.total), keep_current=True)
    >>> evo.register_operator("best-of-two", best_of_two)
    >>> config = {"mutation": {"operators": [{"kind": "best-of-two"}]}}
    >>> evo.evolve(evo.make_game(3, 3), config, seed=1, generations=5).logbook.select("min")
    [78, 76, 76, 74, 74, 74]
    """
    if role not in ROLES:
        raise ValueError(f"role must be one of {', '.join(map(repr, ROLES))}, not {role!r}")
    what = "selection" if role == "selection" else "operator"
    if name in BUILTIN_KINDS or name in BUILTIN_SELECTIONS:
        raise ValueError(f"{name!r} is a built-in {what}; register yours under another name")
    if not callable(function):
        raise TypeError(f"the {what} {name!r} must be a function, not {function!r}")
    takes = inspect.signature(function).parameters
    any_keyword = any(p.kind is p.VAR_KEYWORD for p in takes.values())
    if "rng" not in takes and not any_keyword:
        raise TypeError(f"the {what} {name!r} must take the generator as keyword 'rng'")
    unknown = set(params) - set(takes)
    if unknown and not any_keyword:
        raise TypeError(f"{function.__name__} takes no parameter {', '.join(sorted(unknown))}")
    keywords: set[str] | None = None  # any, for a function that takes **kwargs
    if role == "selection":
        keywords = set()  # a config names a selection; its parameters are registered here
    elif not any_keyword:
        keywords = {
            k
            for k, p in takes.items()
            if p.kind in (p.KEYWORD_ONLY, p.POSITIONAL_OR_KEYWORD) and k not in RUN_PARAMETERS
        }
        keywords -= {"rng", *list(takes)[: 2 if role == "crossover" else 1]}
    register_kind(name, role, keywords)
    OPERATORS[name] = Operator(function, role, dict(params))


def register_selection(name: str, function: Callable, **params: Any) -> None:
    """Make ``function`` a selection that configs can name as ``selection.method: name``,
    with ``params`` as its default keyword parameters (``register_operator(name, function,
    role="selection", **params)``). It is called ``function(individuals, k, rng=...,
    **params)`` and returns ``k`` individuals to breed (a list, repeats allowed), drawing
    only from ``rng``: a NumPy ``Generator``, as mutations and crossovers get, drawn from
    the run's selection stream (which checkpoints save, so a resumed run selects alike).
    An individual's ``fitness.values[0]`` is its total (less is better). It replaces the
    tournament on the total (``nsga2`` stays built in).

    >>> import evo
    >>> def best_half(individuals, k, *, rng):
    ...     ranked = sorted(individuals, key=lambda i: i.fitness.values[0])
    ...     return [ranked[i] for i in rng.integers(len(ranked) // 2, size=k)]
    >>> evo.register_selection("best-half", best_half)
    >>> config = {"selection": {"method": "best-half"}}
    >>> evo.evolve(evo.make_game(3, 3), config, seed=1, generations=3).logbook.select("min")
    [78, 73, 73, 73]
    """
    register_operator(name, function, role="selection", **params)


def custom_operators(kinds: set[str]) -> dict[str, Operator]:
    """The operators registered from Python among ``kinds`` (a config's), to send along
    with a task to a process that did not register them."""
    return {k: OPERATORS[k] for k in kinds if k not in BUILTIN_KINDS and k in OPERATORS}


def install_operators(operators: Mapping[str, Operator]) -> None:
    """Register operators received from another process (see :func:`custom_operators`)."""
    for name, op in operators.items():
        if OPERATORS.get(name) is op:
            continue
        register_operator(name, op.function, role=op.role, **op.defaults)
