"""A compiled memo of code sets for the exact search: per sorted code set, its exact cost
and guess, or the best lower bound a failed search proved.

An open-addressing hash table over NumPy arrays, so that the compiled recursion reads and
writes it without returning to Python. The memo is the tuple ``(slots, hashes, entries,
arena, meta)``: ``slots`` the table (entry index or -1), ``hashes`` each slot's hash,
``entries`` one row ``(offset, size, cost, guess, lower)`` per set (``guess`` -1 when only
the lower bound is known), ``arena`` the sets' codes end to end, ``meta`` the counters
below. Sets are compared code by code on a hash match: a collision costs time, never a
wrong answer.
"""

from __future__ import annotations

import numpy as np
from numba import njit

# Columns of ``entries``.
OFFSET, SIZE, COST, GUESS, LOWER = range(5)
# Cells of ``meta``.
ENTRIES, USED, STATUS, NODES, BUDGET, LIMIT = range(6)
#: ``meta[STATUS]`` after a search that stopped early: the memo is full (grow it and search
#: again), or the search used its budget of nodes (look at the clock, then again).
FULL, OUT_OF_BUDGET = 1, 2


def new_memo(entries: int = 1 << 12, *, limit: int | None = None) -> tuple:
    """An empty memo with room for ``entries`` sets; ``limit``: entries kept before the
    memo is emptied (None: it grows instead)."""
    slots = np.full(4 * entries, -1, dtype=np.int64)
    meta = np.zeros(6, dtype=np.int64)
    meta[LIMIT] = 0 if limit is None else max(limit, 1)
    return (
        slots,
        np.zeros(4 * entries, dtype=np.uint64),
        np.zeros((entries, 5), dtype=np.int64),
        np.zeros(16 * entries, dtype=np.int32),
        meta,
    )


def grown(memo: tuple) -> tuple:
    """The same sets in a memo twice as large."""
    slots, _, entries, arena, meta = memo
    m, used = int(meta[ENTRIES]), int(meta[USED])
    bigger = new_memo(2 * len(entries))
    _, _, e2, a2, meta2 = bigger
    e2[:m] = entries[:m]
    a2[:used] = arena[:used]
    meta2[:] = meta
    _rehash(bigger)
    return bigger


@njit(cache=True)
def set_hash(codes):  # pragma: no cover - compiled
    """A 64-bit hash of a sorted code set."""
    h = np.uint64(14695981039346656037)
    for j in range(len(codes)):
        h ^= np.uint64(codes[j])
        h *= np.uint64(1099511628211)
    h ^= h >> np.uint64(32)
    h *= np.uint64(0xFF51AFD7ED558CCD)
    h ^= h >> np.uint64(33)
    return h


@njit(cache=True)
def find(memo, codes, h):  # pragma: no cover - compiled
    """The entry of ``codes`` (hash ``h``), or ``-1 - slot`` of the free slot it would take."""
    slots, hashes, entries, arena, _ = memo
    mask = len(slots) - 1
    i = np.int64(h & np.uint64(mask))
    n = len(codes)
    while True:
        e = slots[i]
        if e < 0:
            return -1 - i
        if hashes[i] == h and entries[e, SIZE] == n:
            off = entries[e, OFFSET]
            same = True
            for j in range(n):
                if arena[off + j] != codes[j]:
                    same = False
                    break
            if same:
                return e
        i = (i + 1) & mask


@njit(cache=True)
def store(memo, codes, cost, guess, lower):  # pragma: no cover - compiled
    """Record ``codes``' exact ``cost`` and ``guess`` (guess >= 0) or its ``lower`` bound;
    False (and ``meta[STATUS]`` FULL) when the memo has no room: grow it."""
    slots, hashes, entries, arena, meta = memo
    h = set_hash(codes)
    r = find(memo, codes, h)
    if r < 0:
        n = len(codes)
        if meta[LIMIT] > 0 and meta[ENTRIES] >= meta[LIMIT]:
            clear(memo)
            r = find(memo, codes, h)
        m = meta[ENTRIES]
        if m >= len(entries) or meta[USED] + n > len(arena) or 2 * (m + 1) > len(slots):
            meta[STATUS] = FULL
            return False
        off = meta[USED]
        for j in range(n):
            arena[off + j] = codes[j]
        entries[m, OFFSET], entries[m, SIZE], entries[m, GUESS] = off, n, -1
        entries[m, COST], entries[m, LOWER] = 0, 0
        slots[-1 - r] = m
        hashes[-1 - r] = h
        meta[ENTRIES] = m + 1
        meta[USED] = off + n
        r = m
    if guess >= 0:
        entries[r, COST], entries[r, GUESS] = cost, guess
    else:
        entries[r, LOWER] = lower
    return True


@njit(cache=True)
def lookup(memo, codes):  # pragma: no cover - compiled
    """``(cost, guess, lower)`` of ``codes``: guess -1 when the cost is not known, lower 0
    when nothing is."""
    e = find(memo, codes, set_hash(codes))
    if e < 0:
        return 0, -1, 0
    _, _, entries, _, _ = memo
    return entries[e, COST], entries[e, GUESS], entries[e, LOWER]


@njit(cache=True)
def merge(memo, other):  # pragma: no cover - compiled
    """Record in ``memo`` what ``other`` knows (its exact costs, else its lower bounds);
    False when the memo has no room: grow it and merge again."""
    _, _, entries, arena, meta = other
    for e in range(meta[ENTRIES]):
        off, n = entries[e, OFFSET], entries[e, SIZE]
        codes = arena[off : off + n]
        if entries[e, GUESS] >= 0:
            ok = store(memo, codes, entries[e, COST], entries[e, GUESS], 0)
        else:
            ok = store(memo, codes, 0, -1, entries[e, LOWER])
        if not ok:
            return False
    return True


@njit(cache=True)
def clear(memo):  # pragma: no cover - compiled
    """Forget every set."""
    slots, _, _, _, meta = memo
    slots[:] = -1
    meta[ENTRIES] = 0
    meta[USED] = 0


@njit(cache=True)
def _rehash(memo):  # pragma: no cover - compiled
    slots, hashes, entries, arena, meta = memo
    mask = len(slots) - 1
    for e in range(meta[ENTRIES]):
        off, n = entries[e, OFFSET], entries[e, SIZE]
        h = set_hash(arena[off : off + n])
        i = np.int64(h & np.uint64(mask))
        while slots[i] >= 0:
            i = (i + 1) & mask
        slots[i] = e
        hashes[i] = h
