"""Where an operator acts: a random node whose code set is worth changing."""

from __future__ import annotations

import numpy as np

from evo.core.kinds import NODE_WEIGHTS, NodeWeight
from evo.core.tree import Tree

#: Code sets smaller than this are never worth changing (shrink and triangle settle them).
MIN_CODES = 3


def candidate_nodes(
    tree: Tree,
    *,
    min_codes: int = MIN_CODES,
    max_codes: int | None = None,
    max_depth: int | None = None,
    at_worst: bool = False,
) -> np.ndarray:
    """Nodes whose code set has ``min_codes`` .. ``max_codes`` codes (and that are at
    most ``max_depth`` guesses from the root, the root being 1; with ``at_worst``, only
    those under which some code needs the tree's worst case).

    >>> import evo
    >>> knuth = evo.baseline(evo.make_game(3, 3), "knuth")
    >>> nodes = candidate_nodes(knuth)  # 3 codes or more
    >>> nodes.tolist(), knuth.count[nodes].tolist()
    ([0, 1, 7, 13, 20, 24], [27, 6, 6, 4, 4, 3])
    >>> candidate_nodes(knuth, at_worst=True).tolist()  # where a code needs 4 guesses
    [0, 1]
    """
    ok = tree.count >= min_codes
    if max_codes is not None:
        ok &= tree.count <= max_codes
    if max_depth is not None:
        ok &= tree.depth <= max_depth
    if at_worst:
        ok &= tree.deepest() == tree.worst
    return np.flatnonzero(ok)


def outermost_nodes(
    tree: Tree,
    *,
    min_codes: int,
    max_codes: int | None,
    max_depth: int | None = None,
    at_worst: bool = False,
) -> np.ndarray:
    """The nodes of :func:`candidate_nodes` that no other of them contains, in preorder: a
    sweep that rebuilds each of them covers the band once."""
    nodes = candidate_nodes(
        tree, min_codes=min_codes, max_codes=max_codes, max_depth=max_depth, at_worst=at_worst
    )
    if len(nodes) == 0:
        return nodes
    ends = nodes + tree.nsub[nodes]
    out = []
    reach = -1  # the end of the last outermost node's subtree
    for node, end in zip(nodes.tolist(), ends.tolist()):
        if node >= reach:
            out.append(node)
            reach = end
    return np.array(out, dtype=np.int64)


def pick_node(
    tree: Tree,
    *,
    rng: np.random.Generator,
    weight: NodeWeight = "size",
    min_codes: int = MIN_CODES,
    max_codes: int | None = None,
    max_depth: int | None = None,
    at_worst: bool = False,
) -> int | None:
    """A random node with ``min_codes`` .. ``max_codes`` codes, uniformly (``uniform``) or
    with probability proportional to its code set's size (``size``) or its square root
    (``sqrt``); None when there is none.

    >>> import evo, numpy as np
    >>> knuth = evo.baseline(evo.make_game(3, 3), "knuth")
    >>> rng = np.random.default_rng(1)
    >>> pick_node(knuth, rng=rng), pick_node(knuth, rng=rng, min_codes=100)
    (0, None)
    """
    nodes = candidate_nodes(
        tree, min_codes=min_codes, max_codes=max_codes, max_depth=max_depth, at_worst=at_worst
    )
    if len(nodes) == 0:
        return None
    if weight == "uniform":
        return int(nodes[rng.integers(len(nodes))])
    w = tree.count[nodes].astype(np.float64)
    if weight == "sqrt":
        w = np.sqrt(w)
    elif weight != "size":
        raise ValueError(f"node weight must be one of {', '.join(NODE_WEIGHTS)}, not {weight!r}")
    cum = np.cumsum(w)
    return int(nodes[min(len(nodes) - 1, np.searchsorted(cum, rng.random() * cum[-1], "right"))])
