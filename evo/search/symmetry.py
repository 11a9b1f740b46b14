"""Symmetries of a game that fix the history of a node (docs/DESIGN.md §5).

In the Mastermind family (:mod:`evo.games.pegs`: Mastermind, black-peg Mastermind,
Bulls and Cows) permuting the positions and the colors of every code keeps the feedback
of every pair, so an automorphism ``phi`` that maps each guess of the history to itself maps
the code set of a node onto itself: candidate guesses ``g`` and ``phi(g)`` split it
into parts of the same sizes, are both consistent or both not, and lead to subtrees
of the same cost. Testing one candidate per orbit is enough.

An element is stored as a position permutation ``pi`` and a color map ``sigma`` on the
colors used so far (``-1`` elsewhere); it acts by ``phi(c)[i] = sigma(c[pi[i]])``.
Colors no guess has used yet ("fresh" colors) can be permuted freely: that part of
the group is handled by relabelling them in order of first appearance. The lowest
code of an orbit is its lexicographically smallest digit tuple, for Mastermind and
for Bulls and Cows alike, so the representative kept is the lowest code of its orbit,
which the tie rule "lowest code" would pick anyway. A game of no known symmetry (a
custom game) has the trivial group: every stabilizer is the identity alone.
"""

from __future__ import annotations

import itertools
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from evo.core.engine import compiled, numba_threads
from evo.core.game import Game
from evo.games.pegs import PegGame, peg_game

#: Rows (element, code) canonicalised at once.
_ROWS = 1 << 18

#: From this many rows (element, code) the compiled kernel canonicalises, where the
#: compiled engine serves the game (the same codes).
_COMPILED_ROWS = 1 << 16


@dataclass(frozen=True)
class Stabilizer:
    """The automorphisms that fix every guess of a history."""

    game: Game
    perms: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...]  # (pi, sigma) pairs
    used: tuple[bool, ...]  # per color: some guess of the history has it
    #: ``extend`` results by guess: a search extends the same groups again and again.
    _next: dict[int, Stabilizer] = field(
        default_factory=dict, init=False, compare=False, hash=False, repr=False
    )

    @staticmethod
    def root(game: Game) -> Stabilizer:
        """Every position permutation, no color used yet: the whole group (the identity
        alone for a game of no known symmetry)."""
        pegs = peg_game(game)
        if pegs is None:  # the identity, on one peg of one color (as the kernels see it)
            return _interned(Stabilizer(game, (((0,), (-1,)),), (True,)))
        none = tuple([-1] * pegs.colors)
        perms = tuple((p, none) for p in itertools.permutations(range(pegs.pegs)))
        return _interned(Stabilizer(game, perms, tuple([False] * pegs.colors)))

    @property
    def pegs(self) -> PegGame:
        """The game, of the Mastermind family (only a group of such a game is not trivial)."""
        assert isinstance(self.game, PegGame)
        return self.game

    @property
    def fresh(self) -> list[int]:
        """Colors no guess has used, in increasing order."""
        return [c for c, u in enumerate(self.used) if not u]

    @property
    def trivial(self) -> bool:
        """Only the identity: no candidate can be dropped."""
        return len(self.perms) == 1 and len(self.fresh) <= 1

    def extend(self, guess: int) -> Stabilizer:
        """The elements that also fix ``guess`` (one shared instance per group)."""
        hit = self._next.get(int(guess))
        if hit is None:
            hit = self._next[int(guess)] = _interned(self._extend(int(guess)))
        return hit

    def _extend(self, guess: int) -> Stabilizer:
        if peg_game(self.game) is None:
            return self
        g = [int(x) for x in self.pegs.digits[guess]]
        used = list(self.used)
        for c in g:
            used[c] = True
        if self.trivial:  # only the identity is left, and at most one fresh color
            return Stabilizer(self.game, self.perms, tuple(used))
        kept = []
        for pi, sigma in self.perms:
            s = list(sigma)
            ok = True
            for i in range(len(g)):
                a, b = g[pi[i]], g[i]
                if s[a] == -1:
                    s[a] = b
                elif s[a] != b:
                    ok = False
                    break
            if ok:
                images = [x for x in s if x >= 0]
                ok = len(images) == len(set(images))
            if ok:
                kept.append((pi, tuple(s)))
        return Stabilizer(self.game, tuple(kept), tuple(used))

    def canonical(self, codes: np.ndarray) -> np.ndarray:
        """The lowest code of the orbit of each code."""
        codes = np.asarray(codes, dtype=np.int64)
        if self.trivial or len(codes) == 0:
            return codes.copy()
        game = self.pegs
        digits = game.digits[codes].astype(np.int64)
        fresh = np.array(self.fresh, dtype=np.int64)
        fresh_mask = np.zeros(game.colors, dtype=bool)
        fresh_mask[fresh] = True
        pis, luts = self.arrays
        if compiled(game) and len(codes) * len(pis) >= _COMPILED_ROWS:
            from evo.search.symmetry_kernel import lowest_images

            numba_threads()
            return encode(game, lowest_images(digits, pis, luts, fresh))
        best = np.full(len(codes), np.iinfo(np.int64).max)
        step = max(1, _ROWS // len(codes))
        for lo in range(0, len(pis), step):
            pi, lut = pis[lo : lo + step], luts[lo : lo + step]
            # (perms, codes, pegs): every element applied to every code at once.
            d = digits[:, pi].transpose(1, 0, 2)
            d = lut[np.arange(len(pi))[:, None, None], d].reshape(-1, game.pegs)
            if len(fresh) > 1:
                d = _relabel_fresh(d, fresh_mask, fresh, game.colors)
            best = np.minimum(best, encode(game, d).reshape(len(pi), -1).min(axis=0))
        return best

    @cached_property
    def arrays(self) -> tuple[np.ndarray, np.ndarray]:
        """The elements as the kernels take them: position permutations ``pis`` and color
        maps ``luts``, a row each (identity on the colors no guess has used)."""
        pis = np.array([pi for pi, _ in self.perms], dtype=np.int64)
        luts = np.array(
            [[s if s >= 0 else c for c, s in enumerate(sigma)] for _, sigma in self.perms],
            dtype=np.int64,
        )
        return pis, luts

    @cached_property
    def _all_representatives(self) -> np.ndarray:
        codes = self.game.all_guesses().astype(np.int64)
        return codes if self.trivial else codes[self.canonical(codes) == codes]

    def representatives(self, codes: np.ndarray | None = None) -> np.ndarray:
        """The codes of ``codes`` (every guess by default) that are the lowest of their
        orbit: one per orbit, when ``codes`` is closed under the group (all guesses, or a
        code set of the node)."""
        if codes is None:
            return self._all_representatives
        codes = np.asarray(codes, dtype=np.int64)
        if self.trivial:
            return codes
        return codes[self.canonical(codes) == codes]


@dataclass(frozen=True)
class Relabel:
    """An automorphism of the game: positions permuted and colors renamed,
    ``phi(c)[i] = sigma[c[pi[i]]]``; it keeps every feedback."""

    pi: tuple[int, ...]
    sigma: tuple[int, ...]  # a permutation of all the colors

    def apply(self, game: PegGame, codes: np.ndarray | Sequence[int]) -> np.ndarray:
        """The images of ``codes``."""
        d = game.digits[np.asarray(codes, dtype=np.int64)][:, list(self.pi)]
        return encode(game, np.asarray(self.sigma, dtype=np.int64)[d])

    def inverse(self) -> Relabel:
        pi = [0] * len(self.pi)
        for i, p in enumerate(self.pi):
            pi[p] = i
        sigma = [0] * len(self.sigma)
        for c, s in enumerate(self.sigma):
            sigma[s] = c
        return Relabel(tuple(pi), tuple(sigma))

    @property
    def identity(self) -> bool:
        return self.pi == tuple(sorted(self.pi)) and self.sigma == tuple(sorted(self.sigma))


def canonical_frame(game: PegGame, guess: int) -> Relabel:
    """An automorphism that maps ``guess`` to the lowest code of its orbit (the first such
    in a fixed order, so the same for every caller): nodes below symmetric first guesses
    then meet as the same code sets, and share memos and caches."""
    lowest = int(Stabilizer.root(game).canonical(np.array([guess]))[0])
    target = [int(x) for x in game.digits[lowest]]
    g = [int(x) for x in game.digits[int(guess)]]
    for pi in itertools.permutations(range(game.pegs)):
        sigma = [-1] * game.colors
        ok = True
        for i in range(game.pegs):
            a, b = g[pi[i]], target[i]
            if sigma[a] == -1 and b not in sigma:
                sigma[a] = b
            elif sigma[a] != b:
                ok = False
                break
        if ok:
            rest = iter(c for c in range(game.colors) if c not in sigma)
            return Relabel(pi, tuple(s if s >= 0 else next(rest) for s in sigma))
    raise AssertionError("a code is always mapped to its orbit's lowest code")


_INTERNED: dict[tuple, Stabilizer] = {}


def _interned(s: Stabilizer) -> Stabilizer:
    """The one instance of this group (its representatives are computed once)."""
    return _INTERNED.setdefault((s.game.key, s.game.use_table, s.perms, s.used), s)


def _relabel_fresh(d: np.ndarray, fresh_mask: np.ndarray, fresh: np.ndarray, colors: int):
    """Map fresh colors, in order of first appearance along each row, to the lowest fresh
    colors: the lexicographically smallest image under permutations of fresh colors."""
    k, n = d.shape
    mapping = np.full((k, colors), -1, dtype=np.int64)
    nxt = np.zeros(k, dtype=np.int64)
    rows = np.arange(k)
    out = d.copy()
    for i in range(n):
        col = d[:, i]
        is_fresh = fresh_mask[col]
        new = is_fresh & (mapping[rows, col] < 0)
        mapping[rows[new], col[new]] = fresh[nxt[new]]
        nxt += new
        out[:, i] = np.where(is_fresh, mapping[rows, col], col)
    return out


def encode(game: PegGame, digits: np.ndarray) -> np.ndarray:
    """The codes of rows of 0-based pegs (vectorised :meth:`PegGame.code_of_digits`)."""
    d = np.asarray(digits, dtype=np.int64)
    n, c = game.pegs, game.colors
    if game.variant != "bulls-cows":
        return d @ (c ** np.arange(n - 1, -1, -1, dtype=np.int64))
    # Bulls and Cows: rank among tuples without repetition, in lexicographic order.
    code = np.zeros(len(d), dtype=np.int64)
    for i in range(n):
        smaller_before = (d[:, :i] < d[:, i : i + 1]).sum(axis=1)
        arrangements = 1
        for j in range(n - 1 - i):
            arrangements *= c - 1 - i - j
        code += (d[:, i] - smaller_before) * arrangements
    return code
