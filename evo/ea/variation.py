"""What every operator does in the end: a subtree replaced, the total updated from the
change alone, and a worse or identical replacement declined when asked."""

from __future__ import annotations

import numpy as np

from evo.core.tree import Tree


def splice(tree: Tree, node: int, sub: Tree) -> Tree:
    """``tree`` with the subtree at ``node`` replaced by ``sub`` (a tree of the node's code
    set), its total computed from the change alone: old total − old subtree + new subtree."""
    old = int(tree.subtree_totals()[node])
    new_tree = tree.replace(node, sub)
    new_tree._cache["total"] = tree.total - old + sub.total
    return new_tree


def offer(tree: Tree, node: int, sub: Tree, *, keep_current: bool = False) -> Tree:
    """``tree`` with ``sub`` at ``node``; ``tree`` itself when ``sub`` is the same subtree,
    or, with ``keep_current``, when ``sub`` is worse. A subtree as good as the current one
    is taken: such neutral moves let the population drift along plateaus of equal total."""
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
