"""Compiled symmetries: the lowest image of each code under a group of symmetries, as
:meth:`evo.search.symmetry.Stabilizer.canonical` computes it in NumPy (the tests compare
the two; used where codes times group elements are many, a big game's root), and the
orbit tests and group extension that the compiled searches (look-ahead, exact search,
bounds) run at every node, as :meth:`~evo.search.symmetry.Stabilizer.extend` and
:meth:`~evo.search.symmetry.Stabilizer.representatives` do in NumPy."""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from evo.core.feedback_kernel import popcount


@njit(cache=True, parallel=True)
def lowest_images(digits, pis, luts, fresh):  # pragma: no cover - compiled
    """For each row of ``digits`` (codes as pegs), the lexicographically smallest image
    ``lut[c[pi[i]]]`` over the group's ``(pi, lut)`` pairs, its fresh colors then relabelled
    in order of first appearance to ``fresh`` (ascending): the lowest code of its orbit.
    Codes side by side on numba's threads."""
    m, n = digits.shape
    colors = luts.shape[1]
    is_fresh = np.zeros(colors, dtype=np.bool_)
    for c in fresh:
        is_fresh[c] = True
    out = np.empty_like(digits)
    for i in prange(m):
        image = np.empty(n, dtype=digits.dtype)
        mapping = np.empty(colors, dtype=np.int64)
        for e in range(len(pis)):
            mapping[:] = -1
            nxt = 0
            smaller = e == 0
            decided = e == 0
            for p in range(n):
                col = luts[e, digits[i, pis[e, p]]]
                if is_fresh[col]:
                    if mapping[col] < 0:
                        mapping[col] = fresh[nxt]
                        nxt += 1
                    col = mapping[col]
                image[p] = col
                if not decided and col != out[i, p]:
                    smaller = col < out[i, p]
                    decided = True
            if smaller:
                out[i, :] = image
    return out


@njit(cache=True)
def lowest_of_its_orbit(g, palette, labels):  # pragma: no cover - compiled
    """Whether code ``g`` is the lowest of its orbit under the symmetries of ``palette``."""
    # The symmetries fix the guesses above, so they map the set onto itself and keep every
    # answer: the images of a code split it alike. An element maps the pegs by a position
    # permutation ``pi`` and the played colors by ``lut``; the colors no guess above has
    # played can be renamed among themselves besides, so each image gets them in order of
    # first appearance, the lowest first. ``labels`` is scratch.
    masks, digits, pis, luts = palette.masks, palette.digits, palette.pis, palette.luts
    free = palette.every & ~palette.played
    if len(pis) == 1 and masks[g] & free == 0:  # the identity alone, nothing to rename
        return True
    pegs = digits.shape[1]
    for e in range(len(pis)):
        seen = np.uint32(0)
        left = free
        for i in range(pegs):
            c = luts[e, digits[g, pis[e, i]]]
            bit = np.uint32(1) << np.uint32(c)
            if free & bit:
                if seen & bit:
                    c = labels[c]
                else:
                    low = left & (~left + np.uint32(1))  # the lowest free color left
                    left ^= low
                    seen |= bit
                    labels[c] = popcount(np.uint64(low - np.uint32(1)))
                    c = labels[c]
            d = digits[g, i]
            if c < d:
                return False
            if c > d:
                break
    return True


@njit(cache=True)
def fixing(pis, luts, played, g, digits):  # pragma: no cover - compiled
    """The elements of the group ``(pis, luts)`` that also fix guess ``g`` (those below it)."""
    # The color maps are defined on the colors ``played``; those kept are extended to the
    # colors of ``g``.
    keep_p = np.empty_like(pis)
    keep_l = np.empty_like(luts)
    k = 0
    for e in range(len(pis)):
        lut = luts[e].copy()
        known = played
        ok = True
        for i in range(digits.shape[1]):
            a, b = digits[g, pis[e, i]], digits[g, i]
            bit = np.uint32(1) << np.uint32(a)
            if known & bit:
                ok = lut[a] == b
            else:
                lut[a] = b
                known |= bit
            if not ok:
                break
        images = np.uint32(0)  # the map must stay one to one on the colors it knows
        for c in range(len(lut)):
            if ok and known & (np.uint32(1) << np.uint32(c)):
                bit = np.uint32(1) << np.uint32(lut[c])
                ok = not images & bit
                images |= bit
        if ok:
            keep_p[k] = pis[e]
            keep_l[k] = lut
            k += 1
    return keep_p[:k].copy(), keep_l[:k].copy()


@njit(cache=True)
def lowest_of_orbit(digits, code, present, absent, seen):  # pragma: no cover - compiled
    """Whether ``code`` is the lowest of its orbit under renaming the ``absent`` colors."""
    # It is when it uses the absent colors in order: the first new one is the lowest absent
    # color, the next new one the next, and so on (``present``: per color, whether the set
    # has it; ``seen`` is scratch).
    m = 0
    for p in range(digits.shape[1]):
        c = digits[code, p]
        if present[c]:
            continue
        new = True
        for q in range(m):
            if seen[q] == c:
                new = False
                break
        if new:
            if c != absent[m]:
                return False
            seen[m] = c
            m += 1
    return True
