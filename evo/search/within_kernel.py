"""The exact search within a depth limit, compiled: a subtree of least total among those
that solve every code within ``depth`` guesses.

It is :func:`evo.search.exact_kernel.search` with a depth carried down: the same
candidates in the same order, the same pruning and the same rule (the first optimal
candidate), so it chooses what :class:`evo.search.exact.Solver`'s Python recursion with a
depth limit chooses, at compiled speed (a rebuild that keeps a big game's worst case
scores every code of the game at every node). Besides:

* a set of more codes than ``room[depth]`` (the most that ``depth`` guesses can solve,
  see :meth:`~evo.search.exact.Solver.feasible`) has no such subtree
  (:data:`~evo.search.spread.UNBOUNDED`), and a candidate with such a part is skipped;
* within two guesses, the answer is the lowest guess of the set that leaves single codes
  (``2n - 1``), else the lowest other one (``2n``).

Its memo is the solver's (:mod:`evo.search.memo_kernel`): a set searched within ``d``
guesses is kept under its codes, its last code again, then ``d``, a key no code set has
(a set's codes are distinct), so that costs of one limit never answer for another.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evo.core.feedback_kernel import feedback
from evo.search.exact_kernel import _below, _candidates, next_split, opening, scratch
from evo.search.memo_kernel import (
    MOST,
    MOST_64,
    NO_GUESS,
    STATUS,
    ZERO,
    lookup,
    store,
    within_key,
)

#: What a set with no subtree within its limit costs (:data:`evo.search.spread.UNBOUNDED`).
NONE = np.int64(1) << np.int64(60)


#: A node three guesses from its limit whose parts' two-guess searches read every code of
#: the game more than this many times first tabulates the feedbacks of every code against
#: its own (when that table takes at most :data:`TABLE_BYTES`).
TABLE_AFTER = 4
TABLE_BYTES = 1 << 26


@njit(cache=True)
def two_guesses(codes, game, table, cols):  # pragma: no cover - compiled
    """``(cost, guess)`` within two guesses: the lowest code of the set whose other parts
    are single codes (``2n - 1``), else the lowest candidate of the pool that leaves single
    codes (``2n``); ``(NONE, -1)`` when none does. The feedbacks are read from
    ``table[guess, cols[j]]`` when it has columns (:func:`_feedbacks`), else computed."""
    rows, every, nf, consistent, impossible = game[0], game[2], game[6], game[7], game[8]
    n = len(codes)
    tabled = table.shape[1] > 0
    seen = np.zeros(nf, dtype=np.bool_)
    for outside in range(2):
        cands = codes if outside == 0 else every
        if outside == 1 and consistent and impossible == 0:
            break
        for i in range(len(cands)):
            g = cands[i]
            seen[:] = False
            ok = True
            win = False
            for j in range(n):
                f = table[g, cols[j]] if tabled else feedback(rows, g, codes[j])
                if f == 0:
                    win = True
                elif seen[f]:
                    ok = False
                    break
                else:
                    seen[f] = True
            if ok and (win or outside == 1):
                return np.int64(2 * n - 1 + outside), np.int64(g)
    return NONE, np.int64(-1)


@njit(cache=True)
def _feedbacks(rows, every, codes):  # pragma: no cover - compiled
    """The feedback of every guess of ``every`` (ascending; a row each, by guess) against
    each of ``codes``."""
    table = np.empty((every[-1] + 1 if len(every) else 0, len(codes)), dtype=np.uint8)
    for i in range(len(every)):
        for j in range(len(codes)):
            table[every[i], j] = feedback(rows, every[i], codes[j])
    return table


@njit(cache=True)
def _within_two(codes, memo, game, table, cols):  # pragma: no cover - compiled
    """:func:`two_guesses` through the memo (kept: a part recurs under many guesses);
    ``(cost, searched)``, cost 0 when the memo is full (``meta[STATUS]``)."""
    key = within_key(codes, 2)
    known, guess, lower = lookup(memo, key)
    if guess >= 0:
        return known, False
    if lower >= MOST:
        return NONE, False
    cost, guess = two_guesses(codes, game, table, cols)
    if not store(memo, key, cost, guess, MOST_64):
        return np.int64(0), True
    return cost, True


@njit(cache=True, nogil=True)
def search_within(codes, bound, depth, room, memo, game, palette, symmetry):  # pragma: no cover
    """``cost(codes)`` (sorted) among subtrees that solve every code within ``depth``
    guesses when it is below ``bound``, else a lower bound ``>= bound`` (:data:`NONE` when
    no subtree fits); ``room[d]``: the most codes ``d`` guesses can solve. ``memo``,
    ``game``, ``palette`` and ``symmetry`` as :func:`evo.search.exact_kernel.search` takes
    them, and it stops early as that one does (``meta[STATUS]``)."""
    n = len(codes)
    if n > room[depth]:
        return NONE
    if n <= 2:
        return np.int64(2 * n - 1)
    meta = memo[4]
    if depth <= 2:
        return _within_two(codes, memo, game, np.empty((0, 0), np.uint8), codes)[0]
    key = within_key(codes, depth)
    known, guess, lower = lookup(memo, key)
    if guess >= 0:
        return known
    if lower >= MOST:
        return NONE
    lb, nf = game[5], game[6]
    rows = game[0]
    low, go = opening(n, bound, lower, lb, meta)
    if not go:
        return low
    cands, kept, bounds, biggest, least = _candidates(codes, bound, low, game, palette)
    best = bound
    best_g = np.int64(-1)
    tried, tried_h, starts, lens, lows = scratch(len(kept), n, nf)
    work = (tried_h, starts, lens, lows)
    # Within depth guesses the parts are bounded by the memo only (no fewer_parts raise).
    limits = (depth - 1, room[depth - 1], 0)
    scored = (cands, kept, bounds, biggest)
    ntried = 0
    # Three guesses from the limit, the parts' two-guess searches read every code of the
    # game for each part (to prove that none splits it): after a few, from a table.
    every = game[2]
    scans = depth == 3 and not (game[7] and game[8] == 0)
    scans = scans and len(every) * n <= TABLE_BYTES
    table = np.empty((0, 0), dtype=np.uint8)
    twos = 0
    q = 0
    # Parts of one or two codes (within two guesses: depth is at least 3 here) cost
    # exactly their bound (next_split).
    while q >= 0:
        q, g, best, best_g, grouped, total, rest, m, tried, ntried = next_split(
            q, codes, scored, best, best_g, game, memo, memo, limits, work, tried, ntried
        )
        done = q >= 0  # else no candidate is left to search (and m is 0)
        below = _below(palette, g) if symmetry and done else palette
        for p in range(m):
            rest -= lows[p]
            part = grouped[starts[p] : starts[p] + lens[p]]
            if depth == 3:
                if scans and table.shape[1] == 0 and twos >= TABLE_AFTER:
                    table = _feedbacks(rows, every, codes)
                cols = np.searchsorted(codes, part) if table.shape[1] > 0 else part
                cost, searched = _within_two(part, memo, game, table, cols)
                twos += searched
                total += cost
            else:
                total += search_within(
                    part, best - total - rest, depth - 1, room, memo, game, below, symmetry
                )
            if meta[STATUS] != 0:
                return np.int64(0)
            if total + rest >= best:
                done = False
                break
        if done:
            best, best_g = total, g
    if best_g >= 0:
        if not store(memo, key, best, best_g, ZERO):
            return np.int64(0)
        return best
    low = max(low, bound, least)
    if not store(memo, key, ZERO, NO_GUESS, low):
        return np.int64(0)
    return low
