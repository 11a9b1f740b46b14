"""A run's state: what the engine carries from one generation to the next, and what a
checkpoint holds."""

from __future__ import annotations

import copy
from dataclasses import dataclass
from typing import Any

from deap import tools

from evo.config import Config
from evo.ea.individuals import same_tree
from evo.ea.stats import new_logbook


@dataclass
class State:
    """Everything a run needs to go on: the population, the hall of fame, the logbook, the
    selection's random state, and the time and evaluations so far (what :func:`evo.steps`
    yields).

    >>> import evo
    >>> state = next(evo.steps(evo.make_game(3, 3), seed=1))  # after generation 0
    >>> state.generation, len(state.population), state.population[0].fitness.values
    (0, 40, (83.0,))
    >>> state.halloffame[0].total, state.logbook.select("min"), state.evaluations
    (78, [78], 40)
    """

    generation: int
    population: list
    halloffame: Any
    logbook: tools.Logbook
    random_state: Any
    elapsed: float
    evaluations: int

    def snapshot(self) -> State:
        """A copy that later generations do not change (individuals are never modified
        in place, so lists of them are enough).

        >>> import evo
        >>> kept = [s.snapshot() for s in evo.steps(evo.make_game(3, 3), seed=1, generations=2)]
        >>> [(s.generation, s.halloffame[0].total) for s in kept]
        [(0, 78), (1, 73), (2, 73)]
        """
        hof = copy.copy(self.halloffame)
        hof.items = list(self.halloffame.items)
        hof.keys = list(self.halloffame.keys)
        lb = new_logbook()
        lb.extend(self.logbook)  # records are never changed once written
        return State(
            self.generation,
            list(self.population),
            hof,
            lb,
            self.random_state,
            self.elapsed,
            self.evaluations,
        )


def hall_of_fame(config: Config):
    """The Pareto front (NSGA-II), else the ``hall_of_fame`` best distinct breakers."""
    if config.selection.method == "nsga2":
        return tools.ParetoFront(similar=same_tree)
    return tools.HallOfFame(config.hall_of_fame, similar=same_tree)


def best_of(state: State, config: Config):
    """The best breaker: the hall of fame's first, or the Pareto front's least total."""
    if config.selection.method == "nsga2":
        return min(state.halloffame, key=lambda i: (i.total, i.worst))
    return state.halloffame[0]


def pareto_front(state: State, config: Config) -> list:
    """The breakers no other beats on both the total and the worst case: NSGA-II's front
    (its hall of fame), else those of the hall of fame and the population, least total
    first, one of each (total, worst) pair."""
    if config.selection.method == "nsga2":
        return sorted(state.halloffame, key=lambda i: (i.total, i.worst))
    best: dict[int, Any] = {}  # worst case -> the breaker of least total with it
    for ind in [*state.halloffame, *state.population]:
        kept = best.get(ind.worst)
        if kept is None or ind.total < kept.total:
            best[ind.worst] = ind
    front, least = [], None
    for worst in sorted(best):  # each worst case kept when its total beats every lower one's
        ind = best[worst]
        if least is None or ind.total < least:
            front.append(ind)
            least = ind.total
    return sorted(front, key=lambda i: (i.total, i.worst))
