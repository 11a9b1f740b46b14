"""Where islands run: in this process, on a local Dask cluster, or on a remote one.

With no scheduler address (``--scheduler``, ``cluster.address`` or the usual
``DASK_SCHEDULER_ADDRESS``) and one worker, tasks run here, in order; with more workers,
an embedded ``LocalCluster`` of single-threaded worker processes runs them (the loop's
Python ``random`` state is per process, so workers must not share a process). Each
worker loads the game's feedback table from its machine's cache.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from evo.config import Config
from evo.ea.deadline import GenerationCut, seconds_left

Mapper = Callable[[Callable, list[tuple]], list]


class ClusterLost(RuntimeError):
    """The scheduler (or every worker) went away during an epoch."""


class ClusterError(ValueError):
    """A scheduler address that does not answer: a user's error, found before a run."""


def check_cluster(config: Config, *, scheduler: str | None = None) -> None:
    """The scheduler the islands would use answers (nothing to check without one)."""
    address = scheduler_address(config, scheduler=scheduler)
    if address is not None:
        check_scheduler(address)


def check_scheduler(address: str, *, timeout: float = 10.0) -> None:
    """Connect to the scheduler at ``address`` once, so that a wrong address is reported
    before anything is written. Raises :class:`ClusterError`."""
    from dask.distributed import Client

    try:
        with Client(address, timeout=f"{timeout}s"):
            pass
    except (OSError, TimeoutError, ValueError) as e:
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ClusterError(f"no Dask scheduler answers at {address}: {reason}") from None


def scheduler_address(config: Config, *, scheduler: str | None = None) -> str | None:
    """The scheduler to use: the command line's, the config's, then the environment's."""
    return scheduler or config.cluster.address or os.environ.get("DASK_SCHEDULER_ADDRESS")


@contextmanager
def island_map(config: Config, *, scheduler: str | None = None) -> Iterator[Mapper]:
    """A ``map(fn, [args...])`` that runs island tasks where the config says."""
    from evo.ea.islands import serial_map

    address = scheduler_address(config, scheduler=scheduler)
    workers = min(config.cluster.workers or config.workers, config.islands.count)
    if address is None and workers <= 1:
        yield serial_map
        return
    from concurrent.futures import CancelledError

    from dask.distributed import Client, LocalCluster, wait

    cluster = None
    if address is None:
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",
            silence_logs=40,
        )
        client = Client(cluster)
    else:
        client = Client(address, timeout="20s")
    if client.dashboard_link:
        print(f"Dask dashboard: {client.dashboard_link}", file=sys.stderr, flush=True)

    def dask_map(fn: Callable, args: list[tuple]) -> list:
        try:
            futures = [client.submit(fn, *a, pure=False, retries=2) for a in args]
            left = seconds_left()
            if left is not None:
                try:
                    wait(futures, timeout=left)
                except TimeoutError:
                    client.cancel(futures)
                    raise GenerationCut from None
            return client.gather(futures)
        except (OSError, TimeoutError, CancelledError) as e:
            where = address or "the local cluster"
            raise ClusterLost(f"lost the Dask scheduler at {where} ({type(e).__name__})") from e

    try:
        yield dask_map
    finally:
        try:
            client.close(timeout=5)
            if cluster is not None:
                cluster.close(timeout=5)
        except (OSError, TimeoutError):
            pass  # already gone
