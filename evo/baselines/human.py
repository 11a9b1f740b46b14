"""evo's own readings of the least-frequent-digits players of Bulls and Cows (they play
Mastermind too), kept as named variants beside the paper's players
(:mod:`evo.baselines.paper`). They differ from the paper in four ways: a digit's
frequency is counted over all positions (the paper keeps one record per position and
digit); the chosen digits are arranged as a possible code first (the paper places them
in ascending-frequency order); the separating player prefers a possible separating guess
(the paper takes the lowest code found); and a guess that would not help falls back to
the lowest possible code (the paper's program may repeat a guess forever). On 3 of 10
digits they average 6.84 and 6.30 (the paper's players: 6.07 and 5.89).

* ``least-frequent``: count how often each digit occurs among the codes still
  possible; guess a code made of the ``N`` least frequent digits that still occur
  (ties to the lowest digit; in Mastermind, with fewer such digits than pegs, the
  least frequent are repeated). Of the codes made of them, a consistent one first,
  then the lowest. A guess that would not help falls back to the lowest consistent code.
* ``separating``: a guess, from all codes, that leaves every remaining code alone in its
  part, when one exists (a consistent one first, then the lowest); otherwise the
  least-frequent guess.
"""

from __future__ import annotations

import itertools

import numpy as np

from evo.core.tree import Tree
from evo.games.pegs import PegGame
from evo.search.build import Node, Player, build_tree
from evo.search.partition import partition_counts, perfect_consistent
from evo.search.symmetry import encode


def least_frequent_guess(game: PegGame, codes: np.ndarray) -> int:
    """The least-frequent player's guess for the code set ``codes``."""
    if len(codes) <= 2:
        return int(codes[0])
    freq = np.bincount(game.digits[codes].ravel(), minlength=game.colors)
    present = [d for d in sorted(range(game.colors), key=lambda d: (freq[d], d)) if freq[d] > 0]
    chosen = [present[i % len(present)] for i in range(game.pegs)]
    arrangements = np.array(sorted(set(itertools.permutations(chosen))), dtype=np.int64)
    cands = np.unique(encode(game, arrangements))
    member = np.isin(cands, codes)
    for g in np.concatenate((cands[member], cands[~member])):
        if game.helps(int(g), codes):
            return int(g)
    return int(codes[0])


def least_frequent_player(game: PegGame) -> Player:
    return lambda codes, node: least_frequent_guess(game, codes)


def separating_player(game: PegGame) -> Player:
    def choose(codes: np.ndarray, node: Node) -> int:
        if len(codes) <= 2:
            return int(codes[0])
        if len(codes) <= game.num_feedbacks:
            g = perfect_consistent(game, codes)
            if g is not None:
                return g
            stab = node.stabilizer
            cands = stab.representatives() if not stab.trivial else None
            counts = partition_counts(game, codes, cands)
            ok = np.flatnonzero(counts.max(axis=1) == 1)
            if len(ok):
                return int(ok[0] if cands is None else cands[ok[0]])
        return least_frequent_guess(game, codes)

    return choose


def least_frequent(game: PegGame) -> Tree:
    return build_tree(game, least_frequent_player(game))


def separating(game: PegGame) -> Tree:
    return build_tree(game, separating_player(game))
