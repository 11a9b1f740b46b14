"""How guesses split a code set: feedback blocks, part sizes and candidate guesses.

A guess partitions a code set by feedback; everything the searches score is a function
of the sizes of those parts. Whether a guess *helps* (wins or splits) is defined once,
in :func:`evo.core.game.helpful_rows`, and used here on part sizes.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from evo.core.game import Game, legal_guesses
from evo.core.kinds import POOLS, Pool

#: Elements of the feedback block handled at once (bounds the working memory).
_BLOCK = 1 << 22


def feedback_block(game: Game, rows: np.ndarray, cols: np.ndarray | None) -> np.ndarray:
    """``(len(rows), len(cols))`` uint8 feedbacks of guesses ``rows`` against secrets
    ``cols`` (``cols=None``: every secret); with a symmetric feedback, ``rows`` may be
    secrets and ``cols`` guesses as well."""
    t = game.table
    if t is not None:
        if cols is None:
            return t[rows]
        if len(cols) < len(rows) and game.symmetric_feedback:
            # The table is symmetric: copy the fewer rows, then read them as columns.
            return t[cols][:, rows].T
        return t[rows][:, cols]
    if cols is None:
        cols = np.arange(game.num_codes)
    return game.compute_feedback(np.asarray(rows)[:, None], np.asarray(cols)[None, :])


def partition_counts(game: Game, codes: np.ndarray, cands: np.ndarray | None) -> np.ndarray:
    """``(k, F)`` int64: how many codes of ``codes`` each candidate puts in each part
    (``cands=None``: every guess is a candidate)."""
    f = game.num_feedbacks
    k = game.num_guesses if cands is None else len(cands)
    n = len(codes)
    counts = np.zeros(k * f, dtype=np.int64)
    if (cands is not None and k <= n) or not game.symmetric_feedback:
        # Candidates as rows (where the feedback is symmetric, only when they are the
        # fewer: otherwise the codes' rows are read as the candidates' columns).
        if cands is None:
            cands = np.arange(k, dtype=np.int64)
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


def split(game: Game, guess: int, codes: np.ndarray) -> list[tuple[int, np.ndarray]]:
    """The parts of ``codes`` by feedback to ``guess``, win excluded, in feedback order;
    each part keeps the order of ``codes``."""
    fb = game.feedback_row(int(guess), codes)
    order = np.argsort(fb, kind="stable")
    sfb, grouped = fb[order], codes[order]
    cuts = [0, *(np.flatnonzero(sfb[1:] != sfb[:-1]) + 1).tolist(), len(sfb)]
    first = sfb.tolist()
    win = game.win
    # Slices of one sorted array: a part per run of equal feedbacks.
    return [(first[a], grouped[a:b]) for a, b in zip(cuts, cuts[1:]) if a < b and first[a] != win]


def candidates(
    game: Game, codes: np.ndarray, *, pool: Pool, history: Sequence[int] | None = None
) -> np.ndarray:
    """The guesses a search considers at a node, ascending: every guess (``all``) or the
    node's own code set (``consistent``); in a game with a rule, only the legal ones at
    the node ``history`` (the guesses above it, which such a game needs) leads to."""
    if pool not in POOLS:
        raise ValueError(f"pool must be one of {', '.join(POOLS)}, not {pool!r}")
    if pool == "consistent":
        return np.sort(np.asarray(codes, dtype=np.int64))  # always legal (GuessRule)
    if game.rule is not None:
        if history is None:
            raise ValueError(f"{game.name} has a rule on guesses: a node's history is needed")
        legal = legal_guesses(game, history, codes)
        assert legal is not None
        return legal
    return np.arange(game.num_guesses, dtype=np.int64)


def perfect_consistent(game: Game, codes: np.ndarray) -> int | None:
    """The lowest code of ``codes`` that leaves every other code alone in its part, or
    None. Such a guess is the best of every score and of the exact search, ties included."""
    n = len(codes)
    if n > game.num_feedbacks:
        return None
    counts = partition_counts(game, codes, codes)
    ok = np.flatnonzero(counts.max(axis=1) == 1)
    return int(codes[ok[0]]) if len(ok) else None
