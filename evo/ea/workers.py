"""Where the toolbox's ``map`` runs: this process, or a pool of worker processes.

Tasks carry plain trees and seeds only; each worker builds the same toolbox from the
config once, so a task gives the same result in any process.
"""

from __future__ import annotations

import math
import multiprocessing
import multiprocessing.pool
import signal
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import numpy as np
from deap import base

from evo.config import Config
from evo.core.game import make_game
from evo.ea.deadline import GenerationCut, checked_map, seconds_left
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
    rng = np.random.default_rng(np.random.SeedSequence(list(key)))
    tree = tb.individual(rng=rng)
    return tree, tb.evaluate(tree)


def _init_worker(config_data: dict) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # the parent handles Ctrl-C
    for stop in (signal.SIGTERM, signal.SIGHUP):  # the pool's terminate() must end us at
        signal.signal(stop, signal.SIG_DFL)  # once, even blocked in a lock
    config = Config.model_validate(config_data)
    game = make_game(config.game.pegs, config.game.colors, config.game.variant)
    _ = game.table  # built once per process
    _WORKER["toolbox"] = build_toolbox(config, game)


#: Seconds between looks at the pool's workers while a generation is under way.
_POLL = 1.0


class WorkerLost(RuntimeError):
    """A worker process died while it held tasks (a ``kill`` of the process group, the
    out-of-memory killer): the pool would wait for them for ever."""


def _worker_pids(pool: multiprocessing.pool.Pool) -> set[int | None]:
    """The pool's worker processes; the pool replaces one that dies, with a new pid."""
    return {p.pid for p in getattr(pool, "_pool", [])}


@contextmanager
def worker_pool(config: Config, tb: base.Toolbox) -> Iterator[None]:
    """Run the toolbox's tasks here, or, with ``config.workers > 1``, in a process pool
    registered as its ``map``; the pool is closed at the end (terminated on an error)."""
    _WORKER["toolbox"] = tb
    pool: multiprocessing.pool.Pool | None = None
    if config.workers > 1:
        ctx = multiprocessing.get_context("fork" if sys.platform != "win32" else "spawn")
        procs = ctx.Pool(
            config.workers, initializer=_init_worker, initargs=(config.model_dump(mode="json"),)
        )
        pool = procs

        def pool_map(f, items):
            items = list(items)
            chunks = max(1, math.ceil(len(items) / (config.workers * 8)))
            pending = procs.map_async(f, items, chunksize=chunks)
            started = _worker_pids(procs)
            while True:  # the pool is terminated on the way out of each raise
                left = seconds_left()
                try:
                    return pending.get(timeout=_POLL if left is None else min(_POLL, left))
                except multiprocessing.TimeoutError:
                    if left is not None and left <= _POLL:
                        raise GenerationCut from None
                    if _worker_pids(procs) != started:
                        raise WorkerLost(
                            "a worker process died (killed from outside?): the generation "
                            "under way is lost"
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
        tb.register("map", checked_map)
        _WORKER.pop("toolbox", None)
