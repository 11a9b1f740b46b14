"""A compiled memo of code sets for the exact search: per sorted code set, its exact cost
and guess, or the best lower bound a failed search proved.

An open-addressing hash table over NumPy arrays, so that the compiled recursion reads and
writes it without returning to Python. The memo is the tuple ``(slots, hashes, entries,
arena, meta, offsets)``: ``slots`` the table (entry index or -1), ``hashes`` the high half
of each slot's set hash, ``entries`` one row ``(size, cost, guess, lower)`` per set
(``guess`` -1 when only the lower bound is known), ``arena`` the sets' codes end to end
(2 bytes a code in games of at most 65536 codes), ``meta`` the counters below, ``offsets``
where each set's codes start in the arena. Sets are compared code by code on a hash
match: a collision costs time, never a wrong answer. A set takes about 88 bytes of room
besides its codes.

A memo either grows when full (the search returns to Python, which doubles it) or, once
its owner's memory budget is reached, is *fixed*: it then keeps, in place, the entries of
its largest sets (the costliest to search again) and forgets the others, so that it never
takes more memory than it was given.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evo.search.atomics import acquire, compare_swap, fetch_add, release

# Columns of ``entries``.
SIZE, COST, GUESS, LOWER = range(4)
# Cells of ``meta``: ``STOP`` is set by another thread to stop the search at its next node
# (see STOPPED); ``FIXED``: the memo may not grow, and makes room in place when full;
# ``KEPT``: how many times it did; ``OPEN``: threads write it at once (:func:`publish`).
ENTRIES, USED, STATUS, NODES, BUDGET, LIMIT, STOP, FIXED, KEPT, OPEN = range(10)
#: ``meta[STATUS]`` after a search that stopped early: the memo is full (grow it and search
#: again), the search used its budget of nodes (look at the clock, then again), or another
#: thread asked it to stop (``meta[STOP]``; then again, maybe with another bound).
FULL, OUT_OF_BUDGET, STOPPED = 1, 2, 3

#: The largest value a cost or lower bound cell keeps (a lower bound beyond is kept as
#: this: still a lower bound).
MOST = (1 << 31) - 1

#: A cost or lower bound of 0, no guess, and MOST as int64 values: what the kernels pass
#: to :func:`store` instead of literals, so that numba compiles one version of it (and of
#: what calls it) rather than one per literal (ten, once).
ZERO, NO_GUESS, MOST_64 = np.int64(0), np.int64(-1), np.int64(MOST)


def new_memo(entries: int = 1 << 12, *, limit: int | None = None, wide: bool = False) -> tuple:
    """An empty memo with room for ``entries`` sets; ``limit``: entries kept before the
    memo is emptied (None: it grows instead); ``wide``: codes beyond 65535 (4 bytes a
    code in the arena, else 2)."""
    meta = np.zeros(10, dtype=np.int64)
    meta[LIMIT] = 0 if limit is None else max(limit, 1)
    return (
        np.full(4 * entries, -1, dtype=np.int32),
        np.zeros(4 * entries, dtype=np.uint32),
        np.zeros((entries, 4), dtype=np.int32),
        np.zeros(16 * entries, dtype=np.int32 if wide else np.uint16),
        meta,
        np.zeros(entries, dtype=np.int64),
    )


def nbytes(memo: tuple) -> int:
    """Bytes the memo's arrays take."""
    return sum(a.nbytes for a in memo)


def make_room(memo: tuple, cap: int | None) -> tuple:
    """A memo with room after ``store`` found this one full: twice as large when the copy
    (the two side by side) fits in ``cap`` bytes (None: no cap), else this one, fixed (it
    keeps its largest sets in place when full, :func:`keep_largest`). A fixed memo full
    again (a set longer than half its arena) grows whatever the cap."""
    if cap is None or 3 * nbytes(memo) <= cap or memo[4][FIXED]:
        return grown(memo)
    memo[4][FIXED] = 1
    return memo


def grown(memo: tuple) -> tuple:
    """The same sets in a memo twice as large."""
    _, _, entries, arena, meta, offsets = memo
    m, used = int(meta[ENTRIES]), int(meta[USED])
    bigger = new_memo(2 * len(entries), wide=arena.dtype == np.int32)
    _, _, e2, a2, meta2, o2 = bigger
    e2[:m] = entries[:m]
    o2[:m] = offsets[:m]
    a2[:used] = arena[:used]
    meta2[:] = meta
    meta2[FIXED] = 0
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
    slots = memo[0]
    mask = len(slots) - 1
    i = np.int64(h & np.uint64(mask))
    high = np.uint32(h >> np.uint64(32))
    while True:
        e = slots[i]
        if e < 0:
            return -1 - i
        if _holds(memo, i, e, codes, high):
            return np.int64(e)
        i = (i + 1) & mask


@njit(cache=True, inline="always")
def _holds(memo, i, e, codes, high):  # pragma: no cover - compiled
    """Whether slot ``i``, of entry ``e``, holds ``codes`` (``high``: its hash's high half):
    the hashes first, then the sets code by code."""
    hashes, entries, arena, offsets = memo[1], memo[2], memo[3], memo[5]
    n = len(codes)
    if hashes[i] != high or entries[e, SIZE] != n:
        return False
    off = offsets[e]
    for j in range(n):
        if arena[off + j] != codes[j]:
            return False
    return True


@njit(cache=True)
def store(memo, codes, cost, guess, lower):  # pragma: no cover - compiled
    """Record ``codes``' exact ``cost`` and ``guess`` (guess >= 0) or its ``lower`` bound;
    False (and ``meta[STATUS]`` FULL) when the memo has no room: grow it (a fixed memo
    makes room in place instead, :func:`keep_largest`)."""
    slots, hashes, entries, arena, meta, _ = memo
    h = set_hash(codes)
    r = find(memo, codes, h)
    if r < 0:
        n = len(codes)
        if meta[LIMIT] > 0 and meta[ENTRIES] >= meta[LIMIT]:
            clear(memo)
            r = find(memo, codes, h)
        m = meta[ENTRIES]
        if m >= len(entries) or meta[USED] + n > len(arena) or 2 * (m + 1) > len(slots):
            if meta[FIXED] == 0 or 2 * n > len(arena):
                meta[STATUS] = FULL
                return False
            keep_largest(memo)
            r = find(memo, codes, h)
            m = meta[ENTRIES]
        off = meta[USED]
        _fill(memo, m, off, codes)
        slots[-1 - r] = m
        hashes[-1 - r] = np.uint32(h >> np.uint64(32))
        meta[ENTRIES] = m + 1
        meta[USED] = off + n
        r = m
    _record(entries, r, cost, guess, lower)
    return True


@njit(cache=True, inline="always")
def _fill(memo, m, off, codes):  # pragma: no cover - compiled
    """Entry ``m`` made the set ``codes`` (from ``off`` in the arena), nothing known of it."""
    entries, arena, offsets = memo[2], memo[3], memo[5]
    n = len(codes)
    for j in range(n):
        arena[off + j] = codes[j]
    offsets[m] = off
    entries[m, SIZE], entries[m, GUESS] = n, -1
    entries[m, COST], entries[m, LOWER] = 0, 0


@njit(cache=True, inline="always")
def _record(entries, r, cost, guess, lower):  # pragma: no cover - compiled
    """Entry ``r`` learns its exact ``cost`` and ``guess`` (guess >= 0), else a ``lower``
    bound. The cost is written before the guess, so that a thread that reads the guess
    of a shared memo reads the cost with it (:func:`publish`)."""
    if guess >= 0:
        entries[r, COST] = cost
        release()
        entries[r, GUESS] = guess
    else:
        entries[r, LOWER] = max(entries[r, LOWER], min(lower, MOST))


@njit(cache=True, inline="always")
def counted(meta):  # pragma: no cover - compiled
    """Counts a node of a search in its memo's ``meta``; False when the search stops here
    (its budget of nodes spent, or another thread asked), with why in ``meta[STATUS]``."""
    meta[NODES] += 1
    if meta[BUDGET] > 0 and meta[NODES] >= meta[BUDGET]:
        meta[STATUS] = OUT_OF_BUDGET
        return False
    if meta[STOP] != 0:
        meta[STATUS] = STOPPED
        return False
    return True


@njit(cache=True)
def within_key(codes, depth):  # pragma: no cover - compiled
    """The key of ``codes`` searched within ``depth`` guesses: its codes, its last code
    again, then ``depth``, a key no code set has (a set's codes are distinct), so that the
    costs of one limit never answer for another in one memo."""
    n = len(codes)
    key = np.empty(n + 2, dtype=codes.dtype)
    key[:n] = codes
    key[n] = codes[n - 1]
    key[n + 1] = depth
    return key


@njit(cache=True)
def lookup(memo, codes):  # pragma: no cover - compiled
    """``(cost, guess, lower)`` of ``codes``: guess -1 when the cost is not known, lower 0
    when nothing is."""
    e = find(memo, codes, set_hash(codes))
    if e < 0:
        return np.int64(0), np.int64(-1), np.int64(0)
    entries = memo[2]
    return np.int64(entries[e, COST]), np.int64(entries[e, GUESS]), np.int64(entries[e, LOWER])


@njit(cache=True)
def lookup_both(memo, base, codes):  # pragma: no cover - compiled
    """:func:`lookup` in ``memo``, then in ``base`` (a memo read only, shared by threads):
    an exact cost from either, else the higher lower bound."""
    h = set_hash(codes)
    lower = np.int64(0)
    e = find(memo, codes, h)
    if e >= 0:
        entries = memo[2]
        if entries[e, GUESS] >= 0:
            return np.int64(entries[e, COST]), np.int64(entries[e, GUESS]), np.int64(0)
        lower = np.int64(entries[e, LOWER])
    if base[4][ENTRIES] > 0:
        e = find(base, codes, h)
        if e >= 0:
            entries = base[2]
            if entries[e, GUESS] >= 0:
                acquire()  # the cost written before the guess (:func:`publish`)
                return np.int64(entries[e, COST]), np.int64(entries[e, GUESS]), np.int64(0)
            lower = max(lower, np.int64(entries[e, LOWER]))
    return np.int64(0), np.int64(-1), lower


@njit(cache=True, nogil=True)
def publish(memo, codes, cost, guess, lower):  # pragma: no cover - compiled
    """:func:`store` in a memo that threads write at once (``meta[OPEN]``), without locks:
    a set's room is taken by atomic counters, filled, then published by one atomic write
    of its slot, so a thread that reads the memo meanwhile finds the set whole or not at
    all. It never grows nor makes room: when full it drops the set and says so in
    ``meta[STATUS]`` (FULL), for its owner to make room while no thread writes
    (:func:`settle`)."""
    slots, hashes, entries, arena, meta, _ = memo
    h = set_hash(codes)
    mask = len(slots) - 1
    i = np.int64(h & np.uint64(mask))
    high = np.uint32(h >> np.uint64(32))
    n = len(codes)
    mine = np.int64(-1)  # the entry this thread filled, once it did
    while True:
        e = np.int64(slots[i])
        if e < 0:
            if mine < 0:
                m = fetch_add(meta, ENTRIES, 1)
                off = fetch_add(meta, USED, n)
                if m >= len(entries) or off + n > len(arena) or 2 * (m + 1) > len(slots):
                    if m < len(entries):
                        entries[m, SIZE] = 0  # an entry of no set
                    meta[STATUS] = FULL
                    return
                _fill(memo, m, off, codes)
                _record(entries, m, cost, guess, lower)
                mine = m
                release()
            e = np.int64(compare_swap(slots, i, -1, mine))
            if e < 0:
                hashes[i] = high  # until then a reader misses the set: a cost, not an error
                return
        if _holds(memo, i, e, codes, high):
            if mine >= 0:
                entries[mine, SIZE] = 0  # another thread published the set first
            _record(entries, e, cost, guess, lower)
            return
        i = (i + 1) & mask


@njit(cache=True)
def store_both(memo, base, codes, cost, guess, lower):  # pragma: no cover - compiled
    """:func:`store` in ``memo``, and, while threads share ``base`` (``meta[OPEN]``),
    :func:`publish` there too, so that the others find it at once."""
    ok = store(memo, codes, cost, guess, lower)
    if base[4][OPEN] != 0:
        publish(base, codes, cost, guess, lower)
    return ok


def settle(memo: tuple, cap: int | None) -> tuple:
    """A memo that :func:`publish` found full, with room again (threads not writing it):
    its counters put back within its arrays, then grown within ``cap`` bytes or, fixed,
    keeping its largest sets (:func:`make_room`)."""
    entries, arena, meta = memo[2], memo[3], memo[4]
    meta[ENTRIES] = min(int(meta[ENTRIES]), len(entries))
    meta[USED] = min(int(meta[USED]), len(arena))
    meta[STATUS] = 0
    if meta[FIXED]:
        keep_largest(memo)
        return memo
    memo = make_room(memo, cap)
    if memo[4][FIXED]:
        keep_largest(memo)
    return memo


@njit(cache=True)
def merge(memo, other, start, least):  # pragma: no cover - compiled
    """Record in ``memo`` what ``other`` knows (its exact costs, else its lower bounds) of
    its sets of at least ``least`` codes, from its entry ``start`` on; False when the memo
    has no room: grow it and merge again."""
    _, _, entries, arena, meta, offsets = other
    for e in range(start, meta[ENTRIES]):
        off, n = offsets[e], entries[e, SIZE]
        if n < least:
            continue
        codes = arena[off : off + n]
        if entries[e, GUESS] >= 0:
            ok = store(memo, codes, np.int64(entries[e, COST]), np.int64(entries[e, GUESS]), ZERO)
        else:
            ok = store(memo, codes, ZERO, NO_GUESS, np.int64(entries[e, LOWER]))
        if not ok:
            return False
    return True


@njit(cache=True)
def keep_largest(memo):  # pragma: no cover - compiled
    """Make room in place: keep the entries of the largest sets, at most half the entries
    and half the codes the memo has room for (sets of one size all kept or all dropped),
    and forget the others."""
    slots, _, entries, arena, meta, offsets = memo
    m = meta[ENTRIES]
    top = 0
    for e in range(m):
        top = max(top, entries[e, SIZE])
    count = np.zeros(top + 2, dtype=np.int64)
    codes = np.zeros(top + 2, dtype=np.int64)
    for e in range(m):
        count[entries[e, SIZE]] += 1
        codes[entries[e, SIZE]] += entries[e, SIZE]
    # The least size kept: the sets of that size and more fit in half the room.
    least = top + 1
    kept_entries, kept_codes = 0, 0
    while least > 0:
        s = least - 1
        if kept_entries + count[s] > len(entries) // 2:
            break
        if kept_codes + codes[s] > len(arena) // 2:
            break
        kept_entries += count[s]
        kept_codes += codes[s]
        least = s
    j = 0
    used = 0
    for e in range(m):
        n = entries[e, SIZE]
        if n < least:
            continue
        off = offsets[e]
        for i in range(n):  # moves forward only: used <= off
            arena[used + i] = arena[off + i]
        for c in range(4):
            entries[j, c] = entries[e, c]
        offsets[j] = used
        used += n
        j += 1
    meta[ENTRIES] = j
    meta[USED] = used
    meta[KEPT] += 1
    slots[:] = -1
    _rehash(memo)


@njit(cache=True)
def clear(memo):  # pragma: no cover - compiled
    """Forget every set."""
    slots, meta = memo[0], memo[4]
    slots[:] = -1
    meta[ENTRIES] = 0
    meta[USED] = 0


@njit(cache=True)
def _rehash(memo):  # pragma: no cover - compiled
    slots, hashes, entries, arena, meta, offsets = memo
    mask = len(slots) - 1
    for e in range(meta[ENTRIES]):
        off, n = offsets[e], entries[e, SIZE]
        h = set_hash(arena[off : off + n])
        i = np.int64(h & np.uint64(mask))
        while slots[i] >= 0:
            i = (i + 1) & mask
        slots[i] = e
        hashes[i] = np.uint32(h >> np.uint64(32))


def known_sets(memo: tuple, least: int) -> list[tuple[np.ndarray, int, int, int]]:
    """``(codes, cost, guess, lower)`` of each set of at least ``least`` codes the memo
    knows something of (an exact cost, guess >= 0, or a lower bound above 0), its codes
    copied out; the sets of other keys (:func:`within_key`'s) are not told apart here."""
    _, _, entries, arena, meta, offsets = memo
    rows = entries[: int(meta[ENTRIES])]
    known = (rows[:, SIZE] >= max(least, 1)) & ((rows[:, GUESS] >= 0) | (rows[:, LOWER] > 0))
    out = []
    for e in np.flatnonzero(known).tolist():
        size, cost, guess, lower = rows[e].tolist()
        off = int(offsets[e])
        out.append((arena[off : off + size].astype(np.int64), cost, guess, lower))
    return out
