"""Compiled rows of the feedback table, on every thread: the build of a big game's table.

A row block is computed as evo.core.game builds it in NumPy (black pegs position by
position, common colors from the code's color multiset, both mapped to the feedback
integer), code by code instead of array pass by array pass, and rows side by side on
numba's threads. The numbers are the same; the tests compare the two.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange


@njit(cache=True, parallel=True)
def table_rows(digits, ids, common, lut, lo, hi):  # pragma: no cover - compiled
    """Rows ``lo..hi`` of the feedback table: ``digits`` ``(M, N)`` pegs, ``ids`` each
    code's multiset, ``common[a, b]`` the common colors of two multisets, ``lut`` from
    ``black * (N + 1) + common`` to the feedback integer."""
    m, n = digits.shape
    out = np.empty((hi - lo, m), dtype=np.uint8)
    for r in prange(hi - lo):
        g = lo + r
        ig = ids[g]
        for s in range(m):
            black = 0
            for p in range(n):
                if digits[g, p] == digits[s, p]:
                    black += 1
            out[r, s] = lut[black * (n + 1) + common[ig, ids[s]]]
    return out
