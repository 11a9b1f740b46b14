"""Compiled one-step look-ahead: the best candidate guess of a code set in one call.

It counts each candidate's parts over the code set and keeps the best by the heuristic's
score (:func:`evo.search.lookahead.score`, the same numbers bit for bit), a consistent
guess first on ties, then the lowest code. Feedbacks come from a source
(:mod:`evo.core.feedback_kernel`): the game's table, or computed where no table fits.
``cache=True`` keeps the machine code on disk: compiling happens once per machine.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from evo.core.feedback_kernel import feedback

#: Heuristic numbers of :func:`best_guess`, in the order of evo.core.kinds.HEURISTICS.
KNUTH, IRVING, KOOI, ENTROPY = 0, 1, 2, 3

#: From this many codes a candidate's parts are counted from its own table row.
_ROW_READS = 128


@njit(cache=True)
def _pairwise_sum(a):  # pragma: no cover - compiled
    """NumPy's summation order for a short row (8 partial sums), so that the floats are
    NumPy's to the last bit."""
    n = len(a)
    if n < 8:
        res = 0.0
        for i in range(n):
            res += a[i]
        return res
    r0, r1, r2, r3, r4, r5, r6, r7 = a[0], a[1], a[2], a[3], a[4], a[5], a[6], a[7]
    i = 8
    while i < n - (n % 8):
        r0 += a[i]
        r1 += a[i + 1]
        r2 += a[i + 2]
        r3 += a[i + 3]
        r4 += a[i + 4]
        r5 += a[i + 5]
        r6 += a[i + 6]
        r7 += a[i + 7]
        i += 8
    res = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < n:
        res += a[i]
        i += 1
    return res


@njit(cache=True)
def perfect_guess(src, codes, win):  # pragma: no cover - compiled
    """The lowest code of ``codes`` (ascending) that leaves every other code alone in its
    part, or -1 (evo.search.partition.perfect_consistent)."""
    n = len(codes)
    seen = np.zeros(256, dtype=np.bool_)
    for i in range(n):
        c = codes[i]
        ok = True
        for j in range(n):
            f = feedback(src, c, codes[j])
            if seen[f]:
                ok = False
                break
            seen[f] = True
        for j in range(n):
            seen[feedback(src, c, codes[j])] = False
        if ok:
            return c
    return -1


@njit(cache=True)
def _score(counts, heuristic, nfb, nlogn, row, sizes):  # pragma: no cover - compiled
    """The heuristic's score of one candidate's part sizes ``counts`` (lower is better),
    as evo.search.lookahead.score computes it; ``row`` and ``sizes`` are scratch."""
    parts = 0
    for f in range(nfb):
        if counts[f] > 0:
            parts += 1
    if heuristic == KNUTH:
        s = 0.0
        for f in range(nfb):
            s = max(s, float(counts[f]))
    elif heuristic == IRVING:
        s = 0.0
        for f in range(nfb):
            s += float(counts[f] * counts[f])
    elif heuristic == KOOI:
        s = -float(parts)
    else:
        # The row as np.sort(counts) gives it: zeros first, then parts ascending.
        z = nfb - parts
        for f in range(z):
            row[f] = 0.0
        p = 0
        for f in range(nfb):
            c = counts[f]
            if c > 0:
                q = p  # insertion sort of the (few) part sizes
                while q > 0 and sizes[q - 1] > c:
                    sizes[q] = sizes[q - 1]
                    q -= 1
                sizes[q] = c
                p += 1
        for f in range(parts):
            row[z + f] = nlogn[sizes[f]]
        s = np.rint(_pairwise_sum(row) * 1e9) / 1e9
    return s


@njit(cache=True)
def _helps(counts, win, nfb):  # pragma: no cover - compiled
    """Whether a candidate with these part sizes helps: it may win, or it splits the set."""
    if counts[win] > 0:
        return True
    parts = 0
    for f in range(nfb):
        if counts[f] > 0:
            parts += 1
    return parts >= 2


@njit(cache=True)
def _count_block(src, codes, cands, lo, nb, counts, bound):  # pragma: no cover - compiled
    """Part sizes of candidates ``cands[lo:lo+nb]`` over ``codes`` into ``counts[:nb]``.

    Small sets are counted for the block at once, reading the table by code rows (it is
    symmetric): each row is read in order instead of a scattered read per pair. From
    ``_ROW_READS`` codes on, each candidate's own row is read (it stays cached), and with
    a ``bound`` (Knuth's score: the largest part) a candidate is dropped as soon as one
    part exceeds it (``counts[b, 0] = -1``): it cannot be the best. Returns that bound,
    lowered by each whole candidate counted."""
    n = len(codes)
    nfb = counts.shape[1]
    counts[:nb, :] = 0
    if n >= _ROW_READS:
        for b in range(nb):
            g = cands[lo + b]
            for j in range(n):
                f = feedback(src, g, codes[j])
                counts[b, f] += 1
                if counts[b, f] > bound:
                    counts[b, 0] = -1
                    break
            if counts[b, 0] >= 0 and bound <= n:
                top = 0
                for f in range(nfb):
                    top = max(top, counts[b, f])
                bound = min(bound, top)
    else:
        for j in range(n):
            r = codes[j]
            for b in range(nb):
                counts[b, feedback(src, r, cands[lo + b])] += 1
    return bound


#: Candidates counted together by :func:`_count_block`.
_BLOCK = 64


@njit(cache=True)
def best_guess(src, codes, cands, heuristic, win, nfb, nlogn):  # pragma: no cover
    """The best helpful candidate of ``cands`` (ascending) on ``codes``, or -1 when none
    helps. ``nlogn[c]``: ``c log c`` as NumPy computes it (the entropy score)."""
    k = len(cands)
    counts = np.zeros((_BLOCK, nfb), dtype=np.int64)
    row = np.empty(nfb, dtype=np.float64)
    sizes = np.empty(nfb, dtype=np.int64)
    best = -1
    best_score = np.inf
    best_cons = False
    bound = len(codes) if heuristic == KNUTH else len(codes) + 1
    for lo in range(0, k, _BLOCK):
        nb = min(_BLOCK, k - lo)
        bound = _count_block(src, codes, cands, lo, nb, counts, bound)
        for b in range(nb):
            if counts[b, 0] < 0 or not _helps(counts[b], win, nfb):
                continue
            s = _score(counts[b], heuristic, nfb, nlogn, row, sizes)
            cons = counts[b, win] > 0
            if s < best_score or (s == best_score and cons and not best_cons):
                best, best_score, best_cons = cands[lo + b], s, cons
    return best


@njit(cache=True, parallel=True)
def best_guess_threads(src, codes, cands, heuristic, win, nfb, nlogn):  # pragma: no cover
    """:func:`best_guess` with blocks of candidates scored on numba's threads (each
    candidate's score computed as there, the best kept in the same order: the same guess).
    For Knuth the first block is counted first: its best largest part bounds every other
    block from the start (a candidate dropped by it cannot be the best)."""
    n = len(codes)
    k = len(cands)
    score = np.empty(k, dtype=np.float64)
    cons = np.empty(k, dtype=np.bool_)
    helps = np.empty(k, dtype=np.bool_)
    nblocks = (k + _BLOCK - 1) // _BLOCK
    first = np.empty((_BLOCK, nfb), dtype=np.int64)
    bound = _count_block(
        src, codes, cands, 0, min(_BLOCK, k), first, n if heuristic == KNUTH else n + 1
    )
    for i in prange(nblocks):
        row = np.empty(nfb, dtype=np.float64)
        sizes = np.empty(nfb, dtype=np.int64)
        lo = i * _BLOCK
        nb = min(_BLOCK, k - lo)
        if i == 0:
            counts = first
        else:
            counts = np.empty((_BLOCK, nfb), dtype=np.int64)
            _count_block(src, codes, cands, lo, nb, counts, bound)
        for b in range(nb):
            helps[lo + b] = counts[b, 0] >= 0 and _helps(counts[b], win, nfb)
            cons[lo + b] = counts[b, win] > 0
            if helps[lo + b]:
                score[lo + b] = _score(counts[b], heuristic, nfb, nlogn, row, sizes)
            else:
                score[lo + b] = np.inf
    best = -1
    best_score = np.inf
    best_cons = False
    for i in range(k):
        if not helps[i]:
            continue
        s = score[i]
        if s < best_score or (s == best_score and cons[i] and not best_cons):
            best, best_score, best_cons = cands[i], s, cons[i]
    return best


@njit(cache=True)
def lookahead_tree(
    src, m, codes, root_cands, heuristic, consistent, win, nfb, nlogn
):  # pragma: no cover - compiled
    """The whole tree of the one-step player on ``codes`` (ascending), as the preorder
    arrays ``guess, label, parent, depth, terminal, start, count`` and the codes in
    evo.core.tree.Tree's order. Node by node it chooses what evo.search.lookahead's player
    chooses: one code: it; two: the lower; a perfect consistent guess; else the best
    candidate (``root_cands`` at the root: one per symmetry orbit, the same choice)."""
    n = len(codes)
    every = np.arange(m, dtype=np.int64)
    order = codes.copy()
    tmp = np.empty(n, dtype=np.int64)
    cap = 2 * n + 2
    guess = np.empty(cap, dtype=np.int32)
    label = np.empty(cap, dtype=np.int32)
    parent = np.empty(cap, dtype=np.int32)
    depth = np.empty(cap, dtype=np.int32)
    term = np.empty(cap, dtype=np.bool_)
    start = np.empty(cap, dtype=np.int32)
    count = np.empty(cap, dtype=np.int32)
    hist = np.zeros(nfb, dtype=np.int64)
    offs = np.zeros(nfb, dtype=np.int64)
    # Stack of (start, count, parent, label, depth).
    st = np.empty((cap, 5), dtype=np.int64)
    top = 0
    st[0, 0], st[0, 1], st[0, 2], st[0, 3], st[0, 4] = 0, n, -1, -1, 1
    top = 1
    nodes = 0
    while top > 0:
        top -= 1
        s, c, par, lab, d = st[top, 0], st[top, 1], st[top, 2], st[top, 3], st[top, 4]
        seg = order[s : s + c]
        if c <= 2:
            g = seg[0]
        else:
            g = -1
            if c <= nfb:
                g = perfect_guess(src, seg, win)
            if g < 0:
                if par < 0:
                    cands = root_cands
                elif consistent:
                    cands = seg.copy()
                else:
                    cands = every
                g = best_guess(src, seg, cands, heuristic, win, nfb, nlogn)
        me = nodes
        nodes += 1
        guess[me] = g
        label[me] = lab
        parent[me] = par
        depth[me] = d
        start[me] = s
        count[me] = c
        for f in range(nfb):
            hist[f] = 0
        for j in range(c):
            hist[feedback(src, g, seg[j])] += 1
        term[me] = hist[win] > 0
        acc = 0
        for f in range(nfb):
            offs[f] = acc
            acc += hist[f]
        for j in range(c):
            f = feedback(src, g, seg[j])
            tmp[offs[f]] = seg[j]
            offs[f] += 1
        for j in range(c):
            seg[j] = tmp[j]
        # Children in feedback order: push the last first.
        for f in range(nfb - 1, -1, -1):
            if f != win and hist[f] > 0:
                st[top, 0] = s + offs[f] - hist[f]
                st[top, 1] = hist[f]
                st[top, 2] = me
                st[top, 3] = f
                st[top, 4] = d + 1
                top += 1
    return (
        guess[:nodes].copy(),
        label[:nodes].copy(),
        parent[:nodes].copy(),
        depth[:nodes].copy(),
        term[:nodes].copy(),
        start[:nodes].copy(),
        count[:nodes].copy(),
        order,
    )
