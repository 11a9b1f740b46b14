"""Where independent searches run: in this process, on local worker processes, or on a
Dask cluster; the one place that knows (the lower bound's parts and polish's nodes use it).
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from evo.search.kernels import Kernels

#: Runs tasks: ``mapper(fn, [args, ...])`` gives ``fn(*args)`` of each, in order, as they
#: come (an iterator: the first results can be used before the last are done); unordered,
#: ``(index, result)`` pairs as the tasks end.
Mapper = Callable[[Callable, list[tuple]], Iterable]


def in_process(*, scheduler: str | None, workers: int) -> bool:
    """Whether tasks of ``scheduler`` (None: local) and ``workers`` run in this process,
    one after the other (what a caller keeps in the process, such as a memo, sees them)."""
    return scheduler is None and workers <= 1


class task_mapper:
    """A :data:`Mapper` as a context: the tasks on a Dask scheduler at ``scheduler``
    (``Client(address).map``), else on ``workers`` local processes (1: in this process,
    in order). ``ordered``: the results in the tasks' order, else ``(index, result)`` as
    each task ends (a slow task holds back none of the others). ``kernels``: the compiled
    kernels the tasks call, made ready before the first one (on a Dask worker's machine
    too), never inside a task. ``warm``: a task ``(fn, args)`` that this process, or each
    local worker process, runs once before the mapper is given (the workers started and
    their kernels loaded: a search timed from then has its time for its tasks)."""

    def __init__(
        self,
        *,
        scheduler: str | None = None,
        workers: int = 1,
        ordered: bool = True,
        kernels: Kernels | None = None,
        warm: tuple[Callable, tuple] | None = None,
    ):
        self.scheduler = scheduler
        self.workers = max(1, workers)
        self.ordered = ordered
        self.kernels = kernels
        self.warm = warm
        self._close: Callable[[], None] | None = None
        self._stop: Callable[[], None] | None = None

    @property
    def one_by_one(self) -> bool:
        """Whether the tasks run in this process, one after the other."""
        return in_process(scheduler=self.scheduler, workers=self.workers)

    def __enter__(self) -> Mapper:
        if self.kernels is not None:
            from evo.search.kernels import ensure_compiled, tell

            ensure_compiled(self.kernels, say=tell)  # this process, and the local ones
        if self.scheduler is not None:
            from dask.distributed import Client

            client = Client(self.scheduler, timeout="20s")
            self._close = client.close
            if self.kernels is not None:
                from evo.search.kernels import prepare_workers, tell

                prepare_workers(client, self.kernels, say=tell)

            def dask_map(fn: Callable, args: list[tuple]) -> Iterator[Any]:
                from dask.distributed import as_completed

                futures = client.map(fn, *zip(*args), pure=False) if args else []
                if self.ordered:
                    return (f.result() for f in futures)
                index = {f.key: i for i, f in enumerate(futures)}
                return ((index[f.key], f.result()) for f in as_completed(futures))

            return dask_map
        if self.one_by_one:
            if self.warm is not None:
                self.warm[0](*self.warm[1])
            if self.ordered:
                return lambda fn, args: (fn(*a) for a in args)
            return lambda fn, args: ((i, fn(*a)) for i, a in enumerate(args))
        import multiprocessing
        from concurrent.futures import ProcessPoolExecutor, as_completed

        quiet_resource_tracker()
        # Spawned, not forked: the parent may run numba's threads already.
        spawn = multiprocessing.get_context("spawn")
        ready = None if self.warm is None else spawn.Barrier(self.workers + 1)
        pool = ProcessPoolExecutor(
            self.workers,
            mp_context=spawn,
            initializer=_start_worker,
            initargs=(os.getpid(), self.warm, ready),
        )
        self._close = lambda: pool.shutdown(cancel_futures=True)
        self._stop = lambda: _terminate(pool)
        if ready is not None:
            # A process per task submitted while none is idle: every worker starts, warms
            # up, and waits for the others (a worker that never comes: given up on).
            for _ in range(self.workers):
                pool.submit(os.getpid)
            _meet(ready)
        if self.ordered:
            return lambda fn, args: pool.map(fn, *zip(*args)) if args else iter(())

        def unordered(fn: Callable, args: list[tuple]) -> Iterator[tuple[int, Any]]:
            futures = {pool.submit(fn, *a): i for i, a in enumerate(args)}
            return ((futures[f], f.result()) for f in as_completed(futures))

        return unordered

    def __exit__(self, kind: object, *exc: object) -> None:
        if kind is not None and self._stop is not None:
            self._stop()  # an error or a stop: the searches running are not waited for
        if self._close is not None:
            self._close()


def _terminate(pool: Any) -> None:
    """End a process pool's workers now, their tasks unfinished."""
    for process in list((getattr(pool, "_processes", None) or {}).values()):
        process.terminate()
    pool.shutdown(wait=False, cancel_futures=True)


#: Seconds the workers' warm-up is waited for at most.
WARM_SECONDS = 600.0


def _start_worker(parent: int, warm: tuple[Callable, tuple] | None, ready: Any) -> None:
    """A local worker's start: bound to its parent's life, then warmed up (``warm``), and
    ready when every worker is (``ready``, a barrier that the parent waits on too)."""
    die_with_parent(parent)
    if warm is not None:
        warm[0](*warm[1])
    if ready is not None:
        _meet(ready)


def _meet(ready: Any) -> None:
    """Wait at the barrier ``ready`` (at most :data:`WARM_SECONDS`; one that breaks is
    gone past: the tasks run anyway, only later)."""
    import threading

    try:
        ready.wait(WARM_SECONDS)
    except threading.BrokenBarrierError:
        pass


def die_with_parent(parent: int) -> None:
    """In a worker process: be killed when the process that started it ends, however it
    ends (on Linux; a search of hours would otherwise run on, orphaned, after its parent
    was killed or stopped)."""
    if sys.platform.startswith("linux"):
        import ctypes
        import signal

        libc = ctypes.CDLL(None, use_errno=True)
        libc.prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the parent ended before that
        os._exit(1)


#: The resource tracker's warning after a parent killed with SIGKILL (the pool's queue
#: locks it then removes itself): noise for a user who stopped a bound on purpose.
TRACKER_WARNING = "ignore:resource_tracker:UserWarning"


def quiet_resource_tracker() -> None:
    """Start multiprocessing's resource tracker told to ignore its "leaked semaphore"
    warning: it still cleans up after a parent killed with SIGKILL (issue 50), quietly."""
    import sys
    from multiprocessing import resource_tracker

    if TRACKER_WARNING not in sys.warnoptions:
        sys.warnoptions.append(TRACKER_WARNING)  # the tracker starts with these flags
    resource_tracker.ensure_running()
