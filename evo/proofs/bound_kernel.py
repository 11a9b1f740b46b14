"""Compiled helper of the lower bounds (:mod:`evo.proofs.bound`): the most parts one guess
splits a code set into.

``P(S)``, the most non-win parts any guess makes of ``S``, bounds the parts of every
guess on every subset of ``S`` too (a guess's parts of a subset are parts of its parts of
``S``), so the perfect-split bound with ``P(S)`` parts in place of the game's ``P`` holds
in the whole subtree below ``S``: a tighter bound where ``S`` is less varied than the
whole game.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evo.core.feedback_kernel import feedback
from evo.search.symmetry_kernel import lowest_of_its_orbit


@njit(cache=True)
def most_parts(cands, codes, src, nf, cap, palette):  # pragma: no cover - compiled
    """The most non-win parts a candidate of ``cands`` splits ``codes`` into, or ``cap``
    as soon as one reaches it. Only the lowest code of each orbit of the symmetries of
    ``palette`` (:func:`evo.search.lookahead.palette`, which fix the set) is counted:
    the others split the set alike."""
    labels = np.empty(32, dtype=np.int64)
    seen = np.zeros(nf, dtype=np.int64)
    best = 0
    stamp = 0
    for i in range(len(cands)):
        g = cands[i]
        if not lowest_of_its_orbit(g, palette, labels):
            continue
        stamp += 1
        parts = 0
        for j in range(len(codes)):
            f = feedback(src, g, codes[j])
            if f != 0 and seen[f] != stamp:
                seen[f] = stamp
                parts += 1
        if parts > best:
            best = parts
            if best >= cap:
                return cap
    return best


@njit(cache=True)
def kind_parts(codes, kinds, common, pegs):  # pragma: no cover - compiled
    """An upper bound of the non-win parts any guess makes of ``codes``, from their kinds
    (color multisets) alone: the codes of one kind share the number ``t`` of colors they
    have in common with the guess, so they answer it in at most ``t + 1`` ways (``pegs -
    1`` non-win ways for ``t = pegs``), the count the exact search's kinds' floors make
    per kind of guess (:func:`evo.search.exact_kernel._kind_floors`); the most over the kinds
    of guesses. ``pegs * (pegs + 3) // 2`` (every non-win feedback) without the table of
    common colors."""
    nk = len(common)
    if nk == 0:
        return pegs * (pegs + 3) // 2
    n = len(codes)
    ks = np.empty(n, dtype=np.int32)
    for j in range(n):
        ks[j] = kinds[codes[j]]
    ks.sort()
    per_t = np.zeros(pegs + 1, dtype=np.int64)
    best = 0
    for kk in range(nk):
        per_t[:] = 0
        row = common[kk]
        for j in range(n):
            per_t[row[ks[j]]] += 1
        u = min(per_t[pegs], pegs - 1)
        for t in range(pegs):
            u += min(per_t[t], t + 1)
        if u > best:
            best = u
    return best


@njit(cache=True)
def refined_least(cands, kept, bounds, codes, src, nf, small, budget):  # pragma: no cover
    """The least bound of a guess on ``codes``, its parts of at most ``small`` codes
    bounded one better where the perfect split cannot happen: ``kept`` and ``bounds``
    are the scored candidates by increasing bound (:func:`evo.search.exact_kernel.score`),
    each bound ``n + sum LB(part)`` with ``LB(s) = 2s - 1`` up to ``small`` codes. A part
    of ``s`` codes costs ``2s - 1`` only when one of its codes tells every other apart
    (played first, it leaves single codes); else at least ``2s``. The candidates are
    taken in order until the next bound reaches the least found, so the answer is the
    least over every candidate (those not kept having bounds of at least ``budget``),
    or at least ``budget``."""
    n = len(codes)
    fb = np.empty(n, dtype=np.int64)
    count = np.zeros(nf, dtype=np.int64)
    start = np.zeros(nf + 1, dtype=np.int64)
    grouped = np.empty(n, dtype=np.int64)
    seen = np.zeros(nf, dtype=np.int64)
    stamp = 0
    best = budget
    for q in range(len(kept)):
        b = bounds[q]
        if b >= best:
            return best
        g = cands[kept[q]]
        count[:] = 0
        for j in range(n):
            f = feedback(src, g, codes[j])
            fb[j] = f
            count[f] += 1
        start[0] = 0
        for f in range(nf):
            start[f + 1] = start[f] + count[f]
        for j in range(n):
            f = fb[j]
            grouped[start[f]] = codes[j]
            start[f] += 1
        extra = 0
        for f in range(1, nf):
            s = count[f]
            if s < 3 or s > small:
                continue
            lo = start[f] - s  # start[f] now points past the part
            perfect = False
            for a in range(lo, lo + s):
                stamp += 1
                ok = True
                for c in range(lo, lo + s):
                    if c == a:
                        continue
                    h = feedback(src, grouped[a], grouped[c])
                    if seen[h] == stamp:
                        ok = False
                        break
                    seen[h] = stamp
                if ok:
                    perfect = True
                    break
            if not perfect:
                extra += 1
        if b + extra < best:
            best = b + extra
    return best
