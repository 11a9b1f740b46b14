"""Worker processes stopped at the worst moments, run as a script so that a hang shows as
a timeout: ``cut ROUNDS`` cuts generations again and again while the pipes are full;
``die`` has a worker die while it holds every lock of its pool's queues, as one killed
while writing a result does."""

from __future__ import annotations

import gc
import multiprocessing.queues
import os
import signal
import sys
import time

import numpy as np


def echo(task: np.ndarray) -> np.ndarray:
    """A task and a result of a few MB each: the pipes are full most of the time."""
    return task + 1


def die_holding_the_queue_locks(k: int) -> int:
    """Take the write lock of every queue this process can see, then die (SIGKILL)."""
    if k == 0:
        for q in gc.get_objects():
            if isinstance(q, multiprocessing.queues.SimpleQueue) and q._wlock is not None:
                q._wlock.acquire()
        os.kill(os.getpid(), signal.SIGKILL)
    time.sleep(0.5)
    return k


def _toolbox():
    from evo.config import load_config
    from evo.core.game import make_game
    from evo.ea.toolbox import build_toolbox

    data = {"game": {"pegs": 3, "colors": 4}, "population": {"size": 8}, "workers": 2}
    cfg = load_config(data, [])
    return cfg, build_toolbox(cfg, make_game(3, 4))


def cut(rounds: int) -> None:
    from evo.ea.deadline import GenerationCut
    from evo.ea.workers import worker_pool

    cfg, tb = _toolbox()
    for k in range(rounds):
        start = time.monotonic()
        try:
            with worker_pool(cfg, tb), tb.time_limit.within(0.02 * (k % 10)):
                tb.map(echo, [np.full(400_000, j) for j in range(100)])
        except GenerationCut:
            pass
        print(f"round {k}: {time.monotonic() - start:.2f} s", flush=True)


def die() -> None:
    from evo.ea.workers import WorkerLost, worker_pool

    cfg, tb = _toolbox()
    try:
        with worker_pool(cfg, tb):
            tb.map(die_holding_the_queue_locks, range(8))
    except WorkerLost as e:
        print(f"lost: {e}", flush=True)
    print("ended", flush=True)


if __name__ == "__main__":
    from support import pool_stress  # the workers find the tasks by this name

    if sys.argv[1] == "cut":
        pool_stress.cut(int(sys.argv[2]))
    else:
        pool_stress.die()
