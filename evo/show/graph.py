"""Breaker trees as networkx graphs, for users' own analysis (and what rendering walks).

Nodes are the tree's node numbers (preorder, root 0); edges go from parent to child.
"""

from __future__ import annotations

import networkx as nx

from evo.core.game import feedback_pair
from evo.core.tree import Tree


def to_networkx(tree: Tree) -> nx.DiGraph:
    """A ``DiGraph`` arborescence of the tree.

    Node attributes: ``guess`` (code), ``label`` (its printed form, ``1122``), ``pegs``
    (its 0-based colors or digits), ``codes``
    (size of the code set), ``subtotal`` (guesses the codes of the subtree make from this
    node on: the additive total of docs/DESIGN.md §2), ``depth`` (root = 1), ``terminal``.
    Edge attributes:
    ``feedback`` (integer), ``label`` (``b,w``), ``black``, ``white``. Graph attributes:
    the game (``pegs``, ``colors``, ``variant``), ``total``, ``average`` and ``worst``.
    """
    game = tree.game
    subtotals = tree.subtree_totals()
    graph = nx.DiGraph(
        pegs=game.pegs,
        colors=game.colors,
        variant=game.variant,
        total=tree.total,
        average=tree.average,
        worst=tree.worst,
    )
    graph.add_nodes_from(
        (
            i,
            {
                "guess": int(tree.guess[i]),
                "label": game.format_code(int(tree.guess[i])),
                "pegs": tuple(int(p) for p in game.digits[int(tree.guess[i])]),
                "codes": int(tree.count[i]),
                "subtotal": int(subtotals[i]),
                "depth": int(tree.depth[i]),
                "terminal": bool(tree.terminal[i]),
            },
        )
        for i in range(len(tree))
    )
    for i in range(1, len(tree)):
        fb = int(tree.label[i])
        black, white = feedback_pair(fb, game.pegs)
        graph.add_edge(
            int(tree.parent[i]),
            i,
            feedback=fb,
            label=game.format_feedback(fb),
            black=black,
            white=white,
        )
    return graph
