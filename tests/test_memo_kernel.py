"""The compiled exact search and its memo: the same trees as the Python recursion, with
and without the history's symmetries; a memo that grows, empties at its cap and never
confuses two sets; a deadline that stops the compiled search without spoiling what it
kept."""

from __future__ import annotations

import threading
import time

import numpy as np
import pytest
from numba import njit
from support.searches import PythonSolver

from evo.core.game import make_game
from evo.search import memo_kernel as mk
from evo.search.exact import SearchTimeout, Solver


def _sets(rng, n_codes, count, lo, hi):
    return [
        np.sort(rng.choice(n_codes, size=int(rng.integers(lo, hi)), replace=False)).astype(np.int64)
        for _ in range(count)
    ]


def test_memo_keeps_many_sets_apart_and_grows_when_full():
    rng = np.random.default_rng(5)
    sets = _sets(rng, 5000, 300, 1, 40)
    memo = mk.new_memo(1)
    costs = {}
    for i, s in enumerate(sets):
        while not mk.store(memo, s, i + 10, i, 0):
            assert memo[4][mk.STATUS] == mk.FULL
            memo[4][mk.STATUS] = 0
            memo = mk.grown(memo)
        costs[s.tobytes()] = (i + 10, i)
    assert len(memo[2]) >= len(costs)  # it grew from room for one set
    for s in sets:
        cost, guess, _ = mk.lookup(memo, s)
        assert (cost, guess) == costs[s.tobytes()]
    # A set it never stored, of a stored set's size, is not found.
    other = sets[0].copy()
    other[-1] = 5000 + 7
    assert mk.lookup(memo, other)[1] == -1


def test_memo_keeps_a_lower_bound_until_the_cost_is_known():
    memo = mk.new_memo(4)
    s = np.array([3, 8, 9], dtype=np.int64)
    mk.store(memo, s, 0, -1, 7)
    assert mk.lookup(memo, s) == (0, -1, 7)
    mk.store(memo, s, 9, 8, 0)
    assert mk.lookup(memo, s)[:2] == (9, 8)


def test_memo_cap_empties_the_memo():
    memo = mk.new_memo(64, limit=10)
    rng = np.random.default_rng(6)
    sets = _sets(rng, 1000, 25, 3, 9)
    for s in sets:
        assert mk.store(memo, s, 1, 0, 0)
    assert memo[4][mk.ENTRIES] <= 10
    assert mk.lookup(memo, sets[-1])[1] == 0  # the last one is kept
    assert mk.lookup(memo, sets[0])[1] == -1  # an early one was forgotten


@pytest.mark.parametrize(
    "pegs, colors, variant, pool, impossible",
    [
        (3, 4, "mastermind", "all", 0),
        (4, 4, "mastermind", "consistent", 0),
        (4, 4, "mastermind", "consistent", 2),
        (3, 6, "bulls-cows", "all", 0),
    ],
)
def test_compiled_search_builds_the_python_recursions_tree(pegs, colors, variant, pool, impossible):
    """The compiled recursion, with the history's symmetries (carried guess by guess) and
    without, and the Python recursion (which a depth limit runs, here one no tree
    reaches) choose the first optimal guess in the search's order: the same trees."""
    g = make_game(pegs, colors, variant)
    codes = g.all_codes()
    options = {"pool": pool, "impossible": impossible}
    free = Solver(g, policy="path-independent", **options)
    sym = Solver(g, policy="symmetry", **options)
    python = PythonSolver(g, policy="symmetry", **options)
    a, b, c = free.subtree(codes), sym.subtree(codes), python.subtree(codes, depth=12)
    assert a.total == b.total == c.total
    for t in (b, c):
        assert np.array_equal(a.guess, t.guess) and np.array_equal(a.parent, t.parent)
    assert 0 < sym.nodes < free.nodes  # the symmetries spare candidates and nodes
    assert python.memo_entries > 0 and python.exact  # the Python recursion's own memo


@pytest.mark.slow
def test_a_deadline_stops_the_compiled_search_and_the_memo_stays_right(monkeypatch):
    """The deadline passes in the middle of the search (of minutes) and stops it: what
    the memo kept is right, and the search goes on from it. One thread, so the search
    starts at once (a spread one first splits in Python, which a loaded machine can
    keep past a short deadline)."""
    from evo.core import engine

    monkeypatch.setattr(engine, "THREADS", 1)
    g = make_game(4, 7)
    solver = Solver(g, policy="path-independent")
    solver.total(g.all_codes()[:40])  # the kernels loaded
    before = solver.nodes
    solver.deadline = time.monotonic() + 2.0
    with pytest.raises(SearchTimeout):
        solver.total(g.all_codes())
    # Milliseconds after the deadline on a quiet machine; a loaded one may keep the
    # stopping thread waiting for a core for seconds.
    assert time.monotonic() < solver.deadline + 30
    assert before < solver.nodes  # the compiled search ran, and was stopped
    small = make_game(4, 4)  # searched again on two threads in the test below
    solver = Solver(small, policy="path-independent", deadline=time.monotonic() - 1)
    with pytest.raises(SearchTimeout):  # a deadline passed already: no search at all
        solver.total(small.all_codes())
    solver.deadline = None
    assert solver.total(small.all_codes()) == 905  # Goddard's optimum of (4,4)


def test_a_big_search_spreads_over_two_threads_with_the_same_tree(monkeypatch):
    """With two threads, a search of at least PARALLEL_CODES codes is spread (its leaves
    searched side by side, each thread in its own memo): the same tree as on one."""
    from evo.core import engine
    from evo.search import exact

    g = make_game(4, 5)
    monkeypatch.setattr(exact, "PARALLEL_CODES", 600)  # 625 codes: above it
    trees, spread = {}, {}
    for count in (1, 2):
        monkeypatch.setattr(engine, "THREADS", count)
        solver = Solver(g, policy="symmetry")
        trees[count] = solver.subtree(g.all_codes())
        spread[count] = getattr(solver, "last_spread", None)
    assert spread[1] is None and spread[2].stats.leaves > 0  # only with two threads
    assert trees[1].total == trees[2].total == 2463
    assert np.array_equal(trees[1].guess, trees[2].guess)
    assert np.array_equal(trees[1].parent, trees[2].parent)


def test_the_watch_thread_stops_the_memos_at_the_deadline():
    """A deadline starts a thread that sets the stop cell of the solver's memos when it
    passes (so the compiled search needs no clock of its own), not before."""
    solver = Solver(make_game(3, 3), policy="path-independent")
    solver.deadline = deadline = time.monotonic() + 0.5
    solver._watch()
    while True:  # the cell read before the clock: a stop seen early is seen before it
        stopped = solver.memo[4][mk.STOP] == 1
        now = time.monotonic()
        if stopped or now > deadline + 30:  # a loaded machine may delay it by seconds
            break
        time.sleep(0.01)
    assert stopped and now >= deadline


def test_a_past_deadline_stops_the_threads_too(monkeypatch):
    from evo.core import engine
    from evo.search import exact

    monkeypatch.setattr(exact, "PARALLEL_CODES", 200)  # (4,4)'s 256 codes: spread
    monkeypatch.setattr(engine, "THREADS", 2)
    g = make_game(4, 4)
    solver = Solver(g, policy="path-independent", deadline=time.monotonic() - 1)
    with pytest.raises(SearchTimeout):
        solver.total(g.all_codes())
    solver.deadline = None
    assert solver.total(g.all_codes()) == 905
    assert solver.last_spread is not None  # the search ran on the threads


@njit(nogil=True)
def _publish_all(memo, flat, ends, first, step):  # pragma: no cover - compiled
    """Publish sets ``first``, ``first + step``, ... (``flat[ends[i-1]:ends[i]]``), each
    with cost ``i + 10`` and guess ``i``, then again as a lower bound of ``i``."""
    start = 0
    for i in range(len(ends)):
        if i % step == first:
            # Plain int64s, as the search passes them (a constant is a kind of its own to
            # numba: publish would be compiled again for it, inside the test).
            mk.publish(memo, flat[start : ends[i]], np.int64(0), np.int64(-1), i)
            mk.publish(memo, flat[start : ends[i]], i + 10, i, np.int64(0))
        start = ends[i]


def _flat(sets):
    return np.concatenate(sets), np.cumsum([len(s) for s in sets])


def test_threads_publish_into_one_memo_at_once():
    """Two threads publish overlapping sets into one memo at the same time, without
    locks: every set is found whole, with its own cost and guess, and nothing else is."""
    rng = np.random.default_rng(7)
    sets = _sets(rng, 5000, 20000, 3, 30)
    flat, ends = _flat(sets)
    memo = mk.new_memo(1 << 16)
    memo[4][mk.OPEN] = 1
    _publish_all(memo, flat[:10], ends[:1], 0, 1)  # compiled before the race
    # Thread 0 publishes every set, thread 1 every other one: the same sets at once.
    jobs = [
        threading.Thread(target=_publish_all, args=(memo, flat, ends, f, s))
        for f, s in ((0, 1), (0, 2))
    ]
    for job in jobs:
        job.start()
    for job in jobs:
        job.join()
    assert memo[4][mk.STATUS] == 0
    for i, s in enumerate(sets):
        assert mk.lookup(memo, s)[:2] == (i + 10, i)
    other = sets[0].copy()
    other[-1] = 5000 + 7
    assert mk.lookup(memo, other)[1] == -1


def test_a_full_published_memo_drops_sets_and_settles_with_room():
    """A memo that threads publish into never grows by itself: full, it drops the set
    and says so; settled (no thread writing), it has room and keeps what it had."""
    rng = np.random.default_rng(8)
    sets = _sets(rng, 5000, 400, 3, 30)
    memo = mk.new_memo(64)
    memo[4][mk.OPEN] = 1
    for i, s in enumerate(sets):
        mk.publish(memo, s, i + 10, i, 0)
    assert memo[4][mk.STATUS] == mk.FULL
    assert len(memo[2]) == 64  # it did not grow
    kept = [i for i, s in enumerate(sets) if mk.lookup(memo, s)[1] >= 0]
    assert 0 < len(kept) < len(sets)
    for i in kept:
        assert mk.lookup(memo, sets[i])[:2] == (i + 10, i)
    memo = mk.settle(memo, None)
    assert memo[4][mk.STATUS] == 0 and len(memo[2]) == 128
    for i in kept:
        assert mk.lookup(memo, sets[i])[:2] == (i + 10, i)
    mk.publish(memo, sets[-1], 7, 3, 0)
    assert mk.lookup(memo, sets[-1])[:2] == (7, 3)


def test_gather_into_a_shared_memo_the_threads_left_full():
    """A deadline can stop a spread search while the memo its threads share is full, its
    counters past its arrays (publish counted the sets it dropped): gathering the solver's
    own memo into it then makes room from counters put back, and keeps every set."""
    g = make_game(3, 4)
    solver = Solver(g, policy="path-independent")
    solver.total(g.all_codes())  # the solver's own memo learns sets
    shared = mk.new_memo(64)
    shared[4][mk.OPEN] = 1
    for i, s in enumerate(_sets(np.random.default_rng(9), 5000, 400, 3, 30)):
        mk.publish(shared, s, i + 10, i, 0)
    assert shared[4][mk.ENTRIES] > len(shared[2])  # as a full publish leaves it
    shared[4][mk.OPEN] = 0
    solver._shared = shared
    solver.gather()
    own = solver._memo
    _, _, entries, arena, meta, offsets = own
    gathered = 0
    for e in range(int(meta[mk.ENTRIES])):
        n = int(entries[e, mk.SIZE])
        if n >= 3 and entries[e, mk.GUESS] >= 0:
            codes = arena[offsets[e] : offsets[e] + n].astype(np.int64)
            assert mk.lookup(solver._shared, codes)[:2] == mk.lookup(own, codes)[:2]
            gathered += 1
    assert gathered > 0
