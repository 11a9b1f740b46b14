"""The exact search spread over threads or a Dask cluster (DESIGN §5, "Spreading").

A big search is cut into subproblems that need not wait for each other. The sets of at
least ``split`` codes near the root are searched here, as the compiled search
(:func:`evo.search.exact_kernel.search`) would: the same candidates in the same order, the
same pruning, the same rule (the first optimal candidate). Their smaller parts are
*leaves*, each one searched whole by the compiled search, on a thread or a Dask worker.

The search order is kept as a priority: of the leaves ready, the first in the order the
compiled search would meet them starts first. A candidate other than a set's first is
searched once a bound is known for it (the set's own bound, or another candidate's cost),
so no leaf runs without a bound except under the first candidates from the root. Each
leaf gets the bound known when it starts: what its candidate may cost at most, less what
its other parts cost at least (their costs once known); on threads, a leaf already
running is told when its bound drops, and stopped when its candidate is decided. A
candidate is decided when its parts' costs are known (its cost) or reach its bound
(dropped); a set is decided when its candidates are. On threads, the thread whose leaf
ends takes the coordinator's turn and starts the next leaf itself; a cluster's
coordinator waits for its tasks.

Whatever finishes first, every answer is the same: a leaf's answer is its exact cost
when below its bound, else a lower bound of at least that bound, and the memo's choice
for a set does not depend on what the memo holds (DESIGN §5). A set's choice is made
from exact costs and proved bounds only: the first candidate of least cost, a later one
only when strictly cheaper. So the tree is the same on one thread, many, or a cluster.

Finished leaves can be appended to a *results file* (JSON lines, synced to disk one by
one): a search started again with it skips them, so a long proof survives a restart.
"""

from __future__ import annotations

import hashlib
import heapq
import json
import os
import threading
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

import numpy as np

if TYPE_CHECKING:
    from evo.search.kernels import Kernels
    from evo.search.palette import Palette

#: The bound that means "no limit".
UNBOUNDED = 1 << 60

#: Parts of fewer codes than this are searched by the spread search's own thread, at once:
#: a task would cost more than their search.
INLINE = 32

#: A spread search picks the leaf to start among the first this many ready ones.
SCAN = 64

#: Format name and version of a results file's first line.
RESULTS_FORMAT = "evo-exact-results"
RESULTS_VERSION = 1


@dataclass(frozen=True)
class Outcome:
    """A leaf's answer: its exact ``cost`` and the guesses of its subtree (preorder, see
    :func:`evo.search.exact_kernel.harvest`), or, when not ``exact``, a lower bound of its
    cost at least the bound it was searched with. ``nodes`` and ``seconds``: the work."""

    cost: int
    exact: bool
    guesses: np.ndarray | None = None
    nodes: int = 0
    seconds: float = 0.0


@dataclass
class Stats:
    """What a spread search did: leaves searched (and taken from a results file or the
    memo), their nodes and seconds (summed over the workers), sets split here, parts
    searched here at once (too small to send); and how far the root is: its candidates
    (``decided`` of ``candidates``), the bounds proved so far on its cost (``lower``;
    ``upper``, -1 before a first candidate's cost is known), and what the first of its
    candidates under search costs at least (``opened``; -1: none)."""

    leaves: int = 0
    reused: int = 0
    nodes: int = 0
    seconds: float = 0.0
    split: int = 0
    inline: int = 0
    candidates: int = 0
    decided: int = 0
    lower: int = 0
    upper: int = -1
    opened: int = -1


# ---------------------------------------------------------------------- the search tree
_OPEN, _EXACT, _DROPPED = 0, 1, 2


class _Set:
    """A code set of the spread search: split here into its candidates' parts, or a leaf."""

    __slots__ = (
        "codes",
        "palette",
        "up",
        "key",
        "depth",
        "leaf",
        "cands",
        "least",
        "cost",
        "lower",
        "guess",
        "done",
        "running",
        "bound",
        "meta",
        "dead",
        "queued",
        "exact",
        "lo",
        "queued_all",
        "place",
        "limit",
    )

    def __init__(self, codes: np.ndarray, palette: Palette, up: _Cand | None, key: tuple):
        self.codes = codes
        self.palette = palette
        self.up = up
        self.key = key
        self.depth = len(key) // 2
        self.leaf = True
        self.cands: list[_Cand] | None = None
        self.least = 0
        self.cost = -1  # exact cost when known
        self.lower = 0  # a lower bound of the cost
        self.guess = -1
        self.done = False
        self.running = False
        self.bound = UNBOUNDED  # the bound of its running search (a leaf)
        self.meta: np.ndarray | None = None  # the running search's memo cells (threads)
        self.dead = False  # no longer needed: its running search may stop
        self.queued = False
        self.exact: list[_Cand] = []  # its candidates of known cost
        self.lo = 0  # its candidates before this one are decided
        self.queued_all = False  # its candidates are all queued to be opened
        self.place = -1  # the runner's place (a thread's memo) where it is searched
        self.limit = UNBOUNDED  # the bound it was split with: no candidate left out is below

    @property
    def value(self) -> int:
        """Its exact cost when known, else the best lower bound known."""
        return self.cost if self.cost >= 0 else self.lower


class _Cand:
    """A candidate guess of a split set, with its parts of three codes or more."""

    __slots__ = (
        "set",
        "q",
        "guess",
        "score",
        "fixed",
        "parts",
        "state",
        "cost",
        "opened",
        "mark",
        "running",
        "queued",
        "total",
        "pending",
    )

    def __init__(self, owner: _Set, q: int, guess: int, score: int):
        self.set = owner
        self.q = q
        self.guess = guess
        self.score = score  # its bound from part sizes
        self.fixed = 0  # |S| and the parts of one or two codes
        self.parts: list[_Set] = []
        self.state = _OPEN
        self.cost = -1
        self.opened = False
        self.mark = b""  # its split, to tell candidates that split the set alike
        self.running = 0  # its leaves being searched
        self.queued = False
        self.total = 0  # fixed, and what its parts cost (at least)
        self.pending = 0  # its parts of unknown cost


# ---------------------------------------------------------------------- runners
class Runner(Protocol):
    """Where leaves are searched, the coordinator waiting for them: ``slots`` at once;
    ``start`` one with a bound, ``wait`` for some to finish (``(leaf, outcome)`` pairs, an
    exception as outcome when the search failed), ``tell`` a running one that its bound
    dropped or it is no longer needed. ``share``: by default, the sets of at least this
    share of the codes are split, the smaller ones are leaves (how big a leaf must be to
    be worth a task). :class:`Threads` is the other kind: no one waits for its leaves."""

    share: float

    @property
    def slots(self) -> int: ...

    def start(self, leaf: _Set, bound: int, place: int = 0) -> None: ...

    def wait(self, timeout: float) -> list[tuple[_Set, Any]]: ...

    def tell(self, leaf: _Set) -> None: ...

    def close(self) -> None: ...


class Threads:
    """Leaves on threads of this process, each thread searching in a memo of its own
    (``memos``: a list of boxes, one per thread, kept across searches); ``search(leaf,
    box)`` runs one (the solver's :meth:`~evo.search.exact.Solver.leaf`). A leaf's thread
    hands what it ended with to ``on_done`` (set by the spread search), which takes the
    coordinator's turn there: it starts the next leaf with no other thread to wake."""

    #: Small leaves: one costs a thread about a millisecond of Python, and a thread is
    #: told when its leaf's bound drops (on (4,8), sets from 256 codes split: 3,200 leaves).
    share = 1 / 16

    def __init__(
        self,
        count: int,
        memos: list[list],
        search: Callable[[_Set, list, Threads], Outcome | None],
    ):
        self.slots = count
        self._search = search
        self._boxes = memos[:count]
        self._pool = ThreadPoolExecutor(count)
        self._go = threading.Event()
        self._go.set()
        self._busy = self._parked = 0
        self._turn = threading.Condition()
        #: Called by a leaf's thread with ``(leaf, outcome)`` when the leaf ends (the
        #: outcome, None when stopped, or the exception its search raised); set before a
        #: leaf starts, else its outcome, and any error, would be lost.
        self.on_done: Callable[[_Set, Any], None] | None = None

    def start(self, leaf: _Set, bound: int, place: int = 0) -> None:
        """Search ``leaf`` with ``bound`` in the memo of ``place`` (free: one leaf a memo)."""
        if self.on_done is None:
            raise RuntimeError("Threads.on_done is not set: the leaf's outcome would be lost")
        leaf.bound = bound
        self._pool.submit(self._work, leaf, self._boxes[place])

    def _work(self, leaf: _Set, box: list) -> None:
        with self._turn:
            self._busy += 1
        try:
            out: Any = self._search(leaf, box, self)
        except BaseException as e:  # noqa: BLE001 - handed to the coordinator
            out = e
        finally:
            leaf.meta = None
            with self._turn:
                self._busy -= 1
                self._turn.notify_all()
        assert self.on_done is not None  # checked by start
        self.on_done(leaf, out)

    @property
    def paused(self) -> bool:
        """Whether the searches are to wait (:meth:`park`) while the shared memo makes room."""
        return not self._go.is_set()

    def park(self) -> None:
        """Wait, from a leaf's thread, until the pause is over."""
        with self._turn:
            self._parked += 1
            self._turn.notify_all()
        self._go.wait()
        with self._turn:
            self._parked -= 1

    def pause(self) -> None:
        """Stop every running search where it is and wait until all wait (or ended)."""
        from evo.search.memo_kernel import STOP

        self._go.clear()
        for box in self._boxes:
            box[0][4][STOP] = 1
        with self._turn:
            self._turn.wait_for(lambda: self._parked >= self._busy)

    def resume(self) -> None:
        self._go.set()

    def tell(self, leaf: _Set) -> None:
        from evo.search.memo_kernel import STOP

        meta = leaf.meta
        if meta is not None:
            meta[STOP] = 1

    def close(self) -> None:
        self._pool.shutdown(wait=True)


class Cluster:
    """Leaves as tasks of a Dask cluster: ``task(codes, played, pis, luts, bound)``
    (pure: :func:`evo.search.exact.solve_leaf` with the game and options bound) returns
    an :class:`Outcome`. As many tasks are submitted as the workers have threads, so that
    each starts with the bound known when a worker is free. A leaf no longer needed is
    cancelled; one whose bound drops runs on (a task cannot be told). A task that fails
    is tried again (a lost worker's, by Dask itself)."""

    #: Big leaves: a task costs the cluster's scheduler, worker and client about 16 ms of
    #: CPU (two local workers, measured), and a task's bound cannot be lowered while it
    #: runs. On (4,8), sets from 1024 codes split: about 400 leaves instead of 3,200.
    share = 1 / 4

    def __init__(self, client: Any, task: Callable):
        self._client = client
        self._task = task
        self._running: dict[Any, _Set] = {}
        self._futures: dict[int, Any] = {}
        self._slots, self._asked = 1, -1.0

    @property
    def slots(self) -> int:
        """The threads of the cluster's workers now (asked again every 10 s)."""
        now = time.monotonic()
        if now - self._asked > 10:
            self._asked = now
            self._slots = max(1, sum(self._client.nthreads().values()))
        return self._slots

    def start(self, leaf: _Set, bound: int, place: int = 0) -> None:
        leaf.bound = bound
        pal = leaf.palette
        future = self._client.submit(
            self._task, leaf.codes, pal.played, pal.pis, pal.luts, bound, pure=False, retries=3
        )
        self._running[future] = leaf
        self._futures[id(leaf)] = future

    def wait(self, timeout: float) -> list[tuple[_Set, Any]]:
        from distributed import wait

        if not self._running:
            time.sleep(min(timeout, 0.05))
            return []
        try:
            done, _ = wait(list(self._running), timeout=timeout, return_when="FIRST_COMPLETED")
        except TimeoutError:
            return []
        got = []
        for future in done:
            leaf = self._running.pop(future)
            self._futures.pop(id(leaf), None)
            try:
                got.append((leaf, future.result()))
            except BaseException as e:  # noqa: BLE001 - handed to the coordinator
                got.append((leaf, e))
        return got

    def tell(self, leaf: _Set) -> None:
        if leaf.dead:
            future = self._futures.pop(id(leaf), None)
            if future is not None:
                self._running.pop(future, None)
                future.cancel()

    def close(self) -> None:
        for future in list(self._running):
            future.cancel()
        self._running.clear()


@contextmanager
def dask_client(
    scheduler: str | None = None,
    *,
    workers: int = 2,
    memory: int | None = None,
    kernels: Kernels | None = None,
) -> Iterator[Any]:
    """A Dask client: of the scheduler at ``scheduler``, or of a local cluster of
    ``workers`` single-threaded worker processes (each may take ``memory`` bytes, none
    of them more than its share), closed after; ``kernels``: compiled on every worker's
    machine before its first task."""
    from distributed import Client, LocalCluster

    cluster = None
    if scheduler is None:
        cluster = LocalCluster(
            n_workers=workers,
            threads_per_worker=1,
            processes=True,
            memory_limit=0 if memory is None else memory,
            env={"EVO_THREADS": "1"},
            dashboard_address=":0",
            silence_logs=40,
        )
        client = Client(cluster)
    else:
        client = Client(scheduler, timeout="20s")
    try:
        client.wait_for_workers(1, timeout=60)
        if kernels is not None:
            from evo.search.kernels import prepare_workers, tell

            prepare_workers(client, kernels, say=tell)
        yield client
    finally:
        close_client(client, cluster)


def close_client(client: Any, cluster: Any = None) -> None:
    """Close a Dask client, and the local cluster it started (None: a remote one), within
    a few seconds; one already gone is no error."""
    try:
        client.close(timeout=5)
        if cluster is not None:
            cluster.close(timeout=5)
    except (OSError, TimeoutError):
        pass  # already gone


# ---------------------------------------------------------------------- results file
class ResultsError(ValueError):
    """A results file that cannot be used: another game or search, or not one at all."""


def set_key(codes: np.ndarray) -> str:
    """A code set's name in a results file: a digest of its sorted codes."""
    return hashlib.sha256(np.asarray(codes, dtype="<u4").tobytes()).hexdigest()[:32]


class Results:
    """A results file: finished leaves, one JSON line each, appended and synced to disk
    one by one; a line cut short by a crash is dropped when the file is opened again.
    ``what``: the game and search it belongs to (its first line), checked on opening.

    Each line is sealed by this machine's key (:mod:`evo.core.seal`, over the line and
    ``what``): a line whose seal does not hold (edited, or written elsewhere) is not
    used, its set searched again (:attr:`unsealed` counts them), so that no file can
    change what the search proves. The file is locked while open: one search at a time
    extends it."""

    def __init__(self, path: str | os.PathLike, what: dict):
        from evo.core.files import atomic_write_text, exclusive, lock_beside

        self.path = Path(path)
        self.what = {"format": RESULTS_FORMAT, "version": RESULTS_VERSION, **what}
        self._known: dict[str, tuple[int, bool, list[int] | None]] = {}
        #: Lines not used: their seal does not hold.
        self.unsealed = 0
        self._lock = ExitStack()
        self._lock.enter_context(exclusive(lock_beside(self.path), what=str(self.path)))
        try:
            if self.path.exists():
                self._read()
            else:
                atomic_write_text(self.path, json.dumps(self.what, sort_keys=True) + "\n")
            self._file = open(self.path, "a")  # noqa: SIM115 - kept open, closed by close()
        except BaseException:
            self._lock.close()
            raise

    def _read(self) -> None:
        if not self.path.is_file():
            raise ResultsError(f"{self.path}: not a file")
        data = self.path.read_bytes()
        end = data.rfind(b"\n") + 1
        if end < len(data):  # a last line cut short: dropped
            with open(self.path, "r+b") as f:
                f.truncate(end)
        lines = data[:end].decode("utf-8", errors="replace").splitlines()
        try:
            head = json.loads(lines[0]) if lines else None
        except json.JSONDecodeError:
            head = None
        if not isinstance(head, dict) or head.get("format") != RESULTS_FORMAT:
            raise ResultsError(f"{self.path}: not a results file of evo's exact search")
        if head != self.what:
            diff = sorted(k for k in set(head) | set(self.what) if head.get(k) != self.what.get(k))
            raise ResultsError(
                f"{self.path}: a results file of another search (differs in: {', '.join(diff)})"
            )
        from evo.core.seal import is_sealed

        for number, line in enumerate(lines[1:], 2):
            try:
                rec = json.loads(line)
            except json.JSONDecodeError:
                raise ResultsError(f"{self.path}, line {number}: not a result") from None
            why = _malformed(rec)
            if why:
                raise ResultsError(f"{self.path}, line {number}: not a result: {why}")
            body = {k: v for k, v in rec.items() if k != "seal"}
            if not is_sealed({"what": self.what, **body}, rec.get("seal")):
                self.unsealed += 1
                continue
            self._remember(rec["set"], rec["cost"], rec["exact"], rec["guesses"])

    def _remember(self, key: str, cost: int, exact: bool, guesses: list[int] | None) -> None:
        old: tuple[int, bool, list[int] | None] | None = self._known.get(key)
        if old is not None and (old[1] or old[0] >= cost):
            return  # an exact cost, or a better lower bound, known already
        self._known[key] = (cost, exact, guesses)

    def __len__(self) -> int:
        return len(self._known)

    def get(self, codes: np.ndarray) -> tuple[int, bool, list[int] | None] | None:
        """``(cost, exact, guesses)`` recorded for ``codes``, or None."""
        return self._known.get(set_key(codes))

    def add(self, codes: np.ndarray, outcome: Outcome) -> None:
        """Record a leaf's outcome (appended and synced before it returns)."""
        from evo.core.seal import seal

        key = set_key(codes)
        guesses = None if outcome.guesses is None else [int(g) for g in outcome.guesses]
        rec: dict[str, Any] = {
            "set": key,
            "n": len(codes),
            "cost": int(outcome.cost),
            "exact": bool(outcome.exact),
            "guesses": guesses if outcome.exact else None,
            "nodes": int(outcome.nodes),
            "seconds": round(float(outcome.seconds), 3),
        }
        rec["seal"] = seal({"what": self.what, **rec})
        self._file.write(json.dumps(rec) + "\n")
        self._file.flush()
        os.fsync(self._file.fileno())
        self._remember(key, int(outcome.cost), bool(outcome.exact), rec["guesses"])

    def close(self) -> None:
        self._file.close()
        self._lock.close()


#: The largest cost or guess a results file may name (beyond, a line is not a result).
_LARGEST = 1 << 62


def _malformed(rec: Any) -> str | None:
    """Why a results file's line is not a result (None: it is one, to be checked)."""
    if not isinstance(rec, dict):
        return "not a JSON object"
    key = rec.get("set")
    if not isinstance(key, str) or len(key) != 32 or not all(c in "0123456789abcdef" for c in key):
        return f"set {key!r} is not a set's name"
    for name in ("cost", "n", "nodes"):
        value = rec.get(name)
        if not _whole(value):
            return f"{name} {value!r} is not a whole number from 0 up"
    if not isinstance(rec.get("exact"), bool):
        return f"exact {rec.get('exact')!r} is not true or false"
    guesses = rec.get("guesses")
    if rec["exact"]:
        if not isinstance(guesses, list) or not all(_whole(g) for g in guesses):
            return "guesses is not a list of codes"
    elif guesses is not None:
        return "a lower bound with guesses"
    return None


def _whole(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < _LARGEST


# ---------------------------------------------------------------------- the coordinator
class Spread:
    """One spread search of ``codes`` below ``bound`` for a solver (its compiled game,
    perfect-split bounds and memo: :class:`evo.search.exact.Solver`), whose leaves run on
    ``runner``; sets of at least ``split`` codes, at most ``depth`` guesses below the
    root, are split here, and parts of fewer than ``inline`` codes searched here at once
    (a task would cost more than their search). ``results``: a results file to reuse and
    extend; ``deadline``: a ``time.monotonic()`` instant past which :class:`TimeoutError`
    is raised; ``report``: called with the :class:`Stats` every ``every`` seconds;
    ``improved``: called with ``(guess, cost)`` when a first guess is decided at a new
    least cost (the solver's memos then hold its subtree's choices); ``floors``: what
    first guesses (the root's candidates, by guess) are proved to cost at least, by
    :mod:`evo.proofs.bound`, for the bounds reported only (the search does not read
    them); ``full``,
    ``make_room``: when ``full()`` (the memo the threads share has no room),
    ``make_room()`` is called with the runner's threads paused."""

    def __init__(
        self,
        solver: Any,
        runner: Runner | Threads,
        *,
        split: int,
        inline: int = INLINE,
        depth: int = 3,
        symmetric: bool = True,
        results: Results | None = None,
        deadline: float | None = None,
        report: Callable[[Stats], None] | None = None,
        every: float = 60.0,
        improved: Callable[[int, int], None] | None = None,
        floors: dict[int, int] | None = None,
        full: Callable[[], bool] | None = None,
        make_room: Callable[[], None] | None = None,
    ):
        self.solver = solver
        self.improved = improved
        self.floors = floors or {}
        self.full = full
        self.make_room = make_room
        self.runner = runner
        self.split = max(split, 3)
        self.inline = inline
        self.max_depth = depth
        self.symmetric = symmetric
        self.results = results
        self.deadline = deadline
        self.report = report
        self.every = every
        # Compiled on first use: imported here so that importing this module stays cheap.
        from evo.search import exact_kernel, memo_kernel

        self._k, self._mk = exact_kernel, memo_kernel
        self._rows, self._nf = solver.game_args[0], solver.game_args[6]
        self.stats = Stats()
        self._heap: list[tuple[tuple, int, _Set | _Cand]] = []
        self._count = 0
        self._running: set[_Set] = set()
        self._todo: list[_Set] = []  # split sets to check again
        self._root_bound = UNBOUNDED
        self._root: _Set | None = None
        self._free: list[int] = []  # the places (memos) with no leaf running
        self._places = 0  # the places made so far (a cluster may gain workers)
        self._reported = 0.0  # when ``report`` was last called
        self._told = UNBOUNDED  # the least cost of a first guess told to ``improved``

    # ---------------------------------------------------------------- bounds
    def _budget(self, x: _Set) -> int:
        """The bound a search of ``x`` has now: what its candidate may cost at most, less
        what its other parts cost at least."""
        c = x.up
        if c is None:
            return self._root_bound
        b = self._cand_bound(c)
        if b >= UNBOUNDED:
            return UNBOUNDED
        return b - c.total + x.value

    def _cand_bound(self, c: _Cand, budget: int | None = None) -> int:
        """What candidate ``c`` must cost less than to be chosen: its set's bound
        (``budget`` when known), a cheaper candidate before it, or one at most as cheap
        after it."""
        y = c.set
        b = self._budget(y) if budget is None else budget
        for d in y.exact:
            if d is not c:
                b = min(b, d.cost if d.q < c.q else d.cost + 1)
        return b

    def _alive(self, x: _Set) -> bool:
        """Whether ``x``'s answer is still needed: no set or candidate above it decided."""
        while True:
            if x.done:
                return False
            c = x.up
            if c is None:
                return True
            if c.state != _OPEN:
                return False
            x = c.set

    def _root_progress(self) -> None:
        """Put in :attr:`stats` how far the root is: its candidates decided, the least
        cost of those of known cost (an upper bound of its cost) and a lower bound of its
        cost (:meth:`_floor`)."""
        x, st = self._root, self.stats
        if x is None:
            return
        st.candidates = len(x.cands or ())
        st.decided = sum(c.state != _OPEN for c in x.cands or ())
        if x.done:
            st.lower, st.upper, st.opened = x.value, x.cost, -1
            return
        st.upper = min((c.cost for c in x.exact), default=-1)
        st.lower = self._floor(x)
        first = next((c for c in x.cands or () if c.state == _OPEN and c.opened), None)
        st.opened = -1 if first is None else self._cand_floor(first)

    @staticmethod
    def _cheapest(x: _Set) -> _Cand | None:
        """The set's choice among its candidates of known cost: the first of least cost."""
        return min(x.exact, key=lambda c: (c.cost, c.q), default=None)

    def _tell_improved(self) -> None:
        """Call ``improved`` when a first guess is decided at a new least cost (the first
        in the order of those of least cost)."""
        x = self._root
        if x is None or self.improved is None:
            return
        best = self._cheapest(x)
        if best is not None and best.cost < self._told:
            self._told = best.cost
            self.improved(best.guess, best.cost)

    def _floor(self, x: _Set) -> int:
        """A lower bound of set ``x``'s cost from what is known below it now: the least,
        over its candidates, of what each costs at least (its parts' floors when opened),
        and of the bound it was split with (a candidate left out costs at least that)."""
        if x.cost >= 0 or x.cands is None:
            return x.value
        least = x.limit
        for c in x.cands:
            if c.opened and c.fixed == 0:
                continue  # it splits the set as a candidate before it: the same cost
            least = min(least, self._cand_floor(c))
        return max(x.value, least)

    def _cand_floor(self, c: _Cand) -> int:
        """What candidate ``c`` costs at least: its cost when known, else its parts'
        floors when opened, else its bound from part sizes; for a first guess, at least
        its floor given (:attr:`floors`)."""
        if c.cost >= 0:
            return c.cost
        given = self.floors.get(c.guess, 0) if c.set is self._root else 0
        if not c.opened:
            return max(c.score, given)
        return max(given, c.fixed + sum(self._floor(p) for p in c.parts))

    # ---------------------------------------------------------------- building
    def _push(self, x: _Set | _Cand, key: tuple) -> None:
        if not x.queued:
            x.queued = True
            self._count += 1
            heapq.heappush(self._heap, (key, self._count, x))

    def _known(self, codes: np.ndarray) -> tuple[int, int]:
        """``(cost, lower)`` the solver's memo knows for ``codes`` (cost -1: unknown)."""
        n = len(codes)
        lb = int(self.solver.lb[n])
        if n <= 2:
            return 2 * n - 1, lb
        cost, guess, lower = self._mk.lookup(self.solver.memo, codes)
        return (int(cost) if guess >= 0 else -1), max(lb, int(lower))

    def _expand(self, x: _Set) -> None:
        """Split set ``x`` into its candidates (as the compiled search scores them, in its
        order); the first queued to be opened, the others once it is decided."""
        bound = self._budget(x)
        x.leaf = False
        self.stats.split += 1
        cands, kept, bounds, biggest, least = self._k._candidates(
            x.codes, bound, x.value, self.solver.game_args, x.palette
        )
        x.least = int(least)
        x.limit = bound
        x.cands = []
        for q in range(len(kept)):
            c = _Cand(x, q, int(cands[kept[q]]), int(bounds[q]))
            x.cands.append(c)
            if biggest[q] <= 2:  # parts of one or two codes: its bound is its cost
                c.fixed, c.opened = c.score, True
                self._exact(c, c.score)
                break  # the least cost left: no later candidate can come before it
        if x.cands and not x.cands[0].opened:
            self._push(x.cands[0], (*x.key, 0, -1))
        self._todo.append(x)

    def _open(self, c: _Cand) -> None:
        """Open candidate ``c``: its parts made, the small ones searched here in order
        (each with its bound, as the compiled search would, until one reaches it), the
        others queued; its set checked again after."""
        x = c.set
        c.opened = True
        self._todo.append(x)
        grouped, sizes, label = self._k.split(self._rows, c.guess, x.codes, x.codes, self._nf)
        c.mark = label.tobytes()
        # A candidate that splits the set as one before it costs the same: dropped.
        if any(d.mark == c.mark for d in x.cands[: c.q]):  # type: ignore[index]
            c.state = _DROPPED
            return
        below = self._k.below(x.palette, c.guess) if self.symmetric else x.palette
        c.fixed = len(x.codes)
        pos = 0
        for i, size in enumerate(sizes.tolist()):
            part = grouped[pos : pos + size]
            pos += size
            if size <= 2:
                c.fixed += 2 * size - 1
                continue
            p = _Set(part, below, c, (*x.key, c.q, i))
            p.cost, p.lower = self._known(part)
            c.parts.append(p)
        c.total = c.fixed + sum(p.value for p in c.parts)
        c.pending = sum(p.cost < 0 for p in c.parts)
        for p in c.parts:
            if p.cost >= 0 or len(p.codes) >= self.inline:
                continue
            bound = self._budget(p)
            if p.value >= bound:
                break
            got = self.solver.cost_here(p.codes, bound, p.palette, self.symmetric)
            self.stats.inline += 1
            if got >= bound:
                self._learn(p, lower=got)
                break
            self._learn(p, cost=got)
        for p in c.parts:
            if p.cost < 0:
                self._push(p, p.key)

    # ---------------------------------------------------------------- deciding
    @staticmethod
    def _learn(x: _Set, *, cost: int = -1, lower: int = 0) -> None:
        """Set ``x``'s exact ``cost``, or raise its lower bound, keeping its candidate's
        sums."""
        old, known = x.value, x.cost >= 0
        if cost >= 0:
            x.cost = cost
        else:
            x.lower = max(x.lower, lower)
        c = x.up
        if c is not None:
            c.total += x.value - old
            if not known and x.cost >= 0:
                c.pending -= 1

    def _exact(self, c: _Cand, cost: int) -> None:
        c.state, c.cost = _EXACT, cost
        c.set.exact.append(c)

    def _settle(self, c: _Cand, budget: int | None = None) -> bool:
        """Decide candidate ``c`` if its parts allow (``budget``: its set's, when known):
        True when it is decided."""
        if c.state != _OPEN:
            return True
        bound = self._cand_bound(c, budget)
        if not c.opened:
            if c.score >= bound:
                c.state = _DROPPED
            return c.state != _OPEN
        if c.total >= bound:
            c.state = _DROPPED
        elif c.pending == 0:
            self._exact(c, c.total)
        return c.state != _OPEN

    def _settle_set(self, x: _Set) -> bool:
        """Decide split set ``x`` if its candidates allow: True when it is decided. Once
        its first candidate is decided, the others are queued to be opened (in order:
        the search opens the next one when the one before has all its leaves started)."""
        assert x.cands is not None
        budget = self._budget(x)
        undecided = False
        cands = x.cands
        while x.lo < len(cands) and cands[x.lo].state != _OPEN:
            x.lo += 1  # a decided prefix, not looked at again
        for c in cands[x.lo :]:
            if c.state != _OPEN:
                continue
            if c.opened:
                undecided |= not self._settle(c, budget)
                continue
            # The first candidate not opened: it and those after it (not opened either,
            # bounds at least its own, the same bound) are dropped or wait their turn.
            if c.score >= self._cand_bound(c, budget):
                for d in cands[c.q :]:
                    d.state = _DROPPED
            else:
                undecided = True
                if cands[0].state != _OPEN and not x.queued_all:
                    x.queued_all = True
                    for d in cands[c.q :]:
                        self._push(d, (*x.key, d.q, -1))
            break
        if undecided:
            return False
        best = self._cheapest(x)
        if best is not None and best.cost < budget:
            x.guess = best.guess
            self._learn(x, cost=best.cost)
            self.solver.remember(x.codes, best.cost, best.guess)
        else:
            self._learn(x, lower=max(budget, x.least))
            self.solver.remember(x.codes, -1, x.lower)
        x.done = True
        return True

    def _propagate(self, x: _Set) -> None:
        """``x`` is decided (or its value changed): decide what depends on it, upwards."""
        while x.up is not None:
            if not self._settle(x.up):
                return
            x = x.up.set
            if not self._settle_set(x):
                return

    def _answer(self, x: _Set, outcome: Outcome) -> None:
        """Take a leaf's outcome."""
        if outcome.exact:
            self._learn(x, cost=int(outcome.cost))
            if outcome.guesses is not None:
                self.solver.plant(x.codes, outcome.guesses, x.cost)
        else:
            self._learn(x, lower=int(outcome.cost))
            self.solver.remember(x.codes, -1, x.lower)
        x.done = True
        self._propagate(x)

    def _check(self) -> None:
        """Decide the split sets that were opened or changed, and what depends on them."""
        while self._todo:
            x = self._todo.pop()
            if not x.done and self._alive(x) and self._settle_set(x):
                self._propagate(x)

    # ---------------------------------------------------------------- running
    def _next(self) -> _Set | None:
        """The leaf to start: of the first :data:`SCAN` ready in the search's order, the
        one that runs least ahead of it (:meth:`_ahead`: the first leaves of other
        candidates before more leaves of one); candidates are opened on the way, and sets
        split until a leaf is found (not ahead of it)."""
        seen: list[_Set] = []
        best, least = None, UNBOUNDED
        while len(seen) < SCAN:
            self._check()
            if not self._heap:
                break
            _, _, item = self._heap[0]
            if seen and isinstance(item, _Set) and len(item.codes) >= self.split:
                break  # a leaf is at hand: no set is split ahead of it
            heapq.heappop(self._heap)
            item.queued = False
            if isinstance(item, _Cand):
                if item.state == _OPEN and not item.opened and self._alive(item.set):
                    if item.score >= self._cand_bound(item):
                        item.state = _DROPPED
                        self._todo.append(item.set)
                    else:
                        self._open(item)
                continue
            x = item
            if x.done or x.running or not self._alive(x):
                continue
            bound = self._budget(x)
            if x.value >= bound:  # known already to reach its bound
                x.lower = max(x.lower, x.value)
                x.done = True
                self._propagate(x)
                continue
            big = len(x.codes) >= self.split and x.depth < self.max_depth
            if (big or x.up is None) and x.cands is None:
                self._expand(x)
                continue
            if self._reuse(x, bound):
                continue
            seen.append(x)
            ahead = self._ahead(x)
            if ahead < least:
                best, least = x, ahead
            if ahead == 0:
                break
        for x in seen:
            if x is not best:
                self._push(x, x.key)
        return best

    def _ahead(self, x: _Set) -> int:
        """How far leaf ``x`` runs ahead of the search's order: the lower bounds of the
        parts before it (and before its sets above) not yet searched, whose costs its
        bound would have counted had they been searched first (0 under unbounded
        candidates: their parts are all searched whatever comes first)."""
        ahead = 0
        while x.up is not None:
            c = x.up
            if self._cand_bound(c) >= UNBOUNDED:
                break
            for p in c.parts:
                if p is x:
                    break
                if p.cost < 0 and not p.done:
                    ahead += p.lower
            x = c.set
        return ahead

    def _reuse(self, x: _Set, bound: int) -> bool:
        """Answer leaf ``x`` from the results file when it holds enough."""
        if self.results is None:
            return False
        hit = self.results.get(x.codes)
        if hit is None:
            return False
        cost, exact, guesses = hit
        if not exact and cost < bound:
            return False
        if exact and guesses is not None:
            if not self.solver.plant(x.codes, np.asarray(guesses, dtype=np.int64), cost):
                return False  # not a subtree of this set: search it again
        self.stats.reused += 1
        self._answer(x, Outcome(cost, exact))
        return True

    def _tell_running(self) -> None:
        """Stop the leaves no longer needed; tell those whose bound dropped."""
        for x in list(self._running):
            if not self._alive(x):
                x.dead = True
                self.runner.tell(x)
                continue
            bound = self._budget(x)
            if bound < x.bound:
                x.bound = bound
                self.runner.tell(x)

    def _start_free(self) -> None:
        """Start the leaves ready in the search's order on the free places."""
        while self._places < self.runner.slots:  # a cluster may gain workers
            self._free.insert(0, self._places)
            self._places += 1
        while self._free:
            x = self._next()
            if x is None:
                return
            x.running, x.dead = True, False
            self._running.add(x)
            x.place = self._free.pop()
            if x.up is not None:
                x.up.running += 1
            self.runner.start(x, self._budget(x), x.place)

    def _take(self, x: _Set, out: Any) -> None:
        """Take what leaf ``x`` ended with: its :class:`Outcome`, None when it was stopped
        (no longer needed), or the exception its search raised (raised here)."""
        self._running.discard(x)
        self._free.append(x.place)
        x.running = False
        if x.up is not None:
            x.up.running -= 1
        if isinstance(out, BaseException):
            raise out
        if out is None:
            return
        self.stats.leaves += 1
        self.stats.nodes += out.nodes
        self.stats.seconds += out.seconds
        if self.results is not None:
            self.results.add(x.codes, out)
        if not x.done and self._alive(x):
            self._answer(x, out)

    def _after(self) -> None:
        """After leaves ended: decide what they decide and tell the running leaves."""
        self._check()
        self._tell_running()
        self._tell_improved()

    def _make_room(self, runner: Threads) -> None:
        """Give the memo the threads share room when full, their searches paused."""
        if self.full is not None and self.make_room is not None and self.full():
            runner.pause()
            try:
                self.make_room()
            finally:
                runner.resume()

    def _stuck(self) -> bool:
        """Whether nothing runs and the root is not decided (a bug)."""
        return not self._running and not self._root_done()

    def _root_done(self) -> bool:
        return self._root is not None and self._root.done

    def _wait(self) -> float:
        """How long to wait for leaves before looking at the deadline again;
        :class:`TimeoutError` past it."""
        now = time.monotonic()
        if self.deadline is not None and now > self.deadline:
            raise TimeoutError
        return 1.0 if self.deadline is None else max(0.0, min(1.0, self.deadline - now))

    def _report(self) -> None:
        """Call ``report`` when ``every`` seconds passed since the last time."""
        if self.report is not None and time.monotonic() - self._reported >= self.every:
            self._reported = time.monotonic()
            self._root_progress()
            self.report(self.stats)

    def run(self, codes: np.ndarray, palette: Palette, bound: int) -> int:
        """The cost of ``codes`` when below ``bound``, else a lower bound of at least
        ``bound`` (as the compiled search answers); the memo then holds the choices."""
        self._root_bound = bound
        root = self._root = _Set(codes, palette, None, ())
        root.cost, root.lower = self._known(codes)
        if root.cost >= 0:
            return root.cost
        if root.lower >= bound:
            return root.lower
        self._push(root, root.key)
        self._reported = time.monotonic()
        try:
            if isinstance(self.runner, Threads):
                self._take_turns(self.runner)
            else:
                self._coordinate(self.runner)
        finally:
            self._root_progress()
            for x in self._running:
                x.dead = True
                self.runner.tell(x)
        return root.value

    def _coordinate(self, runner: Runner) -> None:
        """The coordinator's loop: start leaves, wait for some to end, take them."""
        while True:
            self._start_free()
            if self._root_done():
                return
            if self._stuck():
                raise RuntimeError("spread search: nothing to run and nothing decided")
            for x, out in runner.wait(self._wait()):
                self._take(x, out)
            self._after()
            self._report()

    def _take_turns(self, runner: Threads) -> None:
        """The coordinator's turn taken by each leaf's thread as its leaf ends (one at a
        time): it takes the outcome and starts the next leaf itself, which it then runs,
        with no other thread to wake. This thread starts the first leaves, then looks at
        the deadline and reports until the root is decided."""
        turn = threading.Lock()
        over = threading.Event()
        failed: list[BaseException] = []

        def on_done(x: _Set, out: Any) -> None:
            with turn:
                if over.is_set():
                    return
                try:
                    self._take(x, out)
                    self._after()
                    self._make_room(runner)
                    self._start_free()
                    self._report()
                except BaseException as e:  # noqa: BLE001 - raised in the search's thread
                    failed.append(e)
                if failed or self._root_done() or self._stuck():
                    over.set()

        runner.on_done = on_done
        try:
            with turn:
                self._start_free()
                if self._root_done() or self._stuck():
                    over.set()
            while not over.wait(self._wait()):
                with turn:
                    self._report()
        finally:
            with turn:
                over.set()
        if failed:
            raise failed[0]
        if self._stuck():
            raise RuntimeError("spread search: nothing to run and nothing decided")
