"""Evolution step by step, as a user drives it: one population (a step is a generation)
or islands (a step is an epoch), each with ``running()`` (its worker processes or
cluster), ``first()`` (generation 0), ``steps(state)`` (the states after each step, until
the config's stop rule) and ``stop_reason(state)``.

This is DEAP's loop opened up, as pymoo's ``ask``/``tell`` or a generator would be::

    engine = make_engine(config, game)
    with engine.running():
        state = engine.first()
        for state in engine.steps(state):
            print(state.generation, state.logbook[-1]["min"])

It knows nothing of run directories, checkpoints or progress bars: ``evo.runs.driver``
records a run around it.
"""

from __future__ import annotations

import contextlib
import time
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any

from evo.config import Config
from evo.core.game import Game
from evo.core.tree import Tree
from evo.ea.state import State

if TYPE_CHECKING:
    from evo.search.kernels import Kernels


class Population:
    """One population; a step is a generation (:func:`evo.ea.loop.generation`)."""

    def __init__(self, config: Config, game: Game):
        from evo.ea.operators import custom_operators
        from evo.ea.stats import make_statistics
        from evo.ea.toolbox import build_toolbox

        self.config = config
        self.game = game
        self.toolbox = build_toolbox(config, game)
        self.stats = make_statistics()
        self.operators = custom_operators(operator_kinds(config))

    def running(self) -> contextlib.AbstractContextManager:
        """Where the steps run: this process, or ``workers`` processes."""
        from evo.ea.workers import worker_pool

        return worker_pool(self.config, self.toolbox, operators=self.operators)

    def first(self, planted: Sequence[Tree] = ()) -> State:
        """Generation 0: ``planted`` breakers and random ones, evaluated (within
        ``stop.seconds``)."""
        from evo.ea.loop import initial_state

        clock = time.perf_counter()
        with self.toolbox.time_limit.within(self.config.stop.seconds):
            state = initial_state(self.config, self.toolbox, self.stats, planted=planted)
        state.elapsed = time.perf_counter() - clock
        return state

    def steps(self, state: State) -> Iterator[State]:
        """The generations after ``state`` (updated in place and yielded after each)."""
        from evo.ea.loop import generations

        return generations(self.config, self.toolbox, self.stats, state)

    def stop_reason(self, state: State) -> str | None:
        """Why the run stops at ``state`` (None: it goes on)."""
        from evo.ea.loop import stop_reason

        return stop_reason(self.config, state)


class Islands:
    """Islands of ``population.size`` each; a step is an epoch
    (:func:`evo.ea.islands.epochs`), run where the config says (here, a local Dask
    cluster, or the scheduler at ``scheduler``)."""

    def __init__(self, config: Config, game: Game, *, scheduler: str | None = None):
        from evo.ea.operators import custom_operators

        self.config = config
        self.game = game
        self.scheduler = scheduler
        self.operators = custom_operators(operator_kinds(config))
        self.run_map: Any = None
        self.epochs: Iterator = iter(())
        self.current: Any = None  # the islands after the last epoch
        self.records: list[dict] = []  # the run's logbook records so far

    @contextlib.contextmanager
    def running(self) -> Iterator[None]:
        """Where the epochs run: this process, a local Dask cluster or a scheduler's."""
        from evo.ea.cluster import island_map

        kernels = run_kernels(self.config, self.game)
        with island_map(self.config, scheduler=self.scheduler, kernels=kernels) as run_map:
            self.run_map = run_map
            yield

    def first(self, planted: Sequence[Tree] = ()) -> State:
        """Every island's generation 0 (``planted`` breakers in each), merged."""
        from evo.ea.islands import run_logbook

        self._start(None, planted)
        self.current = next(self.epochs)
        self.records = list(run_logbook(self.current))
        return self.state()

    def resume(self, current: Any, records: list[dict]) -> State:
        """Go on from saved islands (``current``) and the run's logbook ``records``."""
        self.current, self.records = current, records
        self._start(current)
        return self.state()

    def steps(self, state: State) -> Iterator[State]:
        """The epochs after the last, each as the merged state of the islands."""
        from evo.ea.islands import run_logbook

        for islands in self.epochs:
            self.current = islands
            self.records += list(run_logbook(islands))
            yield self.state()

    def stop_reason(self, state: State) -> str | None:
        """Why the run stops at the islands' last epoch (None: it goes on)."""
        from evo.ea.islands import stop_reason

        return stop_reason(self.config, self.current)

    def state(self) -> State:
        """The islands as one state: every island's breakers, the run's logbook."""
        from evo.ea.islands import merged_state

        return merged_state(self.config, self.current, self.records)

    def _start(self, start: Any, planted: Sequence[Tree] = ()) -> None:
        from evo.ea.islands import epochs

        self.epochs = epochs(
            self.config,
            self.game,
            self.run_map,
            start=start,
            planted=tuple(planted),
            operators=self.operators,
        )


Engine = Population | Islands


def make_engine(config: Config, game: Game, *, scheduler: str | None = None) -> Engine:
    """The engine of ``config``: :class:`Islands` when ``islands.count`` > 1, else
    :class:`Population`."""
    if config.islands.count > 1:
        return Islands(config, game, scheduler=scheduler)
    return Population(config, game)


def operator_kinds(config: Config) -> set[str]:
    """The operator kinds (and the selection) a config names."""
    kinds = {config.crossover.operator.kind} | {m.kind for m in config.mutation.operators}
    return kinds | {config.selection.method}


#: The parameters of evo's own mutations that make their exact searches keep within a
#: depth (the depth-limited search: the kernels' ``within`` family).
DEPTH_PARAMETERS = ("keep_depth", "shallower")


def searches_within_depth(config: Config) -> bool:
    """Whether a run of ``config`` may call the depth-limited exact search: a limit on the
    worst case (``max_guesses``), a mutation that keeps or lowers a subtree's depth
    (:data:`DEPTH_PARAMETERS`), or an operator or selection registered from Python (it
    may call anything)."""
    from evo.config import BUILTIN_KINDS, BUILTIN_SELECTIONS

    if config.max_guesses is not None or config.selection.method not in BUILTIN_SELECTIONS:
        return True
    entries = [config.crossover.operator, *config.mutation.operators]
    return any(
        e.kind not in BUILTIN_KINDS or any(getattr(e, p, False) for p in DEPTH_PARAMETERS)
        for e in entries
    )


def run_kernels(config: Config, game: Game) -> Kernels:
    """The compiled kernels a run of ``config`` on ``game`` calls, compiled before its
    clock: every family but the depth-limited search's unless the run may call it
    (:func:`searches_within_depth`), which a first run of quick would compile for
    nothing (about 10 s on its longest compiling process)."""
    from evo.search.kernels import FAMILIES, kernels_for

    within = searches_within_depth(config)
    return kernels_for(game, tuple(f for f in FAMILIES if within or f != "within"))
