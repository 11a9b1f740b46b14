"""Compiled canonical forms: the lowest image of each code under a group of symmetries,
as :meth:`evo.search.symmetry.Stabilizer.canonical` computes it in NumPy (the tests
compare the two). Used where codes times group elements are many (a big game's root)."""

from __future__ import annotations

import numpy as np
from numba import njit, prange


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
