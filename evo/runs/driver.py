"""The run driver: what a run needs around the evolution engine, in one place for a
single population and for islands.

A run goes step by step: a step is a generation of one population, or an epoch of the
islands (:mod:`evo.ea.loop`, :mod:`evo.ea.islands`, which know nothing of this). The
driver holds the run directory's lock; turns Ctrl-C, SIGTERM and SIGHUP into a stop after
the step under way, checkpointed; writes the checkpoints, the logbook, ``best.json`` and
``summary.json``; shows progress against Knuth's total; plants the configured breakers;
and calls back after every step. Without a run directory it writes nothing.
"""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from evo.baselines.limits import DEFAULT_TIME_LIMIT
from evo.config import Config, ConfigError
from evo.core.game import Game
from evo.core.tree import Tree
from evo.ea.deadline import GenerationCut
from evo.ea.engine import Engine, Islands, Population, make_engine
from evo.ea.individuals import as_tree
from evo.ea.state import State, best_of
from evo.runs.checkpoint import CheckpointError, CheckpointWriteError
from evo.runs.rundir import (
    CHECKPOINT,
    ISLANDS_LOGBOOK,
    LOGBOOK,
    OLD_CHECKPOINT,
    RunDirError,
    append_logbook,
    lock_run,
    write_best,
    write_logbook,
    write_summary,
)
from evo.runs.summary import RunSummary, make_summary

if TYPE_CHECKING:
    from evo.ea.workers import WorkerNews
    from evo.search.kernels import CompileWatch

#: Signals that stop a run: Ctrl-C, and ``kill``, ``timeout``, batch schedulers, a closed
#: terminal. The first one lets the step under way finish, then the run is checkpointed
#: and stops; a second one abandons that step at once.
STOP_SIGNALS = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)

#: ``on_generation(generation, population, logbook)``, after every step; returning True
#: stops the run there.
Callback = Callable[[int, list, Any], Any]


@dataclass
class Result:
    """The end of a run: its best breaker, its last state and its summary."""

    best: Tree
    state: State
    summary: RunSummary


class RunInterrupted(Exception):
    """The run was stopped (Ctrl-C, SIGTERM or SIGHUP: ``signal``; or ``reason``) after
    ``generation`` (-1: before its first population); it is checkpointed, and ``result``
    holds what it had reached (None before its first population)."""

    def __init__(
        self,
        generation: int,
        path: Path | None,
        signal: str = "SIGINT",
        *,
        reason: str | None = None,
        result: Result | None = None,
    ):
        super().__init__(reason or f"interrupted by {signal} after generation {generation}")
        self.generation = generation
        self.path = path
        self.signal = signal
        self.reason = reason  # what stopped it, when not a signal (a lost cluster)
        self.result = result


@dataclass
class Plan:
    """What a run starts from, checked before its directory is made: the game, the
    breakers to plant (tree files' and trees given in memory) and the seconds a planted
    baseline may take to compute."""

    game: Game
    trees: list[Tree]
    time_limit: float | None = DEFAULT_TIME_LIMIT
    baselines_planted: bool = False

    def planted(self, config: Config) -> list[Tree]:
        """The breakers of the first population: the tree files', then the baselines'
        (computed now unless :func:`check_run` did)."""
        if not self.baselines_planted:
            from evo.baselines import run

            names = config.population.init.baselines
            self.trees += [
                run(self.game, name, rc_seeds=0, time_limit=self.time_limit).tree for name in names
            ]
            self.baselines_planted = True
        return self.trees


def check_run(
    config: Config,
    *,
    cache: str | os.PathLike | None = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    plant: bool = True,
    trees: Sequence[Tree] = (),
) -> Plan:
    """Every check that can fail before a run, done before its directory is made: the
    game fits in memory (:class:`~evo.core.game.GameTooLargeError`), the baselines of
    ``population.init.baselines`` exist and can be computed within ``time_limit``
    seconds (:class:`~evo.baselines.limits.BaselineRefused`, with the estimate), and the
    files of ``population.init.trees`` are trees of the game
    (:class:`~evo.config.ConfigError` naming the key). With ``plant`` (a new run, not a
    resumed one) the breakers to plant are read and computed here too, so that a search
    that gives up leaves no run behind. ``trees``: breakers given in memory, planted
    first, each checked to be a whole breaker of the game (rebuilt from its guesses and
    feedbacks, every code played: ValueError otherwise)."""
    from evo.baselines import cached, estimate_seconds, parse_name
    from evo.baselines.limits import BaselineRefused, check_time_limit, refuse_beyond
    from evo.core.treeio import TreeFileError, load_tree
    from evo.ea.loop import config_game

    time_limit = check_time_limit(time_limit)
    game = config_game(config, cache=cache)
    for i, name in enumerate(config.population.init.baselines):
        try:
            name = parse_name(game, name)
        except ValueError as e:
            raise ConfigError(f"population.init.baselines.{i}: {e}") from None
        if cached(game, name) is None:
            try:
                refuse_beyond(game, name, estimate_seconds(game, name), time_limit)
            except BaselineRefused as e:
                raise BaselineRefused(
                    f"population.init.baselines.{i}: {e.reason}",
                    name=e.name,
                    estimate_seconds=e.estimate_seconds,
                ) from None
    given = [_whole_breaker(t, game, i) for i, t in enumerate(trees)]
    for i, path in enumerate(config.population.init.trees):
        try:
            given.append(load_tree(path, game=game))
        except TreeFileError as e:
            raise ConfigError(f"population.init.trees.{i}: {e}") from None
    plan = Plan(game, given, time_limit)
    if plant:
        plan.planted(config)
    return plan


def _whole_breaker(tree: Any, game: Game, i: int) -> Tree:
    """A tree given in memory to plant, rebuilt from its guesses and feedbacks on every
    code of ``game``, and checked as a whole: each of its other arrays (depths, codes,
    whether a node wins…) must be the rebuilt tree's; ValueError naming it otherwise."""
    from evo.core.growth import Template, build_exact
    from evo.core.tree import InvalidTreeError

    if not isinstance(tree, Tree):
        raise ValueError(f"plant[{i}] is {type(tree).__name__}, not a tree")
    if tree.game.key != game.key:
        raise ValueError(f"plant[{i}] is a tree of {tree.game.name}, not of {game.name}")
    try:
        rebuilt = build_exact(game, Template.of(tree))
    except InvalidTreeError as e:
        raise ValueError(f"plant[{i}] is not a whole breaker of {game.name}: {e}") from None
    wrong = rebuilt.unlike(tree)
    if wrong:
        raise ValueError(
            f"plant[{i}] is not a valid tree: its array(s) {', '.join(wrong)} disagree with "
            "its guesses and feedbacks (edited after it was made?)"
        )
    return rebuilt


def run_config(
    config: Config,
    *,
    run_dir: str | os.PathLike | None = None,
    resume: bool = False,
    progress: bool = True,
    on_generation: Callback | None = None,
    knuth: int | None | bool = True,
    scheduler: str | None = None,
    cache: str | os.PathLike | None = None,
    plan: Plan | None = None,
    on_start: Callable[[], None] | None = None,
) -> Result:
    """Run ``config`` (or, with ``resume``, continue it from ``run_dir``'s checkpoint):
    one population, or islands when ``islands.count`` > 1 (on Dask at ``scheduler`` or
    locally). With ``run_dir``, write the logbook, checkpoints, best breaker and summary
    there. ``knuth``: Knuth's total to compare with (True: computed, False: none);
    ``cache``: where the game's table and baselines may be kept (see
    :func:`~evo.core.game.make_game`); ``plan``: the result of :func:`check_run`, when
    already made; ``on_start()`` is called once the run has started (its checkpoint
    loaded, or its first population made). Raises :class:`RunInterrupted` on Ctrl-C,
    SIGTERM or SIGHUP, after writing a checkpoint;
    :class:`~evo.runs.rundir.RunLockedError` when another process writes ``run_dir``;
    :class:`~evo.runs.checkpoint.CheckpointWriteError` when a write fails."""
    plan = plan or check_run(config, cache=cache, plant=not resume)
    game = plan.game
    if config.islands.count == 1 and config.workers > 1:
        from evo.ea.workers import local_processes

        config = config.model_copy(update={"workers": local_processes(config.workers)})
    path = None if run_dir is None else Path(run_dir)
    lock = lock_run(path) if path is not None else contextlib.nullcontext()
    with lock, stop_signals() as got:
        engine = make_engine(config, game, scheduler=scheduler)
        saved = _saved(engine)
        if resume and path is not None and not saved.saved(path):
            _check_fresh(path, saved.checkpoint)  # stopped before its first checkpoint
            resume = False
        if path is not None and not resume:
            write_logbook(path, [])  # the run has started here: `evo resume` may start it
        game.prepare()  # the feedback table, built once per process
        knuth_total = _knuth(game, knuth)
        recorder = _Recorder(path, config, saved, game, knuth_total)
        state: State | None = None
        from evo.search.kernels import watch_compiling

        try:
            with watch_compiling() as here, engine.running() as news:
                recorder.compiled = (here, news)
                if resume:
                    assert path is not None
                    state = saved.load(path)
                else:
                    state = engine.first(plan.planted(config))
                    recorder.first_seconds = state.elapsed
                recorder.start(state, resumed=resume)
                if on_start is not None:
                    on_start()
                if on_generation is not None and not resume:
                    on_generation(0, state.population, state.logbook)
                with _progress(config, state, knuth_total, progress) as bar:
                    for state in engine.steps(state):  # noqa: B020 - the same state, updated
                        recorder.done(state)
                        bar.update(state)
                        if on_generation is not None:
                            said = on_generation(state.generation, state.population, state.logbook)
                            if _stops(said):
                                recorder.stopped_by = "callback"
                                break
                        if "signal" in got:
                            raise KeyboardInterrupt
            recorder.stopped_by = recorder.stopped_by or engine.stop_reason(state)
        except GenerationCut:  # the time limit fell inside a step: the one before stands
            if recorder.last_good is None:
                recorder.stopped_by = "seconds"
                cause = recorder.compile_cause()
                raise RunInterrupted(
                    -1,
                    path,
                    reason="the time limit (stop.seconds) passed before the first "
                    "population was complete" + (f": {cause}" if cause else ""),
                ) from None
            state = recorder.last_good
            state.elapsed += time.perf_counter() - recorder.clock  # the cut step's time too
            recorder.stopped_by = "seconds"
        except KeyboardInterrupt:
            last = recorder.interrupted()
            raise RunInterrupted(
                last, path, got.get("signal", "SIGINT"), result=recorder.result("interrupted")
            ) from None
        except Exception as e:
            from evo.ea.cluster import ClusterLost
            from evo.ea.workers import WorkerLost

            if not isinstance(e, (WorkerLost, ClusterLost)):
                raise
            last = recorder.interrupted()
            raise RunInterrupted(
                last, path, reason=str(e), result=recorder.result("interrupted")
            ) from None
        assert state is not None
        recorder.warning = recorder.no_generation(state, resumed=resume)
        if recorder.warning is not None:
            print(f"evo: {recorder.warning}", file=sys.stderr, flush=True)
        recorder.save(state, status="finished")
    result = recorder.result("finished", state)
    assert result is not None
    return result


def _check_fresh(run_dir: Path, checkpoint: str) -> None:
    """Refuse to resume a folder where no run has started (no checkpoint, no logbook: a
    config alone), or one whose ``checkpoint`` is gone while its logbook has lines; a run
    stopped before its first checkpoint (an empty logbook) starts afresh."""
    log = run_dir / LOGBOOK
    if not log.exists():
        raise RunDirError(
            f"{run_dir} has nothing to resume: no run was started there (no {checkpoint}, no "
            "logbook); start one with: evo run CONFIG"
        )
    if log.stat().st_size > 0:
        raise CheckpointError(f"{run_dir} has no {checkpoint} to resume from")


def _stops(said: Any) -> bool:
    """Whether ``on_generation``'s answer stops the run: True stops, None or False goes
    on; anything else is refused (a truthy string or array is not a yes)."""
    if said is None or said is False or said is True:
        return bool(said)
    import numpy as np

    if isinstance(said, np.bool_):
        return bool(said)
    raise TypeError(
        f"on_generation returned {type(said).__name__} {said!r}: return True to stop the run, "
        "None or False to go on"
    )


def _knuth(game: Game, knuth: int | None | bool) -> int | None:
    """Knuth's total to show beside the run: computed (True), none (False), or given."""
    if knuth is True:
        from evo.baselines import BaselineRefused, knuth_total

        try:
            return knuth_total(game)
        except BaselineRefused:  # a game too big for Knuth's tree here: no yardstick
            return None
    return None if knuth is False else knuth


@contextlib.contextmanager
def _progress(config: Config, state: State, knuth: int | None, enabled: bool):
    from evo.runs.progress import Progress

    with Progress(config, state, knuth=knuth, enabled=enabled) as bar:
        yield bar


def interrupted(exc: BaseException) -> bool:
    """Whether ``exc`` is the ``KeyboardInterrupt`` of a stop signal, also when the signal
    fell while compiled code called back into Python, which wraps it in a ``SystemError``."""
    seen: BaseException | None = exc
    while seen is not None:
        if isinstance(seen, KeyboardInterrupt):
            return True
        seen = seen.__cause__ or seen.__context__
    return False


@contextlib.contextmanager
def stop_signals(*, at_once: bool = False) -> Iterator[dict]:
    """While running, the first of :data:`STOP_SIGNALS` is noted (the run stops after the
    step under way: an exception raised at any point could land inside a library), a
    second one raises ``KeyboardInterrupt`` at once; ``at_once``: the first one does (for
    steps too long to wait for, whose work is kept as they end). Yields a dict that gets
    the first signal's name."""
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
            if at_once:
                raise KeyboardInterrupt
        elif not got.get("abandoned"):
            got["abandoned"] = "yes"
            raise KeyboardInterrupt

    old = {s: signal.signal(s, stop) for s in STOP_SIGNALS}
    try:
        yield got
    finally:
        for s, handler in old.items():
            signal.signal(s, handler)


@contextlib.contextmanager
def stopped_at_once(on_stop: Callable[[str], BaseException]) -> Iterator[None]:
    """Run a step too long to wait for, whose work is kept as it goes: the first stop
    signal (or Ctrl-C) ends it at once, raising ``on_stop(signal name)`` instead."""
    with stop_signals(at_once=True) as got:
        try:
            yield
        except (KeyboardInterrupt, SystemError) as e:
            if not interrupted(e):
                raise
            raise on_stop(got.get("signal", "SIGINT")) from None


# ----------------------------------------------------------------- checkpoints
class _Saved(Protocol):
    """How a run directory keeps an engine's steps: its checkpoint file, how often it is
    written, and the summary's engine-specific keys."""

    interval: int  # steps between checkpoints
    checkpoint: str  # the checkpoint's file, in the run directory

    def saved(self, run_dir: Path) -> bool: ...
    def load(self, run_dir: Path) -> State: ...
    def save(self, run_dir: Path, state: State) -> None: ...
    def summary(self, summary: RunSummary) -> None: ...


class _PopulationSaved:
    """One population, checkpointed every ``checkpoint_interval`` generations into
    ``checkpoint.npz``."""

    checkpoint = CHECKPOINT

    def __init__(self, engine: Population):
        self.engine = engine
        self.interval = engine.config.checkpoint_interval

    def saved(self, run_dir: Path) -> bool:
        return (run_dir / CHECKPOINT).exists() or (run_dir / OLD_CHECKPOINT).exists()

    def load(self, run_dir: Path) -> State:
        from evo.runs.checkpoint import load_checkpoint, pickle_refusal

        if not (run_dir / CHECKPOINT).exists():
            raise CheckpointError(pickle_refusal(run_dir / OLD_CHECKPOINT))
        return load_checkpoint(run_dir / CHECKPOINT, self.engine.config, self.engine.game)

    def save(self, run_dir: Path, state: State) -> None:
        from evo.runs.checkpoint import save_checkpoint

        save_checkpoint(run_dir / CHECKPOINT, state, self.engine.config)

    def summary(self, summary: RunSummary) -> None:
        pass


class _IslandsSaved:
    """Islands, every epoch checkpointed into ``islands/`` (and each island's own records
    appended to ``islands.jsonl``)."""

    checkpoint = "islands/current.json"
    interval = 1

    def __init__(self, engine: Islands):
        self.engine = engine

    def saved(self, run_dir: Path) -> bool:
        from evo.runs.checkpoint import islands_saved

        return islands_saved(run_dir)

    def load(self, run_dir: Path) -> State:
        from evo.runs.checkpoint import load_islands

        engine = self.engine
        return engine.resume(*load_islands(run_dir, engine.config, engine.game))

    def save(self, run_dir: Path, state: State) -> None:
        import json

        from evo.ea.islands import island_logbook
        from evo.runs.checkpoint import save_islands

        engine = self.engine
        save_islands(run_dir, engine.config, engine.current, engine.records)
        lines = "".join(json.dumps(r) + "\n" for r in island_logbook(engine.current))
        mode = "w" if engine.current.epoch == 0 else "a"  # a new run's first epoch
        with open(run_dir / ISLANDS_LOGBOOK, mode, encoding="utf-8") as f:
            f.write(lines)

    def summary(self, summary: RunSummary) -> None:
        summary["islands"] = self.engine.config.islands.count


def _saved(engine: Engine) -> _Saved:
    """How ``engine``'s steps are kept in a run directory."""
    if isinstance(engine, Islands):
        return _IslandsSaved(engine)
    return _PopulationSaved(engine)


# ----------------------------------------------------------------- recording
class _Recorder:
    """Writes a run's progress into its directory (nothing without one): at every
    checkpoint (every ``interval`` steps, at an interruption with the last finished
    step, and at the end) the engine's checkpoint, the logbook lines not yet written,
    the best breaker and the summary, so that an interrupted or running run can be
    looked at."""

    def __init__(
        self, run_dir: Path | None, config: Config, saved: _Saved, game: Game, knuth: int | None
    ):
        self.run_dir = run_dir
        self.config = config
        self.engine = saved
        self.game = game
        self.knuth = knuth
        self.logged = 0
        self.saved: int | None = None  # generation of the last checkpoint written
        self.last_good: State | None = None
        self.stopped_by: str | None = None
        self.clock = time.perf_counter()  # when the last step ended
        self.first_seconds: float | None = None  # the first population's
        #: What was compiled during the run: in this process, and in its workers.
        self.compiled: tuple[CompileWatch, WorkerNews | None] | None = None
        self.warning: str | None = None  # said when the run ends without a generation

    def compile_cause(self) -> str | None:
        """The kernels compiled during the run, said as a cause (None: none were)."""
        from evo.ea.workers import compiled_cause

        if self.compiled is None:
            return None
        here, news = self.compiled
        if news is not None and news.compiled:
            return compiled_cause(news.compiled, "the worker processes")
        if here.kernels:
            return compiled_cause(here.kernels, "this process")
        return None

    def no_generation(self, state: State, *, resumed: bool) -> str | None:
        """The warning of a run that ended, stopped by its time, without a generation
        (None for any other): it says so and why."""
        if state.generation > 0 or self.stopped_by != "seconds" or resumed:
            return None
        budget = self.config.stop.seconds
        said = f"no generation was completed within stop.seconds ({budget:g} s): "
        cause = self.compile_cause()
        if cause is not None:
            return said + cause
        first = self.first_seconds or 0.0
        left = max(0.0, (budget or 0.0) - first)
        return said + (
            f"the first population took {first:.1f} s, and the first generation more than "
            f"the {left:.1f} s left (give the run more seconds)"
        )

    def start(self, state: State, *, resumed: bool) -> None:
        """The first state of this process: checkpointed when new; the logbook file made
        to match it (on resume, what was logged after the checkpoint is dropped)."""
        self.last_good = state.snapshot()
        self.clock = time.perf_counter()
        if self.run_dir is not None:
            if resumed:
                self.saved = state.generation
                run_dir = self.run_dir
                self._writing(lambda: write_logbook(run_dir, list(state.logbook)))
            else:  # the checkpoint first: logbook lines never exist without one
                self.save(state)
        self.logged = len(state.logbook)

    def done(self, state: State) -> None:
        """After each step: remembered, and checkpointed when it is time."""
        self.last_good = state.snapshot()
        self.clock = time.perf_counter()
        if state.generation % self.engine.interval == 0:
            self.save(state)

    def interrupted(self) -> int:
        """Checkpoint the last finished step; returns its generation (-1: none)."""
        if self.last_good is None:
            return -1
        self.save(self.last_good, status="interrupted")
        return self.last_good.generation

    def save(self, state: State, *, status: str = "running") -> None:
        """A checkpoint of ``state``, the logbook lines not yet written, then the best
        breaker and summary (``status``: running, interrupted or finished)."""
        if self.run_dir is None:
            return
        run_dir = self.run_dir
        if self.saved != state.generation:
            self._writing(lambda: self.engine.save(run_dir, state))
            self.saved = state.generation
            self._writing(lambda: append_logbook(run_dir, state.logbook[self.logged :]))
            self.logged = len(state.logbook)
        result = self.result(status, state)
        if result is not None:
            self._writing(lambda: _write_result(run_dir, result, self.config))

    def result(self, status: str, state: State | None = None) -> Result | None:
        """The run's result as of ``state`` (the last finished step by default)."""
        state = state or self.last_good
        if state is None:
            return None
        best = as_tree(best_of(state, self.config))
        stopped_by = self.stopped_by if status == "finished" else None
        summary = make_summary(
            self.config,
            self.game,
            state,
            best,
            knuth=self.knuth,
            stopped_by=stopped_by,
            status=status,
        )
        if self.warning is not None:
            summary["warning"] = self.warning
        self.engine.summary(summary)
        return Result(best, state, summary)

    def _writing(self, write: Callable[[], Any]) -> None:
        """Run a write; a failed one (disk full…) becomes a :class:`CheckpointWriteError`
        that says which checkpoint is intact."""
        try:
            write()
        except OSError as e:
            where = getattr(e, "strerror", None) or str(e)
            if self.saved is None:
                kept = "no checkpoint was written yet"
            else:
                kept = (
                    f"the checkpoint of generation {self.saved} is intact; "
                    f"continue with: evo resume {self.run_dir}"
                )
            raise CheckpointWriteError(f"{where}; {kept}") from None


def _write_result(run_dir: Path, result: Result, config: Config) -> None:
    """``best.json`` and ``summary.json`` of a result."""
    write_best(run_dir, result.best, run=run_dir.name, config=config.name)
    write_summary(run_dir, result.summary)
