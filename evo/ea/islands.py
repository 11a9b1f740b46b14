"""Island evolution: sub-populations that evolve apart and meet along a ring.

A run of ``islands.count`` islands goes by *epochs*. In an epoch every island runs
``islands.migration.interval`` generations of the ordinary loop (:func:`generation`) as
one task, with its own config (:meth:`Config.island`: overrides and its own seed); then
each island's best ``migrants`` move to the next island of the ring, replacing its worst
(or random) ones, by DEAP's ``migRing``. A task's result depends only on its input, so
the islands give the same logbooks wherever the tasks run, and a task lost with its
worker is simply run again. The run's logbook has one record per generation over all
islands; ``islands.jsonl`` keeps each island's own.
"""

from __future__ import annotations

import functools
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from deap import tools

from evo.config import Config
from evo.core.game import Game
from evo.core.rng import migration_random
from evo.core.tree import Tree
from evo.ea.deadline import TimeLimit
from evo.ea.individuals import as_individual, as_tree, individual_class
from evo.ea.loop import generation, initial_state, stop_rule, time_left
from evo.ea.operators import Operator, install_operators
from evo.ea.selection import sel_distinct
from evo.ea.state import State, hall_of_fame
from evo.ea.stats import make_statistics, new_logbook
from evo.ea.toolbox import build_toolbox
from evo.ea.workers import use_toolbox


@dataclass
class Packed:
    """An island's state as plain data, to send to a worker and back: trees with their
    fitness values (and crowding distances for NSGA-II)."""

    generation: int
    population: list[tuple[Tree, tuple, float | None]]
    halloffame: list[tuple[Tree, tuple, float | None]]
    logbook: list[dict]
    random_state: Any
    evaluations: int
    #: per generation run in the last epoch, ``(total, worst, root)`` of every breaker
    keys: list[list[tuple[int, int, int]]]


def pack(state: State, keys: list[list[tuple[int, int, int]]] | None = None) -> Packed:
    """``state`` as plain data."""

    def entries(items) -> list[tuple[Tree, tuple, float | None]]:
        return [
            (as_tree(i), tuple(i.fitness.values), getattr(i.fitness, "crowding_dist", None))
            for i in items
        ]

    return Packed(
        state.generation,
        entries(state.population),
        entries(state.halloffame),
        [dict(r) for r in state.logbook],
        state.random_state,
        state.evaluations,
        keys or [],
    )


def unpack(packed: Packed, config: Config) -> State:
    """The state that :func:`pack` made, as DEAP individuals of ``config``'s kind."""
    cls = individual_class(objectives=config.selection.objectives)

    def individuals(entries) -> list:
        return [as_individual(cls, t, v, crowding=c) for t, v, c in entries]

    hof = hall_of_fame(config)
    hof.update(individuals(packed.halloffame))
    logbook = new_logbook()
    for r in packed.logbook:
        logbook.record(**r)
    return State(
        packed.generation,
        individuals(packed.population),
        hof,
        logbook,
        packed.random_state,
        0.0,
        packed.evaluations,
    )


_TOOLBOXES: dict[str, tuple] = {}  # per process: the toolbox of each island config


def run_epoch(
    config_data: dict,
    game: Game,
    packed: Packed | None,
    generations: int,
    planted: tuple[Tree, ...] = (),
    operators: dict[str, Operator] | None = None,
    limit: TimeLimit | None = None,
) -> Packed:
    """One island's epoch, in whichever process runs it: its first population (with the
    ``planted`` breakers) when ``packed`` is None, then ``generations`` generations. The
    ``operators`` registered from Python come along; ``limit`` is the run's time limit
    when the epoch runs in the run's own process."""
    install_operators(operators or {})
    config = Config.model_validate(config_data)
    key = config.model_dump_json()
    if key not in _TOOLBOXES:
        _TOOLBOXES[key] = (build_toolbox(config, game.prepare()), make_statistics())
    tb, stats = _TOOLBOXES[key]
    use_toolbox(tb)
    left = None if limit is None else limit.left()
    keys = []
    if packed is None:
        with tb.time_limit.within(left):
            state = initial_state(config, tb, stats, planted=planted)
        keys = [[(i.total, i.worst, int(i.guess[0])) for i in state.population]]
    else:
        state = unpack(packed, config)
    for _ in range(generations):
        generation(config, tb, stats, state, time_left=None if limit is None else limit.left())
        keys.append([(i.total, i.worst, int(i.guess[0])) for i in state.population])
    return pack(state, keys)


def migrate(islands: list[Packed], configs: list[Config], config: Config, epoch: int) -> None:
    """The ring migration after ``epoch``: each island's best ``migrants`` replace the
    next island's worst (or random) ones, by DEAP's ``migRing``; in place."""
    m = config.islands.migration
    if m.migrants == 0 or len(islands) < 2:
        return
    states = [unpack(p, c) for p, c in zip(islands, configs)]
    pops = [s.population for s in states]
    rnd = migration_random(config.seed, epoch)
    if m.replace == "worst":
        replacement = tools.selWorst
    else:
        replacement = functools.partial(sel_distinct, rng=rnd)
    k = min(m.migrants, min(len(p) for p in pops))
    tools.migRing(pops, k, tools.selBest, replacement=replacement)
    for i, s in enumerate(states):
        s.halloffame.update(s.population)
        islands[i] = pack(s, islands[i].keys)


def run_record(islands: list[Packed], index: int) -> dict:
    """The run's logbook record of the ``index``-th generation of the last epoch: the
    statistics over the breakers of all islands."""
    stats = make_statistics(key=lambda k: k)
    keys = [k for p in islands for k in p.keys[index]]
    gen = islands[0].generation - len(islands[0].keys) + 1 + index
    nevals = sum(_record_at(p, gen)["nevals"] for p in islands)
    return {"gen": gen, "nevals": nevals, **stats.compile(keys)}


def _record_at(packed: Packed, gen: int) -> dict:
    for r in reversed(packed.logbook):
        if r["gen"] == gen:
            return r
    raise KeyError(gen)


#: Runs island tasks: ``run_map(fn, [args...], limit)`` (see :mod:`~evo.ea.cluster`).
Mapper = Callable[[Callable, list[tuple], TimeLimit], list]


@dataclass
class Epochs:
    """The islands of a run between epochs, and the clock."""

    islands: list[Packed]
    epoch: int
    elapsed: float


def epochs(
    config: Config,
    game: Game,
    run_map: Mapper,
    *,
    start: Epochs | None = None,
    planted: tuple[Tree, ...] = (),
    operators: dict[str, Operator] | None = None,
) -> Iterator[Epochs]:
    """The islands after their first populations (every island gets the ``planted``
    breakers; skipped when resuming from ``start``) and after every epoch, until the run's
    stop rule holds; migration follows each epoch (not the last one). Raises
    :class:`~evo.ea.deadline.GenerationCut` when ``stop.seconds`` falls inside one."""
    configs = [config.island(i) for i in range(config.islands.count)]
    data = [c.model_dump(mode="json") for c in configs]
    limit = TimeLimit()
    before = 0.0 if start is None else start.elapsed
    clock = time.perf_counter()

    def run(packed: list[Packed | None], todo: int) -> list[Packed]:
        left = time_left(config, elapsed=before + time.perf_counter() - clock)
        with limit.within(left):  # an epoch of a big game can take minutes
            args = [(d, game, p, todo, planted, operators) for d, p in zip(data, packed)]
            return run_map(run_epoch, args, limit)

    if start is None:
        state = Epochs(run([None] * len(data), 0), 0, time.perf_counter() - clock)
        yield state
    else:
        state = start
    interval = config.islands.migration.interval
    while stop_reason(config, state) is None:
        gen = state.islands[0].generation
        todo = interval
        if config.stop.generations is not None:
            todo = min(todo, config.stop.generations - gen)
        islands = run(list(state.islands), todo)
        state = Epochs(islands, state.epoch + 1, before + time.perf_counter() - clock)
        if stop_reason(config, state) is None:
            migrate(state.islands, configs, config, state.epoch)
        yield state


def stop_reason(config: Config, state: Epochs) -> str | None:
    """Why the run stops after this epoch (the loop's stop rule, on the best of all
    islands), or None."""
    return stop_rule(
        config,
        best=min(p.logbook[-1]["min"] for p in state.islands),
        generation=state.islands[0].generation,
        elapsed=state.elapsed,
    )


def island_logbook(state: Epochs) -> list[dict]:
    """The islands' own records of the last epoch, each with its island number."""
    out = []
    for i, p in enumerate(state.islands):
        for r in p.logbook[-len(p.keys) :]:
            out.append({"island": i, **r})
    return out


def run_logbook(state: Epochs) -> tools.Logbook:
    """The run's records of the last epoch (see :func:`run_record`)."""
    lb = new_logbook()
    for k in range(len(state.islands[0].keys)):
        lb.record(**run_record(state.islands, k))
    return lb


def merged_state(config: Config, state: Epochs, records: list[dict]) -> State:
    """The run as one population sees it: every island's breakers, the halls of fame
    merged, the run's logbook ``records``."""
    hof = hall_of_fame(config)
    population = []
    for i, p in enumerate(state.islands):
        island = unpack(p, config.island(i))
        hof.update(island.halloffame)
        population += island.population
    logbook = new_logbook()
    for r in records:
        logbook.record(**r)
    evaluations = sum(r["nevals"] for r in records)
    gen = state.islands[0].generation
    return State(gen, population, hof, logbook, None, state.elapsed, evaluations)
