"""Compiled rows of the feedback table, on every thread: the build of a big game's table.

Each row is the computed feedback (:func:`evo.core.feedback_kernel.feedback` on packed
codes) of one guess against every code, rows side by side on numba's threads. The
numbers are those of the NumPy build; the tests compare the two.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from evo.core.feedback_kernel import feedback


@njit(cache=True, parallel=True)
def table_rows(src, m, lo, hi):  # pragma: no cover - compiled
    """Rows ``lo..hi`` of the ``(M, M)`` feedback table from a computed source ``src``
    (:func:`evo.core.feedback_kernel.packed_source`) of ``m`` codes."""
    out = np.empty((hi - lo, m), dtype=np.uint8)
    for r in prange(hi - lo):
        g = lo + r
        for s in range(m):
            out[r, s] = feedback(src, g, s)
    return out
