"""A strategy as a table of its decision points (what ``evo table`` prints).

One row per node: the move (the guess's number, 1 at the root), the feedback history
that leads to it (``R`` for a peg right in place, ``W`` for one right in color only,
``|`` between moves, nothing for a move that got no peg), the guess, how many codes
reach it, their total and average number of guesses from the start, and the worst
case among them. Rows are sorted by count, largest first (ties in tree order). This is
the table players memorize.
"""

from __future__ import annotations

import numpy as np

from evo.game import feedback_pair
from evo.tree import Tree


def feedback_letters(fb: int, pegs: int) -> str:
    """``<b, w>`` as ``R`` * b + ``W`` * w (empty for no peg)."""
    b, w = feedback_pair(int(fb), pegs)
    return "R" * b + "W" * w


def node_histories(tree: Tree) -> list[str]:
    """The feedback history of every node, in R/W letters (the root's is empty)."""
    pegs = tree.game.pegs
    out = [""] * len(tree)
    for i in range(1, len(tree)):  # preorder: the parent comes first
        p = int(tree.parent[i])
        letters = feedback_letters(int(tree.label[i]), pegs)
        out[i] = letters if p == 0 else f"{out[p]}|{letters}"
    return out


def subtree_worst(tree: Tree) -> np.ndarray:
    """The deepest terminal node under each node (the worst case of its codes)."""
    worst = tree.depth.astype(np.int64).copy()
    parent = tree.parent
    for i in range(len(tree) - 1, 0, -1):
        p = parent[i]
        if worst[i] > worst[p]:
            worst[p] = worst[i]
    return worst


def table_rows(tree: Tree, *, min_count: int = 1) -> list[dict]:
    """The rows of nodes reached by at least ``min_count`` codes, as plain data:
    ``node``, ``move``, ``history``, ``guess``, ``count``, ``total``, ``average``, ``worst``.
    The history of a node after one move that got no peg is empty like the root's:
    ``move`` tells them apart."""
    game = tree.game
    cum = np.concatenate(([0], np.cumsum(tree.terminal_depths, dtype=np.int64)))
    totals = cum[tree.start + tree.count] - cum[tree.start]
    worst = subtree_worst(tree)
    histories = node_histories(tree)
    keep = np.flatnonzero(tree.count >= min_count)
    order = keep[np.lexsort((keep, -tree.count[keep]))]
    return [
        {
            "node": int(i),
            "move": int(tree.depth[i]),
            "history": histories[i],
            "guess": game.format_code(int(tree.guess[i])),
            "count": int(tree.count[i]),
            "total": int(totals[i]),
            "average": float(totals[i]) / int(tree.count[i]),
            "worst": int(worst[i]),
        }
        for i in order
    ]
