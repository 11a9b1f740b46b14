"""The generational loop, read top to bottom like DEAP's ``eaSimple``.

A generation (tournament selection)::

    parents    = select(population, size - elitism)       # a seeded random.Random
    offspring  = map(breed, pairs of parents)              # variation and evaluation
    population = best `elitism` of the old population + offspring

With NSGA-II the offspring are as many as the population and ``selNSGA2`` keeps the best
``size`` of both. ``breed`` draws from generators seeded by ``(seed, generation, pair)``
(:mod:`~evo.ea.toolbox`), so the logbook is the same for 1 or many workers, and after a
resume.
"""

from __future__ import annotations

import contextlib
import os
import random
import signal
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from deap import base, tools

from evo.config import Config, ConfigError
from evo.core.game import Game, make_game
from evo.core.tree import Tree
from evo.ea.deadline import GenerationCut, time_limit
from evo.ea.individuals import as_individual, as_tree
from evo.ea.selection import sel_tournament_dcd
from evo.ea.stats import make_statistics, new_logbook
from evo.ea.toolbox import build_toolbox
from evo.ea.workers import WorkerLost, breed_task, individual_task, worker_pool
from evo.runs.checkpoint import Recorder, State, hall_of_fame
from evo.runs.progress import Progress
from evo.runs.rundir import lock_run, write_best, write_summary
from evo.runs.summary import RunSummary, best_of, make_summary

_INIT_TAG = 0x1D17  # seed sequence tag of the first population's draws


#: Signals that stop a run: Ctrl-C, and ``kill``, ``timeout``, batch schedulers, a closed
#: terminal. The first one lets the generation under way finish, then the run is
#: checkpointed and stops; a second one abandons that generation at once.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)


class RunInterrupted(Exception):
    """The run was stopped (Ctrl-C, SIGTERM or SIGHUP: ``signal``; or ``reason``) after
    ``generation``; a checkpoint was written."""

    def __init__(
        self,
        generation: int,
        path: Path | None,
        signal: str = "SIGINT",
        *,
        reason: str | None = None,
    ):
        super().__init__(reason or f"interrupted by {signal} after generation {generation}")
        self.generation = generation
        self.path = path
        self.signal = signal
        self.reason = reason  # what stopped it, when not a signal (a lost cluster)


@contextlib.contextmanager
def _stop_signals() -> Iterator[dict]:
    """While running, the first of :data:`STOP_SIGNALS` is noted (the loop stops after the
    generation under way: an exception raised at any point could land inside a library),
    a second one raises ``KeyboardInterrupt`` at once. Yields a dict that gets the first
    signal's name."""
    got: dict[str, str] = {}
    if threading.current_thread() is not threading.main_thread():
        yield got
        return

    owner = os.getpid()

    def stop(signum: int, frame: object) -> None:
        if os.getpid() != owner:  # a forked worker: the signal's default action
            signal.signal(signum, signal.SIG_DFL)
            os.kill(os.getpid(), signum)
            return
        if "signal" not in got:
            got["signal"] = signal.Signals(signum).name
        elif not got.get("abandoned"):
            got["abandoned"] = "yes"
            raise KeyboardInterrupt

    old = {s: signal.signal(s, stop) for s in STOP_SIGNALS}
    try:
        yield got
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


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
    Raises :class:`RunInterrupted` on Ctrl-C, SIGTERM or SIGHUP, after writing a
    checkpoint; :class:`~evo.runs.rundir.RunLockedError` when another process writes
    ``run_dir``; :class:`~evo.runs.checkpoint.CheckpointWriteError` when a write fails."""
    game = check_run(config)
    lock = lock_run(run_dir) if run_dir is not None else contextlib.nullcontext()
    with lock:
        game.prepare()  # the feedback table, built once per process
        knuth_total = _knuth(game, knuth)
        toolbox = build_toolbox(config, game)
        stats = make_statistics()
        stopped_by: str | None = None

        def write_state(state: State, status: str) -> None:
            """best.json and summary.json as of ``state``, at every checkpoint."""
            if run_dir is None:
                return
            best = as_tree(best_of(state, config))
            summary = make_summary(
                config, game, state, best, knuth=knuth_total, stopped_by=stopped_by, status=status
            )
            write_best(run_dir, best, run=Path(run_dir).name, config=config.name)
            write_summary(run_dir, summary)

        recorder = Recorder(run_dir, config, on_save=write_state)
        resume = resume and not recorder.nothing_to_resume()
        clock = time.perf_counter()
        with _stop_signals() as got:
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
                            if "signal" in got:
                                raise KeyboardInterrupt
                            now = elapsed_before + time.perf_counter() - clock
                            left = time_left(config, elapsed=now)
                            generation(config, toolbox, stats, state, time_left=left)
                            state.elapsed = elapsed_before + time.perf_counter() - clock
                            recorder.generation_done(state)
                            bar.update(state)
                            if on_generation is not None:
                                on_generation(state.generation, state.population, state.logbook)
            except GenerationCut:
                stopped_by = "seconds"
                state.elapsed = elapsed_before + time.perf_counter() - clock
            except KeyboardInterrupt:
                stopped_by = None
                last = recorder.interrupted()
                raise RunInterrupted(last, run_dir, got.get("signal", "SIGINT")) from None
            except WorkerLost as e:
                last = recorder.interrupted()
                raise RunInterrupted(last, run_dir, reason=str(e)) from None
        recorder.save(state, status="finished")
    best = as_tree(best_of(state, config))
    summary = make_summary(
        config, game, state, best, knuth=knuth_total, stopped_by=stopped_by, status="finished"
    )
    return Result(best, state, summary)


def check_run(config: Config) -> Game:
    """Every check that can fail before a run, done before its directory is made: the
    game fits in memory (:class:`~evo.core.game.GameTooLargeError`), the baselines of
    ``population.init.baselines`` exist (:class:`~evo.config.ConfigError` naming the key).
    Returns the game."""
    g = config.game
    game = make_game(g.pegs, g.colors, g.variant, trees=config.population.size * 2)
    if config.population.init.baselines:
        from evo.baselines import parse_name

        for i, name in enumerate(config.population.init.baselines):
            try:
                parse_name(game, name)
            except ValueError as e:
                raise ConfigError(f"population.init.baselines.{i}: {e}") from None
    return game


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
    rnd = random.Random(config.seed)
    if config.selection.method == "nsga2":
        pop = tb.select(pop, len(pop))  # assigns the crowding distances selection needs
    hof = hall_of_fame(config)
    hof.update(pop)
    logbook = new_logbook()
    logbook.record(gen=0, nevals=len(pop), **stats.compile(pop))
    return State(0, pop, hof, logbook, rnd.getstate(), 0.0, len(pop))


def _baseline_trees(game, names: list[str]) -> list[Tree]:
    if not names:
        return []
    from evo.baselines import run

    return [run(game, name, rc_seeds=0).tree for name in names]


def generation(
    config: Config,
    tb: base.Toolbox,
    stats: tools.Statistics,
    state: State,
    *,
    time_left: float | None = None,
) -> None:
    """One generation: selection, breeding (mapped), replacement, statistics. When
    ``time_left`` seconds pass during the breeding, :class:`GenerationCut` is raised and
    ``state`` is left as it was."""
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
    tasks = [((as_tree(a), as_tree(b)), (config.seed, gen, k)) for k, (a, b) in enumerate(pairs)]
    with time_limit(time_left):
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
