"""Where the toolbox's ``map`` runs: this process, or a pool of worker processes.

Tasks carry plain trees and seeds only; each worker builds the same toolbox from the
config once, so a task gives the same result in any process.
"""

from __future__ import annotations

import contextlib
import math
import multiprocessing
import os
import pickle
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any

import cloudpickle
from deap import base

from evo.config import Config
from evo.core.engine import set_threads, threads
from evo.core.game import Game
from evo.core.rng import generator, task_generator
from evo.ea.deadline import GenerationCut
from evo.ea.operators import Operator, install_operators
from evo.ea.toolbox import build_toolbox

#: The toolbox that mapped tasks use: set in this process, and in every worker process.
_WORKER: dict[str, Any] = {}


def use_toolbox(tb: base.Toolbox) -> None:
    """Make ``tb`` the toolbox that tasks run in this process use."""
    _WORKER["toolbox"] = tb


def breed_task(args):
    """``toolbox.breed(parents, key)`` in whichever process runs it."""
    return _WORKER["toolbox"].breed(*args)


def individual_task(key: tuple[int, ...]):
    """A random breaker drawn from a generator seeded by ``key``, and its fitness."""
    tb = _WORKER["toolbox"]
    rng = task_generator(*key)
    tree = tb.individual(rng=rng)
    return tree, tb.evaluate(tree)


def _init_worker(config_data: dict, game: Game, operators: bytes, threads: int) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    if sys.platform != "win32":  # numba's lock for its threads, from the default context:
        # a fork one is unlinked at once, so a worker killed at any moment leaks nothing
        multiprocessing.set_start_method("fork", force=True)
    set_threads(threads)  # the pool's processes share the cores: no oversubscription
    for stop in (signal.SIGTERM, signal.SIGHUP):  # a stop from outside ends us at once
        signal.signal(stop, signal.SIG_DFL)
    install_operators(pickle.loads(operators))  # from the parent's memory, never a file
    config = Config.model_validate(config_data)
    game.prepare()  # built once per process; a big table is the cache's shared file
    _WORKER["toolbox"] = tb = build_toolbox(config, game)
    tb.individual(rng=generator(0))  # loads the growth kernels, off the clock


def process_context() -> multiprocessing.context.BaseContext:
    """How worker processes start: from a fork server, a fresh process that never ran a
    compiled kernel, not by forking this one. This process may already run numba's
    parallel kernels on OpenMP threads, and GNU OpenMP cannot be used in a child forked
    after that (the child aborts at its first parallel kernel); numba's other layers are
    slower (workqueue) or not loadable from pip in a virtual environment (TBB). The fork
    server preloads nothing: it starts with the current folder first on its path (a
    checkout of another evo there, or a stray ``evo/`` folder, would be what it
    imported), while each worker imports evo after taking this process's path, so the
    same evo as this one. The workers get the game by its parameters (big tables are
    shared memory-mapped files) and the operators registered from Python by value."""
    if sys.platform == "win32":
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([])
    return ctx


def evo_folder() -> str:
    """The folder of the evo package this process runs."""
    from evo.core.where import package_folder

    return str(package_folder())


class WrongEvo(RuntimeError):
    """A worker process imported another evo than the process that started it."""


def local_processes(asked: int) -> int:
    """How many worker processes to start on this machine when ``asked`` are: at most one
    per core (the result does not depend on the number); says so on standard error when
    it is fewer."""
    cores = os.cpu_count() or 1
    if asked <= cores:
        return asked
    print(
        f"evo: {asked} worker processes asked, this machine has {cores} cores: running "
        f"{cores} (the result is the same)",
        file=sys.stderr,
        flush=True,
    )
    return cores


def slow_start(news: WorkerNews, budget: float) -> str:
    """The line that says the workers took longer to start than the run's ``budget``
    seconds, and why."""
    return (
        f"the {news.processes} worker processes took {news.start_seconds:.0f} s to start, "
        f"longer than the run's stop.seconds ({budget:g} s): {start_cause(news)}"
    )


def start_cause(news: WorkerNews) -> str:
    """Why worker processes were slow: the kernels they compiled, else their start."""
    if news.compiled:
        return compiled_cause(news.compiled, "the worker processes")
    return (
        "importing evo and loading the game (a busy machine, or a big feedback table read "
        "from the cache)"
    )


def compiled_cause(kernels: list[str], where: str) -> str:
    """The cause that ``kernels`` were compiled inside a run, in ``where``."""
    some = ", ".join(k.rsplit(".", 1)[-1] for k in kernels[:3])
    more = f" and {len(kernels) - 3} more" if len(kernels) > 3 else ""
    return (
        f"{where} compiled evo's kernels ({some}{more}), which numba's cache did not have "
        "(run again: they are cached now)"
    )


class WorkerLost(RuntimeError):
    """A worker process died while it held tasks (a ``kill`` of the process group, the
    out-of-memory killer): the pool would wait for them for ever."""


#: Seconds a worker is given to leave after it is told to; then it is killed.
_LEAVE_SECONDS = 10.0

_STARTING = (
    "a worker process died as it started (out of memory, or a script that starts workers "
    'outside `if __name__ == "__main__":`)'
)
_DIED = (
    "a worker process died (killed from outside, out of memory, or a script that starts "
    'workers outside `if __name__ == "__main__":`): the generation under way is lost'
)


def _serve(conn: Connection, init: tuple, evo: str) -> None:
    """A worker process: check that it runs the ``evo`` folder of its parent, build the
    toolbox, say so, then run the chunks of tasks sent on ``conn`` until told to stop
    (None) or the parent is gone. Each of evo's kernels that starts compiling here is
    told to the parent (``compiling``): it should have been compiled before the run."""
    from evo.search.kernels import watch_compiling

    with watch_compiling(on_start=lambda name: conn.send(("compiling", name))):
        try:
            if evo_folder() != evo:
                raise WrongEvo(
                    f"a worker process imported evo from {evo_folder()}, not from {evo} as "
                    "the run did"
                )
            _init_worker(*init)
        except Exception as e:
            conn.send(("error", _sendable(e)))
            return
        conn.send(("ready", None))
        _work(conn)


def _work(conn: Connection) -> None:
    """Run the chunks of tasks sent on ``conn`` until told to stop (None) or the parent
    is gone."""
    while True:
        try:
            job = conn.recv()
        except EOFError:  # the parent is gone
            return
        if job is None:
            return
        fn, chunk = job
        try:
            conn.send(("done", [fn(x) for x in chunk]))
        except Exception as e:
            conn.send(("error", _sendable(e)))


def _sendable(e: Exception) -> Exception:
    """``e`` if it pickles, else a RuntimeError that tells what it was."""
    try:
        pickle.dumps(e)
    except Exception:
        return RuntimeError(f"{type(e).__name__}: {e}")
    return e


@dataclass
class WorkerNews:
    """What worker processes told: how many they are, the seconds until the last was
    ready, and each of evo's kernels they compiled, once (which should have been compiled
    before the run: it names the cause when a run is slow to start or does nothing)."""

    processes: int = 0
    start_seconds: float = 0.0
    compiled: list[str] = field(default_factory=list)


class Processes:
    """Worker processes that each talk to this one on a pipe of their own and share no
    lock: one that dies, or is killed at any moment, leaves nothing for the others or for
    this process to wait on. (``multiprocessing.Pool`` shares its queues' locks, and its
    ``terminate()`` can wait for ever on one a killed worker held: CPython issue 96995.)"""

    def __init__(self, ctx: multiprocessing.context.BaseContext, count: int, init: tuple):
        self.workers: list[tuple[Any, Connection]] = []
        self.broken = False
        self.news = WorkerNews(count)
        self._started = time.perf_counter()
        for _ in range(count):
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(  # type: ignore[attr-defined]
                target=_serve, args=(theirs, init, evo_folder()), daemon=True
            )
            proc.start()
            theirs.close()
            self.workers.append((proc, mine))

    def wait_ready(self) -> None:
        """Wait until every worker has built its toolbox (its start is not the run's
        time); one that fails raises its error, one that dies :class:`WorkerLost`."""
        waiting = {conn for _, conn in self.workers}
        while waiting:
            for conn, _ in self._answers(waiting, None, _STARTING):
                waiting.discard(conn)
        self.news.start_seconds = time.perf_counter() - self._started

    def map(
        self,
        fn: Callable[[Any], Any],
        items: Iterable[Any],
        *,
        time_left: Callable[[], float | None],
    ) -> list[Any]:
        """``[fn(x) for x in items]`` across the workers, in chunks handed to whichever
        is free; :class:`~evo.ea.deadline.GenerationCut` once ``time_left()`` reaches 0
        (the workers are then ended: their chunks are dropped)."""
        if self.broken:
            raise RuntimeError("the worker processes were ended by an earlier error")
        items = list(items)
        size = max(1, math.ceil(len(items) / (len(self.workers) * 8)))
        chunks = iter(enumerate(items[i : i + size] for i in range(0, len(items), size)))
        done: dict[int, list[Any]] = {}
        busy: dict[Connection, int] = {}
        try:
            for _, conn in self.workers:
                self._hand(conn, fn, chunks, busy)
            while busy:
                left = time_left()
                if left is not None and left <= 0:
                    raise GenerationCut
                for conn, value in self._answers(set(busy), left, _DIED):
                    done[busy.pop(conn)] = value
                    self._hand(conn, fn, chunks, busy)
        except BaseException:
            self.kill()  # chunks under way would answer the next map
            raise
        return [x for k in sorted(done) for x in done[k]]

    @staticmethod
    def _hand(conn: Connection, fn: Any, chunks: Any, busy: dict[Connection, int]) -> None:
        """Send the next chunk to the free worker at ``conn``, if one is left."""
        nxt = next(chunks, None)
        if nxt is not None:
            conn.send((fn, nxt[1]))
            busy[conn] = nxt[0]

    def _answers(
        self, conns: set[Connection], timeout: float | None, died: str
    ) -> Iterator[tuple[Connection, Any]]:
        """The answers that came within ``timeout`` from ``conns``, as (conn, value): a
        result or a readiness. A task's error is raised here; a worker that died raises
        :class:`WorkerLost` with ``died``."""
        sentinels = {proc.sentinel for proc, _ in self.workers}
        for ready in wait([*conns, *sentinels], timeout):
            if ready in sentinels:
                continue  # read what its pipe holds first
            conn = ready
            assert isinstance(conn, Connection)
            try:
                kind, value = conn.recv()
            except (EOFError, OSError):
                raise WorkerLost(died) from None
            if kind == "error":
                raise value
            if kind == "compiling":
                if value not in self.news.compiled:
                    self.news.compiled.append(value)
                continue
            yield conn, value
        if any(not proc.is_alive() for proc, _ in self.workers):
            raise WorkerLost(died)

    def close(self) -> None:
        """Tell the workers to leave and wait for them (killing any that stays)."""
        if not self.broken:
            for _, conn in self.workers:
                with contextlib.suppress(OSError):
                    conn.send(None)
            for proc, _ in self.workers:
                proc.join(_LEAVE_SECONDS)
        self.kill()

    def kill(self) -> None:
        """End the workers at once (they hold no lock anyone waits on)."""
        self.broken = True
        for proc, conn in self.workers:
            if proc.exitcode is None:
                proc.kill()
            proc.join()
            conn.close()


@contextlib.contextmanager
def worker_pool(
    config: Config, tb: base.Toolbox, *, operators: dict[str, Operator] | None = None
) -> Iterator[WorkerNews | None]:
    """Run the toolbox's tasks here, or, with ``config.workers > 1``, in worker processes
    registered as its ``map`` (each builds the same toolbox, with the ``operators``
    registered from Python); they are told to leave at the end (ended at once on an
    error). Yields what the workers told of their start (None: no workers); a start
    slower than the run's ``stop.seconds`` is said on standard error, with its cause."""
    _WORKER["toolbox"] = tb
    procs: Processes | None = None
    try:
        if config.workers > 1:
            init = (
                config.model_dump(mode="json"),
                tb.game,
                cloudpickle.dumps(operators or {}),  # functions of __main__ by value
                max(1, threads() // config.workers),
            )
            procs = Processes(process_context(), config.workers, init)
            procs.wait_ready()
            workers = procs
            tb.register("map", lambda f, items: workers.map(f, items, time_left=tb.time_limit.left))
            budget = config.stop.seconds
            if budget is not None and procs.news.start_seconds > budget:
                print(f"evo: {slow_start(procs.news, budget)}", file=sys.stderr, flush=True)
        yield None if procs is None else procs.news
    except BaseException:
        if procs is not None:
            procs.kill()
            procs = None
        raise
    finally:
        if procs is not None:
            procs.close()
        tb.register("map", tb.time_limit.map)
        _WORKER.pop("toolbox", None)
