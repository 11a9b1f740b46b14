"""Breaker trees as networkx graphs, for users' own analysis (and what rendering walks).

Nodes are the tree's node numbers (preorder, root 0); edges go from parent to child. Every
attribute is a string, an integer, a float or a boolean, so that ``nx.write_graphml`` and
``nx.write_gexf`` (and any other format of plain values) write the graph as it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import networkx as nx

from evo.core.tree import Tree
from evo.games.pegs import peg_game


def to_networkx(tree: Tree) -> nx.DiGraph:
    """A ``DiGraph`` arborescence of the tree.

    Node attributes: ``guess`` (code), ``label`` (its printed form, ``1122``), ``pegs``
    (its 0-based colors or digits, comma-separated: ``0,0,1,1``; :func:`node_pegs` reads
    them), ``codes`` (size of the code set), ``subtotal`` (guesses the codes of the subtree
    make from this node on: the additive total of docs/DESIGN.md §2), ``depth`` (root =
    1), ``terminal``. Edge attributes: ``feedback`` (integer), ``label`` (as evo writes
    it, ``1B 2W``), ``black``, ``white``. Graph attributes: the game (its spec: ``pegs``,
    ``colors``, ``variant``), ``total``, ``average`` and ``worst`` (GraphML keeps them;
    GEXF has no graph attributes). A game not of the Mastermind family has no ``pegs``
    of nodes nor ``black`` and ``white`` of edges; black-peg Mastermind has no
    ``white``.

    >>> import evo
    >>> graph = evo.baseline(evo.make_game(3, 3), "knuth").to_networkx()
    >>> graph.nodes[0]["label"], graph.nodes[0]["pegs"], graph.nodes[0]["codes"]
    ('112', '0,0,1', 27)
    >>> graph.edges[0, 1]["label"], graph.graph["total"]
    ('2B 0W', 74)
    """
    game = tree.game
    pegs = peg_game(game)
    subtotals = tree.subtree_totals()
    graph = nx.DiGraph(
        **{k: v for k, v in game.spec.items() if isinstance(v, str | int)},
        total=int(tree.total),
        average=float(tree.average),
        worst=int(tree.worst),
    )
    graph.add_nodes_from(
        (
            i,
            {
                "guess": int(tree.guess[i]),
                "label": game.format_code(int(tree.guess[i])),
                "codes": int(tree.count[i]),
                "subtotal": int(subtotals[i]),
                "depth": int(tree.depth[i]),
                "terminal": bool(tree.terminal[i]),
            },
        )
        for i in range(len(tree))
    )
    if pegs is not None:
        for i in range(len(tree)):
            digits = pegs.digits[int(tree.guess[i])]
            graph.nodes[i]["pegs"] = ",".join(str(int(p)) for p in digits)
    for i in range(1, len(tree)):
        fb = int(tree.label[i])
        counts: dict[str, int] = {}
        if pegs is not None:
            black, white = pegs.black_white(fb)
            counts = {"black": black} if white is None else {"black": black, "white": white}
        graph.add_edge(
            int(tree.parent[i]), i, feedback=fb, label=game.format_feedback(fb), **counts
        )
    return graph


def node_pegs(attrs: Mapping[str, Any]) -> tuple[int, ...]:
    """The 0-based pegs of a node of :func:`to_networkx` (its ``pegs`` attribute, also as
    read back from GraphML or GEXF).

    >>> node_pegs({"pegs": "0,0,1,1"})
    (0, 0, 1, 1)
    """
    return tuple(int(p) for p in str(attrs["pegs"]).split(","))
