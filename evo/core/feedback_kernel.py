"""The compiled feedback of a guess and a secret: read from the game's table, or computed
from packed codes where no table fits (a big game).

A *source* is one of:

* the ``(M, M)`` uint8 table of a game whose feedback is symmetric (the Mastermind
  family): read ``table[guess, secret]``, and by secret ``table[secret, guess]``, the
  same number;
* the pair ``(table, transposed)`` of a game whose feedback is not (a custom game, or
  one whose guesses are more than its secrets): the ``(G, M)`` table and its ``(M, G)``
  transpose, so that reading by secret stays a read along a row;
* the tuple :func:`packed_source` makes (a big game of the Mastermind family, without
  its table).

Kernels call :func:`feedback` (a guess's row) or :func:`by_secret` (a secret's row) on
a source; numba compiles one version per kind, so a kernel written once serves them all,
and the table's version is the plain read it was. Computed, a feedback is the black pegs
(the fields of two packed codes that differ, counted on their XOR) and the common colors
(a small table by color multiset), mapped to the feedback integer: the numbers of
:meth:`evo.games.pegs.PegGame.compute_feedback`.
"""

from __future__ import annotations

import numpy as np
from numba import njit, types
from numba.extending import overload


@njit(cache=True)
def popcount(x):  # pragma: no cover - compiled
    """The number of bits set in a uint64."""
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


def packed_source(digits: np.ndarray, ids: np.ndarray, common: np.ndarray, lut: np.ndarray):
    """The computed source of a game: ``digits`` ``(M, N)`` pegs, ``ids`` each code's
    color multiset, ``common[a, b]`` the colors two multisets share, ``lut`` from
    ``black * (N + 1) + common`` to the feedback integer. Codes are packed ``bits`` bits
    a peg into a uint64 (any game of up to 2^30 codes fits)."""
    m, n = digits.shape
    top = int(digits.max()) if m else 0
    bits = max(1, top.bit_length())
    if n * bits > 64:
        raise ValueError(f"{n} pegs of {bits} bits do not fit in 64 bits")
    packed = np.zeros(m, dtype=np.uint64)
    for p in range(n):
        packed |= digits[:, p].astype(np.uint64) << np.uint64(bits * (n - 1 - p))
    low = 0
    for p in range(n):
        low |= 1 << (bits * p)
    return (
        packed,
        np.ascontiguousarray(ids, dtype=np.int32),
        np.ascontiguousarray(common, dtype=np.uint8),
        np.ascontiguousarray(lut, dtype=np.uint8),
        np.int64(n),
        np.int64(bits),
        np.uint64(low),
    )


def feedback(src, guess, secret):
    """The feedback integer of ``guess`` against ``secret`` from ``src`` (compiled code
    only: numba picks the table read or the computation by the source's type)."""
    raise TypeError("evo.core.feedback_kernel.feedback runs in compiled kernels only")


def _is_pair(src) -> bool:
    """Whether a source's numba type is the pair ``(table, transposed)``."""
    return isinstance(src, types.BaseTuple) and len(src) == 2


def by_secret(src, secret, guess):
    """:func:`feedback` of ``guess`` against ``secret``, read along the secret's row
    (kernels that scan many candidates for one secret; compiled code only)."""
    raise TypeError("evo.core.feedback_kernel.by_secret runs in compiled kernels only")


@overload(feedback)
def _feedback(src, guess, secret):  # pragma: no cover - compiled
    if isinstance(src, types.Array):

        def read(src, guess, secret):
            return src[guess, secret]

        return read

    if _is_pair(src):

        def read_pair(src, guess, secret):
            return src[0][guess, secret]

        return read_pair

    def computed(src, guess, secret):
        packed, ids, common, lut, n, bits, low = src
        x = packed[guess] ^ packed[secret]
        y = x
        for k in range(1, bits):
            y |= x >> np.uint64(k)
        black = n - popcount(y & low)
        return lut[black * (n + 1) + common[ids[guess], ids[secret]]]

    return computed


@overload(by_secret)
def _by_secret(src, secret, guess):  # pragma: no cover - compiled
    if _is_pair(src):

        def read_transposed(src, secret, guess):
            return src[1][secret, guess]

        return read_transposed

    # A symmetric source answers the secret guessed against the guess alike: the read
    # (or the computation) kernels made before this function existed, unchanged.
    def symmetric(src, secret, guess):
        return feedback(src, secret, guess)

    return symmetric


@njit(cache=True)
def feedback_pairs(src, guesses, secrets, by_row=True):  # pragma: no cover - compiled
    """:func:`feedback` of paired guesses and secrets (for tests and small uses); read
    by secret (:func:`by_secret`) without ``by_row``."""
    out = np.empty(len(guesses), dtype=np.uint8)
    for i in range(len(guesses)):
        if by_row:
            out[i] = feedback(src, guesses[i], secrets[i])
        else:
            out[i] = by_secret(src, secrets[i], guesses[i])
    return out
