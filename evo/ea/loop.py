"""The generational loop, read top to bottom like DEAP's ``eaSimple``.

A generation (tournament selection)::

    parents    = select(population, size - elitism)       # Python's random, seeded
    offspring  = map(breed, pairs of parents)              # variation and evaluation
    population = best `elitism` of the old population + offspring

With NSGA-II the offspring are as many as the population and ``selNSGA2`` keeps the best
``size`` of both. ``breed`` draws from generators seeded by ``(seed, generation, pair)``
(:mod:`~evo.ea.toolbox`), so the logbook is the same for 1 or many workers, and after a
resume.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from deap import base, tools

from evo.config import Config
from evo.ea.checkpoint import Recorder, State, hall_of_fame
from evo.ea.individuals import as_individual, as_tree
from evo.ea.progress import Progress
from evo.ea.stats import make_statistics, new_logbook
from evo.ea.summary import RunSummary, best_of, make_summary
from evo.ea.toolbox import build_toolbox
from evo.ea.workers import breed_task, individual_task, worker_pool
from evo.game import make_game
from evo.rundir import write_best, write_summary
from evo.tree import Tree

_INIT_TAG = 0x1D17  # seed sequence tag of the first population's draws


class RunInterrupted(Exception):
    """The run was stopped (Ctrl-C) after ``generation``; a checkpoint was written."""

    def __init__(self, generation: int, path: Path | None):
        super().__init__(f"interrupted after generation {generation}")
        self.generation = generation
        self.path = path


@dataclass
class Result:
    """The end of a run."""

    best: Tree
    state: State
    summary: RunSummary


def evolve(
    config: Config,
    *,
    run_dir: Path | None = None,
    resume: bool = False,
    progress: bool = True,
    on_generation: Callable[[int, list, tools.Logbook], None] | None = None,
    knuth: int | None | bool = True,
) -> Result:
    """Run (or, with ``resume``, continue from ``run_dir``'s checkpoint) the evolution of
    ``config``; write the logbook, checkpoints, best breaker and summary into ``run_dir``
    when given. ``on_generation(gen, population, logbook)`` is called after every
    generation. ``knuth``: Knuth's total to compare with (True: computed, False: none).
    Raises :class:`RunInterrupted` on Ctrl-C, after writing a checkpoint."""
    g = config.game
    game = make_game(g.pegs, g.colors, g.variant, trees=config.population.size * 2)
    game.prepare()  # the feedback table, built once per process
    knuth_total = _knuth(game, knuth)
    toolbox = build_toolbox(config, game)
    stats = make_statistics()
    recorder = Recorder(run_dir, config)
    clock = time.perf_counter()
    try:
        with worker_pool(config, toolbox):
            state = recorder.load(game) if resume else initial_state(config, toolbox, stats)
            elapsed_before = state.elapsed if resume else time.perf_counter() - clock
            state.elapsed = elapsed_before
            recorder.start(state, resumed=resume)
            if on_generation is not None and not resume:
                on_generation(0, state.population, state.logbook)
            clock = time.perf_counter()
            with Progress(config, state, knuth=knuth_total, enabled=progress) as bar:
                while (stopped_by := stop_reason(config, state)) is None:
                    generation(config, toolbox, stats, state)
                    state.elapsed = elapsed_before + time.perf_counter() - clock
                    recorder.generation_done(state)
                    bar.update(state)
                    if on_generation is not None:
                        on_generation(state.generation, state.population, state.logbook)
    except KeyboardInterrupt:
        raise RunInterrupted(recorder.interrupted(), run_dir) from None
    recorder.save(state)
    best = as_tree(best_of(state, config))
    summary = make_summary(config, game, state, best, knuth=knuth_total, stopped_by=stopped_by)
    if run_dir is not None:
        write_best(run_dir, best, run=Path(run_dir).name, config=config.name)
        write_summary(run_dir, summary)
    return Result(best, state, summary)


def _knuth(game, knuth: int | None | bool) -> int | None:
    """Knuth's total to show beside the run: computed (True), none (False), or given."""
    if knuth is True:
        from evo.baselines import knuth_total

        return knuth_total(game)
    return None if knuth is False else knuth


def initial_state(config: Config, tb: base.Toolbox, stats: tools.Statistics) -> State:
    """Generation 0: random breakers (and the configured baselines), evaluated."""
    size = config.population.size
    planted = _baseline_trees(tb.game, config.population.init.baselines)[:size]
    keys = [(config.seed, _INIT_TAG, i) for i in range(size - len(planted))]
    pop = [as_individual(tb.cls, t, v) for t, v in tb.map(individual_task, keys)]
    pop += [as_individual(tb.cls, t, tb.evaluate(t)) for t in planted]
    random.seed(config.seed)
    if config.selection.method == "nsga2":
        pop = tb.select(pop, len(pop))  # assigns the crowding distances selection needs
    hof = hall_of_fame(config)
    hof.update(pop)
    logbook = new_logbook()
    logbook.record(gen=0, nevals=len(pop), **stats.compile(pop))
    return State(0, pop, hof, logbook, random.getstate(), 0.0, len(pop))


def _baseline_trees(game, names: list[str]) -> list[Tree]:
    if not names:
        return []
    from evo.baselines import run

    return [run(game, name, rc_seeds=0).tree for name in names]


def generation(config: Config, tb: base.Toolbox, stats: tools.Statistics, state: State) -> None:
    """One generation: selection, breeding (mapped), replacement, statistics."""
    random.setstate(state.random_state)
    pop = state.population
    size = config.population.size
    gen = state.generation + 1
    if config.selection.method == "nsga2":
        n_off = size
        parents = tools.selTournamentDCD(pop, size) if size % 4 == 0 else random.sample(pop, size)
    else:
        n_off = size - config.elitism
        parents = tb.select(pop, n_off + n_off % 2)
    pairs = [(parents[2 * k], parents[2 * k + 1]) for k in range(len(parents) // 2)]
    tasks = [((as_tree(a), as_tree(b)), (config.seed, gen, k)) for k, (a, b) in enumerate(pairs)]
    offspring, nevals = [], 0
    for (a, b), kids in zip(pairs, tb.map(breed_task, tasks)):
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
    state.random_state = random.getstate()


def stop_reason(config: Config, state: State) -> str | None:
    """Why the run stops now (``target_total``, ``generations``, ``seconds``), or None."""
    s = config.stop
    best = state.logbook[-1]["min"]
    if s.target_total is not None and best <= s.target_total:
        return "target_total"
    if s.generations is not None and state.generation >= s.generations:
        return "generations"
    if s.seconds is not None and state.elapsed >= s.seconds:
        return "seconds"
    return None
