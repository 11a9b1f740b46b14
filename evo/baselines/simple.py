"""Simple players (docs/DESIGN.md §5): lowest consistent (LC), random consistent (RC, seeded),
and fixed openings followed by either (``5463+lc``, ``1123+2245+rc``).

An opening guess is played at a node where it helps (it wins for a code of the set or
splits it) and, on a node of one or two codes, only when it is one of them: there the
player simply guesses them. A skipped opening guess would not help anywhere below
either, so the next one is tried at once. Where the opening ends, LC or RC (random
path completion with the consistent pool, :func:`evo.growth.grow`) takes over.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from evo.game import Game
from evo.growth import grow, random_breaker, tree_rngs
from evo.search.build import Node, Player, build_tree
from evo.tree import Tree


def lc_player(codes: np.ndarray, node: Node) -> int:
    """Lowest consistent: the lowest code still possible."""
    return int(codes[0])


def lowest_consistent(game: Game) -> Tree:
    """LC (Shapiro's "simple" strategy: 7471 for (4,6))."""
    return build_tree(game, lc_player)


def random_consistent(game: Game, *, seed: int = 0) -> Tree:
    """RC: a uniformly random consistent code at every node, drawn from ``seed``. This is
    random path completion with the consistent pool (:func:`evo.growth.random_breaker`)."""
    return random_breaker(game, rng=np.random.default_rng(seed), pool="consistent")


def opening_player(game: Game, opening: Sequence[int], then: Player) -> Player:
    """Play the opening guesses in order where they are playable, then ``then``."""
    opening = [int(g) for g in opening]

    def choose(codes: np.ndarray, node: Node) -> int:
        for g in opening:
            if g in node.history:
                continue
            if (len(codes) > 2 or g in codes) and game.helps(g, codes):
                return g
        return then(codes, node)

    return choose


def _opening_skeleton(game: Game, opening: Sequence[int]) -> tuple[Tree, list[int]]:
    """The opening followed by LC, and the nodes where LC takes over (in preorder).

    A node's guess is an opening guess exactly while the opening is being played: where
    the follower starts, no opening guess is playable, and none becomes playable below
    (a guess that tells nothing about a set tells nothing about its subsets)."""
    tree = build_tree(game, opening_player(game, opening, lc_player))
    is_open = np.isin(tree.guess, np.asarray(opening))
    follow = ~is_open
    follow[1:] &= is_open[tree.parent[1:]]
    return tree, [int(i) for i in np.flatnonzero(follow)]


def _rc_below(game: Game, skeleton: Tree, starts: list[int], rng: np.random.Generator) -> Tree:
    """The skeleton with RC subtrees (random path completion, consistent pool) grown at
    ``starts``, the last first so that the earlier node numbers stay valid."""
    tree = skeleton
    for node in reversed(starts):
        tree = tree.replace(node, grow(game, tree.code_set(node), rng=rng, pool="consistent"))
    return tree


def with_opening(game: Game, opening: Sequence[int], then: str, *, seed: int = 0) -> Tree:
    """An opening followed by ``lc`` or ``rc`` (``rc`` drawn from ``seed``)."""
    if len(set(opening)) != len(opening):
        raise ValueError("an opening repeats a guess")
    if then not in ("lc", "rc"):
        raise ValueError(f"an opening is followed by lc or rc, not {then!r}")
    skeleton, starts = _opening_skeleton(game, opening)
    if then == "lc":
        return skeleton
    return _rc_below(game, skeleton, starts, np.random.default_rng(seed))


def estimate_rc(
    game: Game, *, seeds: int = 100, seed: int = 0, opening: Sequence[int] = ()
) -> dict:
    """The expected average of RC (or ``opening+rc``) over ``seeds`` trees drawn from
    ``seed``: mean, standard deviation and a 95% confidence interval of the mean
    (normal approximation, ``mean ± 1.96 sd / sqrt(seeds)``)."""
    if seeds < 2:
        raise ValueError("estimating RC needs at least 2 seeds")
    skeleton = _opening_skeleton(game, opening) if len(opening) else None
    averages = []
    for rng in tree_rngs(seed, seeds):
        if skeleton is None:
            tree = random_breaker(game, rng=rng, pool="consistent")
        else:
            tree = _rc_below(game, *skeleton, rng)
        averages.append(tree.average)
    a = np.array(averages)
    mean, sd = float(a.mean()), float(a.std(ddof=1))
    half = 1.96 * sd / math.sqrt(seeds)
    return {
        "seeds": seeds,
        "seed": seed,
        "mean": mean,
        "std": sd,
        "ci95": [mean - half, mean + half],
        "min": float(a.min()),
        "max": float(a.max()),
    }
