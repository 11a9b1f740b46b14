"""The generational loop, read top to bottom like DEAP's ``eaSimple``.

A generation (tournament selection)::

    parents    = select(population, size - elitism)       # a seeded random.Random
    offspring  = map(breed, pairs of parents)              # variation and evaluation
    population = best `elitism` of the old population + offspring

With NSGA-II the offspring are as many as the population and ``selNSGA2`` keeps the best
``size`` of both. ``breed`` draws from generators seeded by ``(seed, generation, pair)``
(:mod:`~evo.ea.toolbox`), so the logbook is the same for 1 or many workers, and after a
resume. The loop knows nothing of run directories or baselines: :mod:`evo.runs.driver`
runs it, with checkpoints, signals and progress.
"""

from __future__ import annotations

import os
import random
import time
from collections.abc import Iterator, Sequence

from deap import base, tools

from evo.config import Config
from evo.core.game import Game, game_from_spec
from evo.core.numbers import budget_bytes
from evo.core.rng import breed_key, init_key, selection_random
from evo.core.tree import Tree
from evo.ea.individuals import as_individual, as_tree
from evo.ea.selection import sel_tournament_dcd
from evo.ea.state import State, hall_of_fame
from evo.ea.stats import new_logbook
from evo.ea.workers import breed_task, individual_task


def config_game(config: Config, *, cache: str | os.PathLike | None = None) -> Game:
    """The config's game, checked to fit in memory with the run's breakers
    (:class:`~evo.core.game.GameTooLargeError` before any work)."""
    g = config.game
    memory = None if g.memory_gib is None else budget_bytes(g.memory_gib, what="game.memory_gib")
    return game_from_spec(g.spec, trees=config.population.size * 2, memory=memory, cache=cache)


def initial_state(
    config: Config, tb: base.Toolbox, stats: tools.Statistics, *, planted: Sequence[Tree] = ()
) -> State:
    """Generation 0: the ``planted`` breakers (at most ``population.size``) and random
    breakers for the rest, evaluated."""
    size = config.population.size
    planted = list(planted)[:size]
    keys = [init_key(config.seed, i) for i in range(size - len(planted))]
    pop = [as_individual(tb.cls, t, v) for t, v in tb.map(individual_task, keys)]
    pop += [as_individual(tb.cls, t, tb.evaluate(t)) for t in planted]
    rnd = selection_random(config.seed)
    if config.selection.method == "nsga2":
        pop = tb.select(pop, len(pop))  # assigns the crowding distances selection needs
    hof = hall_of_fame(config)
    hof.update(pop)
    logbook = new_logbook()
    logbook.record(gen=0, nevals=len(pop), **stats.compile(pop))
    return State(0, pop, hof, logbook, rnd.getstate(), 0.0, len(pop))


def generation(
    config: Config,
    tb: base.Toolbox,
    stats: tools.Statistics,
    state: State,
    *,
    time_left: float | None = None,
) -> None:
    """One generation: selection, breeding (mapped), replacement, statistics. When
    ``time_left`` seconds pass during the breeding,
    :class:`~evo.ea.deadline.GenerationCut` is raised and ``state`` is left as it was."""
    rnd = random.Random()  # the run's own: other threads may draw from the shared one
    rnd.setstate(state.random_state)
    pop = state.population
    size = config.population.size
    gen = state.generation + 1
    if config.selection.method == "nsga2":
        n_off = size
        if size % 4 == 0:
            parents = sel_tournament_dcd(pop, size, rng=rnd)
        else:
            parents = rnd.sample(pop, size)
    else:
        n_off = size - config.elitism
        parents = tb.select(pop, n_off + n_off % 2, rng=rnd)
    pairs = [(parents[2 * k], parents[2 * k + 1]) for k in range(len(parents) // 2)]
    tasks = [
        ((as_tree(a), as_tree(b)), breed_key(config.seed, gen, k)) for k, (a, b) in enumerate(pairs)
    ]
    with tb.time_limit.within(time_left):
        bred = list(tb.map(breed_task, tasks))  # GenerationCut past the time left
    offspring, nevals = [], 0
    for (a, b), kids in zip(pairs, bred):
        for parent, (tree, values) in zip((a, b), kids):
            if tree is None:  # a copy of its own: NSGA-II keeps per-individual state
                offspring.append(as_individual(tb.cls, parent, parent.fitness.values))
            else:
                offspring.append(as_individual(tb.cls, tree, values))
                nevals += 1
    offspring = offspring[:n_off]
    if config.selection.method == "nsga2":
        pop = tb.select(pop + offspring, size)
    else:
        pop = tools.selBest(pop, config.elitism) + offspring
    state.halloffame.update(pop)
    state.population = pop
    state.generation = gen
    state.evaluations += nevals
    state.logbook.record(gen=gen, nevals=nevals, **stats.compile(pop))
    state.random_state = rnd.getstate()


def generations(
    config: Config, tb: base.Toolbox, stats: tools.Statistics, state: State
) -> Iterator[State]:
    """Generations from ``state`` on, until the stop rule holds: ``state``, updated in
    place, after each. The time limit (``stop.seconds``) also holds inside a generation,
    which is then abandoned with :class:`~evo.ea.deadline.GenerationCut`."""
    before, clock = state.elapsed, time.perf_counter()
    while stop_reason(config, state) is None:
        now = before + time.perf_counter() - clock
        generation(config, tb, stats, state, time_left=time_left(config, elapsed=now))
        state.elapsed = before + time.perf_counter() - clock
        yield state


def stop_reason(config: Config, state: State) -> str | None:
    """Why the run stops now (``target_total``, ``generations``, ``seconds``), or None."""
    return stop_rule(
        config, best=state.logbook[-1]["min"], generation=state.generation, elapsed=state.elapsed
    )


def time_left(config: Config, *, elapsed: float) -> float | None:
    """Seconds the run may still take after ``elapsed`` (``stop.seconds``), or None."""
    return None if config.stop.seconds is None else config.stop.seconds - elapsed


def stop_rule(config: Config, *, best: int, generation: int, elapsed: float) -> str | None:
    """The config's stop rule for a run at ``generation`` with ``best`` total after
    ``elapsed`` seconds (for one population or for islands)."""
    s = config.stop
    if s.target_total is not None and best <= s.target_total:
        return "target_total"
    if s.generations is not None and generation >= s.generations:
        return "generations"
    if s.seconds is not None and elapsed >= s.seconds:
        return "seconds"
    return None
