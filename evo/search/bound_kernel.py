"""Compiled helper of the lower bounds (:mod:`evo.search.bound`): the most parts one guess
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
from evo.search.lookahead_kernel import _lowest_of_its_orbit


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
        if not _lowest_of_its_orbit(g, palette, labels):
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
