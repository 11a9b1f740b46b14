"""One-step look-ahead: score the partition of a code set by every candidate guess and
keep the best; ties go to a consistent guess, then to the lowest code.

* ``knuth``: the smallest largest part (Knuth 1977);
* ``irving``: the smallest expected part size, ``sum n_f^2 / |S|`` (Irving 1979);
* ``kooi``: the most parts (Kooi 2005);
* ``entropy``: the most information, ``-sum p_f log p_f`` (Neuwirth 1982).

Parts are counted over every feedback, the win included (a consistent guess has a win
part of one code). With a history (a :class:`~evo.search.build.Node`), candidates are
first reduced to one per orbit of the symmetries that fix it; the lowest code of the
best orbit is the one the tie rule would pick anyway, so the choice is the same.
"""

from __future__ import annotations

import numpy as np

from evo.game import Game, helpful_counts
from evo.kinds import HEURISTICS, Pool
from evo.search.build import Node, Player
from evo.search.partition import candidates, partition_counts, perfect_consistent


def score(name: str, counts: np.ndarray) -> np.ndarray:
    """Score of each candidate's part sizes; lower is better (ties are exact)."""
    if name == "knuth":
        return counts.max(axis=1)
    if name == "irving":
        return (counts * counts).sum(axis=1)
    if name == "kooi":
        return -np.count_nonzero(counts, axis=1)
    if name == "entropy":
        # Maximal entropy = minimal sum of n log n. Summed over sorted rows, so that
        # equal multisets of part sizes give bit-identical floats, then rounded.
        c = np.sort(counts, axis=1).astype(np.float64)
        nlogn = np.where(c > 0, c * np.log(np.maximum(c, 1)), 0.0)
        return np.round(nlogn.sum(axis=1), 9)
    raise ValueError(f"heuristic must be one of {', '.join(HEURISTICS)}, not {name!r}")


def ranked_guesses(
    game: Game, codes: np.ndarray, *, heuristic: str, pool: Pool = "all", node: Node | None = None
) -> tuple[np.ndarray, np.ndarray]:
    """The helpful candidate guesses for ``codes``, best first by ``heuristic``, then a
    consistent guess first, then the lowest code; and their scores. With ``node``, one
    candidate per symmetry orbit of its history."""
    cand = candidates(game, codes, pool=pool)
    if node is not None and not node.stabilizer.trivial:
        cand = node.stabilizer.representatives(None if pool == "all" else cand)
    sizes = partition_counts(game, codes, None if len(cand) == game.num_codes else cand)
    useful = helpful_counts(sizes, game.win)
    consistent = sizes[:, game.win] > 0
    value = score(heuristic, sizes)
    cand, value, consistent = cand[useful], value[useful], consistent[useful]
    order = np.lexsort((cand, ~consistent, value))
    return cand[order], value[order]


def lookahead_player(
    game: Game, heuristic: str, *, pool: Pool = "all", symmetry: bool = True
) -> Player:
    """The player that plays the best guess by ``heuristic`` at every node; two codes or
    fewer: the lower one. ``symmetry``: candidates reduced by the node's history (same
    choice, fewer candidates; off for a subtree whose history is unknown)."""
    if heuristic not in HEURISTICS:
        raise ValueError(f"heuristic must be one of {', '.join(HEURISTICS)}, not {heuristic!r}")

    def choose(codes: np.ndarray, node: Node) -> int:
        if len(codes) <= 2:
            return int(min(codes))
        quick = perfect_consistent(game, codes)
        if quick is not None:
            return quick
        found, _ = ranked_guesses(
            game, codes, heuristic=heuristic, pool=pool, node=node if symmetry else None
        )
        return int(found[0])

    return choose
