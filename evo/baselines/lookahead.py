"""One-step look-ahead strategies (DESIGN §5): score the partition of the code set by
every candidate guess, keep the best; ties to a consistent guess, then the lowest code.

* ``knuth``: the smallest largest part (Knuth 1977);
* ``irving``: the smallest expected part size, ``sum n_f^2 / |S|`` (Irving 1979);
* ``kooi``: the most parts (Kooi 2005);
* ``entropy``: the most information, ``-sum p_f log p_f`` (Neuwirth 1982).

Parts are counted over every feedback, the win included (a consistent guess has a win
part of one code). Each also comes in a consistent-only form, candidates being the
code set. Part sizes of all candidates are counted at once, one ``np.bincount`` over
``candidate * F + feedback``; candidates are first reduced to one per orbit of the
symmetries that fix the history (:mod:`evo.baselines.symmetry`).
"""

from __future__ import annotations

import numpy as np

from evo.baselines.build import Node, Player, build_tree
from evo.game import Game
from evo.tree import Tree

SCORES = ("knuth", "irving", "kooi", "entropy")

#: Elements of the feedback block handled at once (bounds the working memory).
_BLOCK = 1 << 22


def feedback_block(game: Game, rows: np.ndarray, cols: np.ndarray | None) -> np.ndarray:
    """``(len(rows), len(cols))`` uint8 feedbacks (``cols=None``: every code)."""
    t = game.table
    if t is not None:
        block = t[rows]
        return block if cols is None else block[:, cols]
    if cols is None:
        cols = np.arange(game.num_codes)
    return game.compute_feedback(np.asarray(rows)[:, None], np.asarray(cols)[None, :])


def partition_counts(game: Game, codes: np.ndarray, cands: np.ndarray | None) -> np.ndarray:
    """``(k, F)`` int64: how many codes of ``codes`` each candidate puts in each part
    (``cands=None``: every code is a candidate)."""
    f = game.num_feedbacks
    k = game.num_codes if cands is None else len(cands)
    n = len(codes)
    counts = np.zeros(k * f, dtype=np.int64)
    if cands is not None and k <= n:
        # Candidates as rows: the feedback is symmetric, read the candidates' rows.
        step = max(1, _BLOCK // max(1, n))
        for lo in range(0, k, step):
            block = feedback_block(game, cands[lo : lo + step], codes).astype(np.intp)
            block += (np.arange(lo, lo + len(block), dtype=np.intp) * f)[:, None]
            counts += np.bincount(block.ravel(), minlength=k * f)
    else:
        offsets = np.arange(k, dtype=np.intp) * f
        step = max(1, _BLOCK // max(1, k))
        for lo in range(0, n, step):
            block = feedback_block(game, codes[lo : lo + step], cands).astype(np.intp)
            block += offsets
            counts += np.bincount(block.ravel(), minlength=k * f)
    return counts.reshape(k, f)


def score(name: str, counts: np.ndarray) -> np.ndarray:
    """Score of each candidate's part sizes; lower is better (ties are exact)."""
    if name == "knuth":
        return counts.max(axis=1)
    if name == "irving":
        return (counts * counts).sum(axis=1)
    if name == "kooi":
        return -np.count_nonzero(counts, axis=1)
    if name == "entropy":
        # Maximal entropy = minimal sum of n log n. Summed over sorted rows, so that
        # equal multisets of part sizes give bit-identical floats, then rounded.
        c = np.sort(counts, axis=1).astype(np.float64)
        nlogn = np.where(c > 0, c * np.log(np.maximum(c, 1)), 0.0)
        return np.round(nlogn.sum(axis=1), 9)
    raise ValueError(f"unknown score {name!r}; choose from {', '.join(SCORES)}")


def best_guess(game: Game, codes: np.ndarray, cands: np.ndarray, scores: np.ndarray) -> int:
    """The best-scoring candidate (``cands`` ascending); ties to one of ``codes``, then
    to the lowest code."""
    tie = scores == scores.min()
    member = np.zeros(game.num_codes, dtype=bool)
    member[codes] = True
    consistent = tie & member[cands]
    if consistent.any():
        tie = consistent
    return int(cands[int(np.argmax(tie))])


def perfect_consistent(game: Game, codes: np.ndarray) -> int | None:
    """The lowest code of ``codes`` that leaves every other code alone in its part, or None.
    Such a guess is the best of every score, ties included."""
    n = len(codes)
    if n > game.num_feedbacks:
        return None
    counts = partition_counts(game, codes, codes)
    ok = np.flatnonzero(counts.max(axis=1) == 1)
    return int(codes[ok[0]]) if len(ok) else None


def lookahead_player(game: Game, name: str, consistent: bool = False) -> Player:
    """The player that scores every candidate (or, ``consistent``, every code of the
    node's set) with ``name`` and keeps the best."""
    if name not in SCORES:
        raise ValueError(f"unknown score {name!r}; choose from {', '.join(SCORES)}")

    def choose(codes: np.ndarray, node: Node) -> int:
        if len(codes) <= 2:
            return int(codes[0])
        quick = perfect_consistent(game, codes)
        if quick is not None:
            return quick
        stab = node.stabilizer
        cands = codes if consistent else None
        if not stab.trivial:
            cands = stab.representatives(cands)
        counts = partition_counts(game, codes, cands)
        if cands is None:
            cands = np.arange(game.num_codes)
        return best_guess(game, codes, cands, score(name, counts))

    return choose


def lookahead(game: Game, name: str, consistent: bool = False) -> Tree:
    """The tree of a one-step look-ahead strategy: ``knuth``, ``irving``, ``kooi`` or
    ``entropy``; ``consistent`` restricts the guesses to the node's code set."""
    return build_tree(game, lookahead_player(game, name, consistent))
