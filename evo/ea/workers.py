"""Where the toolbox's ``map`` runs: this process, or a pool of worker processes.

Tasks carry plain trees and seeds only; each worker builds the same toolbox from the
config once, so a task gives the same result in any process.
"""

from __future__ import annotations

import math
import multiprocessing
import multiprocessing.pool
import os
import pickle
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
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


def _init_worker(config_data: dict, game: Game, operators: bytes, threads: int, ready: Any) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    if sys.platform != "win32":  # numba's lock for its threads, from the default context:
        # a fork one is unlinked at once, so a worker ended by terminate() leaks nothing
        multiprocessing.set_start_method("fork", force=True)
    set_threads(threads)  # the pool's processes share the cores: no oversubscription
    for stop in (signal.SIGTERM, signal.SIGHUP):  # the pool's terminate() must end us at
        signal.signal(stop, signal.SIG_DFL)  # once, even blocked in a lock
    install_operators(pickle.loads(operators))  # from the parent's memory, never a file
    config = Config.model_validate(config_data)
    game.prepare()  # built once per process; a big table is the cache's shared file
    _WORKER["toolbox"] = tb = build_toolbox(config, game)
    tb.individual(rng=generator(0))  # loads the growth kernels, off the clock
    ready.release()


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


#: Seconds between looks at the pool's workers while a generation is under way.
_POLL = 1.0


class WorkerLost(RuntimeError):
    """A worker process died while it held tasks (a ``kill`` of the process group, the
    out-of-memory killer): the pool would wait for them for ever."""


def _wait_ready(pool: multiprocessing.pool.Pool, ready: Any, count: int) -> None:
    """Wait until ``count`` workers have started (imported evo, built their toolbox); a
    worker that dies meanwhile raises :class:`WorkerLost`."""
    started = _worker_pids(pool)
    for _ in range(count):
        while not ready.acquire(timeout=_POLL):
            if _worker_pids(pool) != started:
                raise WorkerLost(
                    "a worker process died as it started (out of memory, or a script that "
                    'starts workers outside `if __name__ == "__main__":`)'
                )


def _worker_pids(pool: multiprocessing.pool.Pool) -> set[int | None]:
    """The pool's worker processes; the pool replaces one that dies, with a new pid."""
    return {p.pid for p in getattr(pool, "_pool", [])}


@contextmanager
def worker_pool(
    config: Config, tb: base.Toolbox, *, operators: dict[str, Operator] | None = None
) -> Iterator[None]:
    """Run the toolbox's tasks here, or, with ``config.workers > 1``, in a process pool
    registered as its ``map`` (each worker builds the same toolbox, with the
    ``operators`` registered from Python); the pool is closed at the end (terminated on
    an error)."""
    _WORKER["toolbox"] = tb
    pool: multiprocessing.pool.Pool | None = None
    if config.workers > 1:
        ctx = process_context()
        ready = ctx.Semaphore(0)
        procs = ctx.Pool(
            config.workers,
            initializer=_init_worker,
            initargs=(
                config.model_dump(mode="json"),
                tb.game,
                cloudpickle.dumps(operators or {}),  # functions of __main__ by value
                max(1, threads() // config.workers),
                ready,
            ),
        )
        pool = procs
        try:
            _wait_ready(procs, ready, config.workers)  # their start is not the run's time
        except BaseException:
            procs.terminate()
            raise

        def pool_map(f, items):
            items = list(items)
            chunks = max(1, math.ceil(len(items) / (config.workers * 8)))
            pending = procs.map_async(f, items, chunksize=chunks)
            started = _worker_pids(procs)
            while True:  # the pool is terminated on the way out of each raise
                left = tb.time_limit.left()
                try:
                    return pending.get(timeout=_POLL if left is None else min(_POLL, left))
                except multiprocessing.TimeoutError:
                    if left is not None and left <= _POLL:
                        raise GenerationCut from None
                    if _worker_pids(procs) != started:
                        raise WorkerLost(
                            "a worker process died (killed from outside, out of memory, or "
                            "a script that starts workers outside `if __name__ == "
                            '"__main__":`): the generation under way is lost'
                        ) from None

        tb.register("map", pool_map)
    try:
        yield
    except BaseException:
        if pool is not None:
            pool.terminate()
            pool = None
        raise
    finally:
        if pool is not None:
            pool.close()
            pool.join()
        tb.register("map", tb.time_limit.map)
        _WORKER.pop("toolbox", None)
