"""Crossovers: two parents in, two offspring out, every offspring a valid breaker.

``graft``     one-point subtree graft: a node of each parent takes the other parent's
              subtree at the *aligned* node (reached by the same guesses and feedbacks,
              so with the same code set) when there is one, else at a random node,
              replayed on the node's code set (:func:`evo.core.growth.replay`).
``exchange``  uniform exchange of aligned subtrees: where the parents first guess
              differently on the same code set, the subtrees are swapped with
              probability ½, or, with probability ``bias``, the first offspring takes the
              better one. No replay: aligned subtrees fit as they are.
"""

from __future__ import annotations

import numpy as np

from evo.core.growth import Template, replay
from evo.core.kinds import NodeWeight, Pool
from evo.core.tree import Tree
from evo.ea.nodes import pick_node
from evo.ea.variation import offer, splice


def aligned_node(a: Tree, node: int, b: Tree) -> int:
    """The node of ``b`` reached by ``a``'s guesses and feedbacks down to ``node`` (so with
    the same code set), or -1 when ``b`` guesses differently on the way."""
    path = a.path(node)
    child = b.child_table
    y = 0
    for x, nxt in zip(path, path[1:]):
        if a.guess[x] != b.guess[y]:
            return -1
        y = int(child[y, a.label[nxt]])
    return y


def graft_crossover(
    a: Tree,
    b: Tree,
    *,
    rng: np.random.Generator,
    pool: Pool = "all",
    node_weight: NodeWeight = "size",
) -> tuple[Tree, Tree]:
    """*Subtree graft*: a node ``x`` of ``a`` is picked; the donor is ``b``'s aligned node
    (same guesses above, so the same code set) when there is one, else a random node of
    ``b``. ``a``'s subtree at ``x`` becomes the donor's subtree replayed on ``x``'s code set
    (unchanged when the sets are equal); the second offspring is the same with the roles
    of the parents exchanged."""
    return (
        _graft(a, b, rng=rng, pool=pool, node_weight=node_weight),
        _graft(b, a, rng=rng, pool=pool, node_weight=node_weight),
    )


def _graft(
    a: Tree, b: Tree, *, rng: np.random.Generator, pool: Pool, node_weight: NodeWeight
) -> Tree:
    x = pick_node(a, rng=rng, weight=node_weight)
    if x is None:
        return a
    y = aligned_node(a, x, b)
    if y >= 0:
        sub = b.subtree(y)
    else:
        donor = pick_node(b, rng=rng, weight=node_weight)
        if donor is None:
            return a
        history = tuple(a.used_guesses(x)) if a.game.rule is not None else ()
        sub = replay(
            a.game, a.code_set(x), Template.of(b, donor), rng=rng, pool=pool, history=history
        )
    return offer(a, x, sub)


def divergence_points(a: Tree, b: Tree) -> list[tuple[int, int]]:
    """Pairs ``(x, y)`` of nodes of ``a`` and ``b`` reached by the same guesses and
    feedbacks (so with the same code set) where the two guess differently, in preorder."""
    out = []
    ca, cb = a.child_table, b.child_table
    stack = [(0, 0)]
    while stack:
        x, y = stack.pop()
        if a.guess[x] != b.guess[y]:
            out.append((x, y))
            continue
        kids = np.flatnonzero(ca[x] >= 0)
        stack.extend((int(ca[x, f]), int(cb[y, f])) for f in kids[::-1])
    return out


def exchange_crossover(
    a: Tree, b: Tree, *, rng: np.random.Generator, bias: float = 0.0
) -> tuple[Tree, Tree]:
    """*Aligned subtree exchange*: at every divergence point (the parents reach a node by
    the same guesses and feedbacks but guess differently there) the two subtrees are
    exchanged with probability ½; with probability ``bias`` the first offspring takes the
    better of the two instead (and the second the worse). Parents that differ in their
    root guess have one divergence point, the root: they are returned unchanged."""
    points = divergence_points(a, b)
    if len(points) <= 1 and (not points or points[0] == (0, 0)):
        return a, b
    ta, tb = a.subtree_totals(), b.subtree_totals()
    u = rng.random((len(points), 2))
    swap = []
    for (x, y), (r_bias, r_swap) in zip(points, u):
        if r_bias < bias:
            swap.append(tb[y] < ta[x])
        else:
            swap.append(r_swap < 0.5)
    child_a, child_b = a, b
    # Right to left, so that the node numbers of earlier points stay valid.
    for (x, y), s in zip(points[::-1], swap[::-1]):
        if s:
            sub_a, sub_b = a.subtree(x), b.subtree(y)
            child_a = splice(child_a, x, sub_b)
            child_b = splice(child_b, y, sub_a)
    return child_a, child_b
