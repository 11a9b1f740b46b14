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
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

from evo.config import Config
from evo.ea.deadline import GenerationCut, TimeLimit

if TYPE_CHECKING:
    from evo.search.kernels import Kernels

#: Runs island tasks: ``run_map(fn, [args...], limit)`` returns ``[fn(*args)...]``.
Mapper = Callable[[Callable, list[tuple], TimeLimit], list]

#: Address schemes of a Dask scheduler that this installation can reach.
SCHEMES = ("tcp", "ws", "wss")


class ClusterLost(RuntimeError):
    """The scheduler (or every worker) went away during an epoch."""


class ClusterError(ValueError):
    """A scheduler address that cannot be used, or a cluster without workers: a user's
    error, found before a run."""


def serial_map(fn: Callable, args: list[tuple], limit: TimeLimit) -> list:
    """Every task in this process, in order, each given the run's time ``limit`` (which
    is also checked between tasks)."""
    out = []
    for a in args:
        limit.check()
        out.append(fn(*a, limit=limit))
    return out


def check_cluster(config: Config, *, scheduler: str | None = None) -> None:
    """The scheduler the islands would use answers and has a worker within
    ``cluster.wait`` seconds (nothing to check without a scheduler). A scheduler given
    for a run of one population (``--scheduler``, ``cluster.address``) is refused: only
    islands run on Dask, and it would be ignored."""
    if config.islands.count == 1:
        if scheduler is not None or config.cluster.address is not None:
            raise ClusterError(
                "a Dask scheduler (--scheduler, cluster.address) runs islands, and this "
                "config evolves one population (islands.count: 1), whose worker processes "
                "run on this machine: set islands.count, or leave the scheduler out"
            )
        return
    address = scheduler_address(config, scheduler=scheduler)
    if address is not None:
        check_scheduler(address, wait=config.cluster.wait)


def check_scheduler(address: str, *, wait: float = 10.0) -> None:
    """Connect to the scheduler at ``address`` and have a worker within ``wait``
    seconds in all (the connection included: a refused one is retried until then), so
    that a wrong address or an empty cluster is reported before anything is written.
    Raises :class:`ClusterError`."""
    try:
        scheme = urlsplit(address).scheme
    except ValueError as e:  # such as "tcp://[::1": "Invalid IPv6 URL"
        raise ClusterError(
            f"cannot use the Dask scheduler at {address}: it is not an address ({e}; one reads "
            "tcp://HOST:PORT, an IPv6 host in brackets: tcp://[::1]:8786)"
        ) from None
    if scheme not in SCHEMES:
        raise ClusterError(
            f"cannot use the Dask scheduler at {address}: scheme {scheme!r} is not supported "
            f"here (supported: {', '.join(s + '://' for s in SCHEMES)})"
        )
    import time

    from dask.distributed import Client

    deadline = time.monotonic() + wait
    try:
        with Client(address, timeout=f"{wait}s") as client:
            try:
                client.wait_for_workers(1, timeout=max(0.1, deadline - time.monotonic()))
            except TimeoutError:
                raise ClusterError(
                    f"the Dask scheduler at {address} has no worker (waited {wait:g} s, "
                    "cluster.wait); start workers with: dask worker " + address
                ) from None
    except (OSError, TimeoutError, ValueError, TypeError) as e:
        if isinstance(e, ClusterError):
            raise
        reason = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise ClusterError(f"no Dask scheduler answers at {address}: {reason}") from None


def scheduler_address(config: Config, *, scheduler: str | None = None) -> str | None:
    """The scheduler to use: the command line's, the config's, then the environment's."""
    return scheduler or config.cluster.address or os.environ.get("DASK_SCHEDULER_ADDRESS")


@contextmanager
def island_map(
    config: Config, *, scheduler: str | None = None, kernels: Kernels | None = None
) -> Iterator[Mapper]:
    """A :data:`Mapper` that runs island tasks where the config says. On Dask, a task
    does not see the time limit: its epoch is waited for until the limit, then
    cancelled; ``kernels``: compiled on every worker's machine before its first task."""
    from evo.ea.workers import local_processes

    address = scheduler_address(config, scheduler=scheduler)
    workers = min(config.cluster.workers or config.workers, config.islands.count)
    if address is None:
        workers = local_processes(workers)
    if address is None and workers <= 1:
        yield serial_map
        return
    from concurrent.futures import CancelledError

    from dask.distributed import Client, LocalCluster, wait

    from evo.core.engine import threads

    cluster = None
    if address is None:
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            env={"EVO_THREADS": str(max(1, threads() // workers))},  # no oversubscription
            dashboard_address=":0",
            silence_logs=40,
        )
        client = Client(cluster)
    else:
        client = Client(address, timeout="20s")
    if client.dashboard_link:
        print(f"Dask dashboard: {client.dashboard_link}", file=sys.stderr, flush=True)
    if kernels is not None:
        from evo.search.kernels import prepare_workers, tell

        prepare_workers(client, kernels, say=tell)

    def dask_map(fn: Callable, args: list[tuple], limit: TimeLimit) -> list:
        futures = []
        try:
            futures = [client.submit(fn, *a, pure=False, retries=2) for a in args]
            left = limit.left()
            if left is not None:
                try:
                    wait(futures, timeout=left)
                except TimeoutError:
                    raise GenerationCut from None
            return client.gather(futures)
        except (OSError, TimeoutError, CancelledError) as e:
            where = address or "the local cluster"
            raise ClusterLost(f"lost the Dask scheduler at {where} ({type(e).__name__})") from e
        except BaseException:
            _cancel(client, futures)  # a cut epoch, a signal: nothing left running
            raise

    try:
        yield dask_map
    finally:
        from evo.search.spread import close_client

        close_client(client, cluster)


def _cancel(client, futures: list) -> None:
    """Cancel ``futures`` without letting a lost connection raise again."""
    try:
        client.cancel(futures)
    except Exception:  # noqa: BLE001 - the scheduler may already be gone
        pass
