"""What every operator does in the end: a subtree replaced, the total updated from the
change alone, and a worse or identical replacement declined when asked (or, for
polish, any that is not better)."""

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


def offer(
    tree: Tree,
    node: int,
    sub: Tree,
    *,
    keep_current: bool = False,
    strict: bool = False,
    last: int | None = None,
) -> Tree:
    """``tree`` with ``sub`` at ``node``; ``tree`` itself when ``sub`` is the same subtree,
    or, with ``keep_current``, when ``sub`` is worse. A subtree as good as the current one
    is taken: such neutral moves let the population drift along plateaus of equal total.
    With ``strict`` (polish, which promises never to make a tree worse in any way), only a
    better one is (:func:`improves`, ``last`` its second objective).

    >>> import evo, numpy as np
    >>> knuth = evo.baseline(evo.make_game(3, 3), "knuth")
    >>> worse = evo.ops.grow(knuth.game, knuth.code_set(1), rng=np.random.default_rng(1))
    >>> offer(knuth, 1, worse, keep_current=True) is knuth, offer(knuth, 1, worse).total
    (True, 76)
    """
    n = int(tree.nsub[node])
    if len(sub) == n and np.array_equal(sub.guess, tree.guess[node : node + n]):
        return tree  # same guesses in preorder on the same code set: the same subtree
    if strict and not improves(sub, tree.subtree(node), last=last):
        return tree
    if keep_current and sub.total > tree.subtree_totals()[node]:
        return tree
    return splice(tree, node, sub)


def improves(sub: Tree, now: Tree, *, last: int | None = None) -> bool:
    """Whether ``sub`` is better than ``now``, two subtrees of one code set: a lower
    total; at an equal total, with ``last`` (a search within a worst case of ``last``
    guesses, fewest codes at the last one second), fewer codes solved at guess ``last``;
    then a lower worst case. An equal one is not better.

    >>> import evo
    >>> knuth = evo.baseline(evo.make_game(3, 3), "knuth")
    >>> now = knuth.subtree(1)
    >>> improves(now, now), improves(evo.baseline(knuth.game, "optimal"), knuth)
    (False, True)
    """

    def key(t: Tree) -> tuple[int, int, int]:
        return t.total, 0 if last is None else t.solved_at(last), t.worst

    return key(sub) < key(now)


def total_of(tree: Tree) -> int:
    """The key by which operators keep the best of several subtrees (the first of equal
    totals wins a ``min()``)."""
    return tree.total
