"""Compiled helper of the lower bounds (:mod:`evo.proofs.bound`): the most parts one guess
splits a code set into.

``P(S)``, the most non-win parts any guess makes of ``S``, bounds the parts of every
guess on every subset of ``S`` too (a guess's parts of a subset are parts of its parts of
``S``), so the perfect-split bound with ``P(S)`` parts in place of the game's ``P`` holds
in the whole subtree below ``S``: a tighter bound where ``S`` is less varied than the
whole game.

The depth-0 estimate bounds each part of a guess above the perfect split too
(:func:`part_floor`): its kinds bound the parts of every node below it, and its root is
one of its codes (each tried, its parts split perfectly) or a guess outside it, which
solves none at the first level.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from evo.core.feedback_kernel import feedback
from evo.search.exact_kernel import kind_answers, kind_part_count
from evo.search.symmetry_kernel import lowest_of_its_orbit


@njit(cache=True)
def most_parts(cands, codes, src, nf, cap, palette):  # pragma: no cover - compiled
    """The most non-win parts a candidate of ``cands`` splits ``codes`` into, or ``cap``
    as soon as one reaches it. Only the lowest code of each orbit of the symmetries of
    ``palette`` (:func:`evo.search.palette.palette`, which fix the set) is counted:
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
def kind_parts(codes, kinds, common, pegs, cap):  # pragma: no cover - compiled
    """An upper bound of the non-win parts any guess makes of ``codes``, from their kinds
    (color multisets) alone: the codes of one kind share the number ``t`` of colors they
    have in common with the guess, so they answer it in at most ``t + 1`` ways (``pegs -
    1`` non-win ways for ``t = pegs``), the count the exact search's kinds' floors make
    per kind of guess (:func:`evo.search.exact_kernel.kind_part_count`); the most over the
    kinds of guesses, or ``cap`` as soon as one reaches it. ``pegs * (pegs + 3) // 2`` (every
    non-win feedback) without the table of common colors."""
    nk = len(common)
    if nk == 0:
        return min(cap, pegs * (pegs + 3) // 2)
    per_t = kind_answers(codes, kinds, common, pegs)
    best = 0
    for kk in range(nk):
        u = kind_part_count(per_t, kk, pegs)
        if u > best:
            best = u
            if best >= cap:
                return cap
    return best


@njit(cache=True)
def fill(n, first, second, most):  # pragma: no cover - compiled
    """The least total of ``n`` codes in a tree whose root solves at most ``first`` code
    (0 or 1), has at most ``second`` children, and every node below at most ``most``:
    the levels filled in turn, each code counted at its depth."""
    left, depth, width, total = n, 1, first, 0
    while left > 0:
        k = min(left, width)
        total += depth * k
        left -= k
        width = second if depth == 1 else width * most
        depth += 1
        if width == 0:
            return np.int64(1) << 40  # no room: not a tree of these codes
    return total


@njit(cache=True)
def part_floor(part, src, count, touched, lb, most, kinds, common, pegs):  # pragma: no cover
    """A lower bound of a code set's least total at least its perfect split ``lb[s]``
    (``most`` parts per node): the parts per node bounded by the set's kinds
    (:func:`kind_parts`: ``m``), the root either one of its codes, ``s`` plus the perfect
    splits of the parts it makes, or a guess outside it, which solves none at the first
    level. ``count`` and ``touched``: scratch of one slot per feedback."""
    s = len(part)
    m = most
    if s > 2 and m > 1:
        # Only fewer parts than the set's codes (and than ``most``) can raise its bound.
        m = max(1, kind_parts(part, kinds, common, pegs, min(m, s)))
    base = max(lb[s], fill(s, 1, m, m))
    best = fill(s, 0, m, m)  # a guess outside the set
    if best <= base:
        return base
    for a in range(s):
        nt = 0
        for c in range(s):
            if c == a:
                continue
            h = feedback(src, part[a], part[c])
            if count[h] == 0:
                touched[nt] = h
                nt += 1
            count[h] += 1
        total = s
        for t in range(nt):
            total += fill(count[touched[t]], 1, m, m)
            count[touched[t]] = 0
        if total < best:
            best = total
            if best <= base:
                return base
    return best


@njit(cache=True)
def refined_least(
    cands, kept, bounds, codes, src, nf, lb, most, upto, budget, kinds, common, pegs
):  # pragma: no cover
    """The least bound of a guess on ``codes``, its parts of 3 to ``upto`` codes bounded
    by :func:`part_floor` in place of the perfect split: ``kept`` and ``bounds`` are the
    scored candidates by increasing bound (:func:`evo.search.exact_kernel.score`), each
    bound ``n + sum lb[part]`` (``lb``: the perfect split with ``most`` parts). The
    candidates are taken in order until the next bound reaches the least found, so the
    answer is the least over every candidate (those not kept having bounds of at least
    ``budget``), or at least ``budget``."""
    n = len(codes)
    fb = np.empty(n, dtype=np.int64)
    count = np.zeros(nf, dtype=np.int64)
    start = np.zeros(nf + 1, dtype=np.int64)
    grouped = np.empty(n, dtype=np.int64)
    scratch = np.zeros(nf, dtype=np.int64)
    touched = np.empty(nf, dtype=np.int64)
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
            if s < 3 or s > upto:
                continue
            lo = start[f] - s  # start[f] now points past the part
            part = grouped[lo : lo + s]
            floor = part_floor(part, src, scratch, touched, lb, most, kinds, common, pegs)
            extra += floor - lb[s]
            if b + extra >= best:
                break
        if b + extra < best:
            best = b + extra
    return best
