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
from collections.abc import Callable, Iterable, Iterator
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
    """How worker processes start: from a fork server, a fresh process that imported evo
    and never ran a compiled kernel, not by forking this one. This process may already
    run numba's parallel kernels on OpenMP threads, and GNU OpenMP cannot be used in a
    child forked after that (the child aborts at its first parallel kernel); numba's
    other layers are slower (workqueue) or not loadable from pip in a virtual
    environment (TBB). The workers get the game by its parameters (big tables are shared
    memory-mapped files) and the operators registered from Python by value."""
    if sys.platform == "win32":
        return multiprocessing.get_context("spawn")
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload([__name__])
    return ctx


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


def _serve(conn: Connection, init: tuple) -> None:
    """A worker process: build the toolbox, say so, then run the chunks of tasks sent on
    ``conn`` until told to stop (None) or the parent is gone."""
    try:
        _init_worker(*init)
    except Exception as e:
        conn.send(("error", _sendable(e)))
        return
    conn.send(("ready", None))
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


class Processes:
    """Worker processes that each talk to this one on a pipe of their own and share no
    lock: one that dies, or is killed at any moment, leaves nothing for the others or for
    this process to wait on. (``multiprocessing.Pool`` shares its queues' locks, and its
    ``terminate()`` can wait for ever on one a killed worker held: CPython issue 96995.)"""

    def __init__(self, ctx: multiprocessing.context.BaseContext, count: int, init: tuple):
        self.workers: list[tuple[Any, Connection]] = []
        self.broken = False
        for _ in range(count):
            mine, theirs = ctx.Pipe()
            proc = ctx.Process(target=_serve, args=(theirs, init), daemon=True)  # type: ignore[attr-defined]
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
) -> Iterator[None]:
    """Run the toolbox's tasks here, or, with ``config.workers > 1``, in worker processes
    registered as its ``map`` (each builds the same toolbox, with the ``operators``
    registered from Python); they are told to leave at the end (ended at once on an
    error)."""
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
        yield
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
