"""An optimal tree with a given first guess (``evo bound --first GUESS --out FILE``): the
first guess at the root and, below it, the exact search's choices (as ``evo baselines
--only optimal`` builds its tree), checked to cost the optimum the bound proved."""

from __future__ import annotations

import numpy as np

from evo.core.game import Game
from evo.core.tree import Tree
from evo.search.build import Node, build_tree
from evo.search.exact import Solver


def opened_tree(game: Game, first: int, *, total: int | None = None) -> Tree:
    """The tree of least total among those that open with ``first``: each part of
    ``first`` solved by the exact search (it solves them again: about the time the
    bound's exact searches took). ``total``: the optimum proved with ``first``, checked
    (an AssertionError when the tree costs otherwise: a bug)."""
    solver = Solver(game, policy="symmetry")

    def choose(codes: np.ndarray, node: Node) -> int:
        if not node.history:
            return first
        return solver.best_guess(codes, node)

    tree = build_tree(game, choose)
    if total is not None and tree.total != total:
        raise AssertionError(f"the tree opening with {first} totals {tree.total}, not {total}")
    return tree
