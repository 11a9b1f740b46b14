"""Fitness: the total number of guesses over all codes (lower is better)."""

from __future__ import annotations

import numpy as np

from evo.core.tree import Tree


def evaluate_total(tree: Tree, *, max_guesses: int | None = None) -> tuple[int]:
    """``(total,)``; past ``max_guesses``, each code solved too late adds ``M × max_guesses``,
    so every breaker within the limit beats every one beyond it."""
    total = tree.total
    if max_guesses is not None and tree.worst > max_guesses:
        over = int(np.count_nonzero(tree.terminal_depths > max_guesses))
        total += over * tree.num_codes * max_guesses
    return (total,)


def evaluate_total_worst(tree: Tree, *, at_worst: bool = False) -> tuple[int, ...]:
    """``(total, worst case)`` for NSGA-II, and with ``at_worst`` how many codes need the
    worst case."""
    if at_worst:
        return (tree.total, tree.worst, tree.at_worst)
    return (tree.total, tree.worst)
