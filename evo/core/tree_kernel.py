"""Compiled room for a tree: the per-node arrays of :class:`evo.core.tree.Tree`, as the
kernels that build whole trees (random growth, the one-step look-ahead) fill them.

One definition of the arrays' kinds, so that every compiled builder hands back what
``Tree`` holds. ``cache=True`` keeps the machine code on disk.
"""

from __future__ import annotations

import numpy as np
from numba import njit


@njit(cache=True)
def node_arrays(cap):  # pragma: no cover - compiled
    """Room for ``cap`` nodes: ``guess, label, parent, depth, terminal, start, count``."""
    return (
        np.empty(cap, dtype=np.int32),
        np.empty(cap, dtype=np.int32),
        np.empty(cap, dtype=np.int32),
        np.empty(cap, dtype=np.int32),
        np.empty(cap, dtype=np.bool_),
        np.empty(cap, dtype=np.int32),
        np.empty(cap, dtype=np.int32),
    )
