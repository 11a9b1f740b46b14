"""The operators by the names configs use: one registry for crossovers and mutations.

Each config model of an operator (:mod:`evo.config`) has a ``kind``; its other fields
but ``weight`` are the keyword parameters of the function registered here under that
kind, and an operator that takes ``pool`` also gets the run's guess pool. Adding an
operator is one function (in :mod:`~evo.ea.crossover` or :mod:`~evo.ea.mutation`), one
config model, and one line here.
"""

from __future__ import annotations

import inspect
from collections.abc import Callable
from dataclasses import dataclass
from typing import Literal

from evo.core.kinds import Pool
from evo.ea import crossover, mutation


@dataclass(frozen=True)
class Operator:
    """A variation operator: its function and its role (crossovers take two trees)."""

    function: Callable
    role: Literal["crossover", "mutation"]

    def params(self, config_params: dict, *, pool: Pool) -> dict:
        """The keyword parameters to register it with: the config's, and the pool when
        the function takes one."""
        takes_pool = "pool" in inspect.signature(self.function).parameters
        return {**config_params, "pool": pool} if takes_pool else dict(config_params)


OPERATORS: dict[str, Operator] = {
    "graft": Operator(crossover.graft_crossover, "crossover"),
    "exchange": Operator(crossover.exchange_crossover, "crossover"),
    "regrow": Operator(mutation.regrow_mutation, "mutation"),
    "best-of-k": Operator(mutation.best_of_k_mutation, "mutation"),
    "greedy": Operator(mutation.greedy_mutation, "mutation"),
    "exhaustive": Operator(mutation.exhaustive_mutation, "mutation"),
}
