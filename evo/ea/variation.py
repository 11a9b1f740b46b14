"""What every operator does in the end: a subtree replaced, the total updated from the
change alone, and a worse or identical replacement declined when asked."""

from __future__ import annotations

import numpy as np

from evo.core.tree import Tree


def splice(tree: Tree, node: int, sub: Tree) -> Tree:
    """``tree`` with the subtree at ``node`` replaced by ``sub`` (a tree of the node's code
    set), its total computed from the change alone: old total − old subtree + new subtree.

    >>> import evo, numpy as np
    >>> knuth = evo.baseline(evo.make_game(3, 3), "knuth")
    >>> sub = evo.ops.grow(knuth.game, knuth.code_set(1), rng=np.random.default_rng(1))
    >>> new = splice(knuth, 1, sub)
    >>> knuth.total, int(knuth.subtree_totals()[1]), sub.total, new.total, new.is_valid()
    (74, 13, 15, 76, True)
    """
    old = int(tree.subtree_totals()[node])
    new_tree = tree.replace(node, sub)
    new_tree._cache["total"] = tree.total - old + sub.total
    return new_tree


def offer(tree: Tree, node: int, sub: Tree, *, keep_current: bool = False) -> Tree:
    """``tree`` with ``sub`` at ``node``; ``tree`` itself when ``sub`` is the same subtree,
    or, with ``keep_current``, when ``sub`` is worse. A subtree as good as the current one
    is taken: such neutral moves let the population drift along plateaus of equal total.

    >>> import evo, numpy as np
    >>> knuth = evo.baseline(evo.make_game(3, 3), "knuth")
    >>> worse = evo.ops.grow(knuth.game, knuth.code_set(1), rng=np.random.default_rng(1))
    >>> offer(knuth, 1, worse, keep_current=True) is knuth, offer(knuth, 1, worse).total
    (True, 76)
    """
    n = int(tree.nsub[node])
    if len(sub) == n and np.array_equal(sub.guess, tree.guess[node : node + n]):
        return tree  # same guesses in preorder on the same code set: the same subtree
    if keep_current and sub.total > tree.subtree_totals()[node]:
        return tree
    return splice(tree, node, sub)


def total_of(tree: Tree) -> int:
    """The key by which operators keep the best of several subtrees (the first of equal
    totals wins a ``min()``)."""
    return tree.total
