"""Simple players (docs/DESIGN.md §5): lowest consistent (LC), random consistent (RC, seeded),
and fixed openings followed by either (``5463+lc``, ``1123+2245+rc``).

An opening is played as written, as the write-up's ``X+Y+LC`` and ``X+Y+RC`` players
do: its ``k``-th guess is the ``k``-th move whatever the feedback, even where it tells
nothing (a node with one child: the guess is played and costs a move). Below the
opening, LC or RC (random path completion with the consistent pool,
:func:`evo.core.growth.grow`) takes over. With ``skip``, the older reading: an opening guess
is played only where it helps and, on one or two codes, only when it is one of them.
"""

from __future__ import annotations

import math
from collections.abc import Sequence

import numpy as np

from evo.core.game import Game
from evo.core.growth import grow, random_breaker
from evo.core.rng import generator, tree_generators
from evo.core.tree import Tree
from evo.search.build import Node, Player, build_tree


def lc_player(codes: np.ndarray, node: Node) -> int:
    """Lowest consistent: the lowest code still possible."""
    return int(codes[0])


def lowest_consistent(game: Game) -> Tree:
    """LC (Shapiro's "simple" strategy: 7471 for (4,6))."""
    return build_tree(game, lc_player)


def random_consistent(game: Game, *, seed: int = 0) -> Tree:
    """RC: a uniformly random consistent code at every node, drawn from ``seed``. This is
    random path completion with the consistent pool (:func:`evo.core.growth.random_breaker`)."""
    return random_breaker(game, rng=generator(seed), pool="consistent")


def opening_player(game: Game, opening: Sequence[int], then: Player) -> Player:
    """The *skipping* reading of an opening: its guesses in order where they help (and,
    on one or two codes, only when one of them), then ``then``. This is what an evolved
    tree would do; the write-up's players do not (see :func:`opening_tree`)."""
    opening = [int(g) for g in opening]

    def choose(codes: np.ndarray, node: Node) -> int:
        for g in opening:
            if g in node.history:
                continue
            if (len(codes) > 2 or g in codes) and game.helps(g, codes):
                return g
        return then(codes, node)

    return choose


def opening_tree(game: Game, opening: Sequence[int], *, codes: np.ndarray | None = None) -> Tree:
    """An opening played as written, then LC: the ``k``-th guess is ``opening[k-1]``
    whatever the feedbacks before it (unless the game is already won), as the write-up's
    ``X+Y+LC`` players do. A written guess that tells nothing there (a node of one code
    that is not that guess, or a guess every code answers alike) is still played and costs
    a guess: it is a node with a single child, which a breaker tree allows (no guess
    repeats on the path and every code still ends in a win)."""
    opening = [int(g) for g in opening]

    def choose(codes: np.ndarray, node: Node) -> int:
        k = len(node.history)
        return opening[k] if k < len(opening) else int(codes[0])

    return build_tree(game, choose, codes=codes, as_written=True)


def _opening_skeleton(game: Game, opening: Sequence[int], *, skip: bool) -> tuple[Tree, list[int]]:
    """The opening followed by LC, and the nodes where LC takes over (in preorder).

    As written (``skip`` False), the follower takes over below the last opening guess.
    Skipping, a node's guess is an opening guess exactly while the opening is being
    played: where the follower starts, no opening guess is playable, and none becomes
    playable below (a guess that tells nothing about a set tells nothing about its
    subsets)."""
    if not skip:
        tree = opening_tree(game, opening)
        return tree, [int(i) for i in np.flatnonzero(tree.depth == len(opening) + 1)]
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
        history = tuple(tree.used_guesses(node)) if game.rule is not None else ()
        sub = grow(game, tree.code_set(node), rng=rng, pool="consistent", history=history)
        tree = tree.replace(node, sub)
    return tree


def with_opening(
    game: Game, opening: Sequence[int], then: str, *, seed: int = 0, skip: bool = False
) -> Tree:
    """An opening followed by ``lc`` or ``rc`` (``rc`` drawn from ``seed``): played as
    written, or with ``skip``, skipping the opening guesses that would not help."""
    if len(set(opening)) != len(opening):
        raise ValueError("an opening repeats a guess")
    if then not in ("lc", "rc"):
        raise ValueError(f"an opening is followed by lc or rc, not {then!r}")
    skeleton, starts = _opening_skeleton(game, opening, skip=skip)
    if then == "lc":
        return skeleton
    return _rc_below(game, skeleton, starts, generator(seed))


def estimate_rc(
    game: Game,
    *,
    seeds: int = 100,
    seed: int = 0,
    opening: Sequence[int] = (),
    skip: bool = False,
) -> dict:
    """The expected average of RC (or ``opening+rc``) over ``seeds`` trees drawn from
    ``seed``: mean, standard deviation and a 95% confidence interval of the mean
    (normal approximation, ``mean ± 1.96 sd / sqrt(seeds)``)."""
    if seeds < 2:
        raise ValueError("estimating RC needs at least 2 seeds")
    skeleton = _opening_skeleton(game, opening, skip=skip) if len(opening) else None
    averages = []
    for rng in tree_generators(seed, seeds):
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
