"""The exact search: a subtree of least total for a code set, by branch and bound.

``cost(S) = |S| + min_g sum_f cost(S_f)`` over the guesses ``g`` that help, ``S_f`` the
parts of ``S`` other than the win. The search is depth first:

* **Lower bound** ("perfect split"): a guess solves at most one code of its set and
  splits the rest into at most ``P`` parts (``P``: the most non-win feedbacks a guess
  can produce in this game), so at most ``P^(d-1)`` codes are solved at depth ``d``;
  filling depths greedily gives ``LB(n)``. A candidate ``g`` is bounded by
  ``|S| + sum_f LB(|S_f|)``, with its real parts.
* **Candidates** (the *policy*): with ``symmetry``, one guess per orbit of the
  symmetries that fix the history (:mod:`evo.search.symmetry`), the fastest for a whole
  game; with ``path-independent``, the pool's guesses whatever the history, so that the
  subtree chosen for a code set does not depend on the path by which it was first met
  (the evolution needs that: the same result with any number of worker processes).
  Then one guess per distinct partition (the win part told apart), detected by two
  fingerprints made of random real sums per part; the lowest code of each is kept.
  They are tried by increasing bound, a consistent one first, then the lowest code, so
  the guess chosen is the first optimal one in that order.
* **Pruning**: parts are solved largest first with the budget left; a candidate is
  dropped once what it has cost so far plus the bounds of its remaining parts reaches
  the best total found. Exact costs are memoised per code set, and so are the lower
  bounds that failed searches prove (the memo is emptied past ``max_memo`` entries).
"""

from __future__ import annotations

import time
from typing import Literal, get_args

import numpy as np

from evo.game import Game, helpful_counts
from evo.kinds import Pool
from evo.search.build import Node, build_tree
from evo.search.partition import candidates, feedback_block, partition_counts, perfect_consistent
from evo.search.symmetry import Stabilizer
from evo.tree import Tree

Policy = Literal["symmetry", "path-independent"]
POLICIES: tuple[str, ...] = get_args(Policy)

#: The bound that means "no limit".
UNBOUNDED = 1 << 60


class SearchTimeout(Exception):
    """The search reached its deadline."""


def max_parts(game: Game) -> int:
    """``P``: the most non-win parts one guess can split the codes into."""
    reps = Stabilizer.root(game).representatives()
    counts = partition_counts(game, game.all_codes(), reps)
    return int(np.count_nonzero(counts[:, 1:], axis=1).max())


def perfect_split_bounds(n_max: int, parts: int) -> np.ndarray:
    """``LB[n]`` for ``n = 0 .. n_max``: the smallest total of ``n`` codes when every
    node solves one code and has at most ``parts`` children."""
    lb = np.zeros(n_max + 1, dtype=np.int64)
    for n in range(1, n_max + 1):
        left, depth, width, total = n, 1, 1, 0
        while left:
            k = min(left, width)
            total += depth * k
            left -= k
            depth += 1
            width *= max(parts, 1)
        lb[n] = total
    return lb


class Solver:
    """Branch and bound for one game and guess pool; keeps its memo across calls.

    ``policy``: how candidates are chosen (see the module); ``symmetry`` is right only
    when each call's ``node`` holds the guesses that led to its codes. ``deadline``: a
    ``time.monotonic()`` instant after which :class:`SearchTimeout` is raised;
    ``max_memo``: memo entries kept before it is emptied (None: no limit).
    """

    def __init__(
        self,
        game: Game,
        *,
        policy: Policy = "path-independent",
        pool: Pool = "all",
        deadline: float | None = None,
        max_memo: int | None = None,
        seed: int = 12345,
    ):
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
        self.game = game
        self.policy = policy
        self.pool = pool
        self.deadline = deadline
        self.max_memo = max_memo
        self.lb = perfect_split_bounds(game.num_codes, max_parts(game))
        self.exact: dict[bytes, tuple[int, int]] = {}
        self.lower: dict[bytes, int] = {}
        self.nodes = 0
        rng = np.random.default_rng(seed)
        self._weights = rng.random((2, game.num_codes))
        self._mix = rng.random(game.num_feedbacks) + 1.0

    # ------------------------------------------------------------------ answers
    def total(self, codes: np.ndarray, node: Node | None = None) -> int:
        """The least total of a subtree for ``codes``."""
        return self.solve(_sorted(codes), node or Node(self.game), UNBOUNDED)

    def best_guess(self, codes: np.ndarray, node: Node | None = None) -> int:
        """The root guess of an optimal subtree for ``codes`` (the lower code of two)."""
        s = _sorted(codes)
        if len(s) <= 2:
            return int(s[0])
        key = s.tobytes()
        if key not in self.exact:
            self.solve(s, node or Node(self.game), UNBOUNDED)
        return self.exact[key][1]

    def subtree(self, codes: np.ndarray) -> Tree:
        """An optimal subtree for ``codes`` (path-independent policy: any history)."""
        return build_tree(self.game, self.best_guess, codes=codes)

    # ------------------------------------------------------------------ search
    def solve(self, codes: np.ndarray, node: Node, bound: int) -> int:
        """``cost(codes)`` (sorted codes) when it is below ``bound``; else a lower bound
        ``>= bound``."""
        n = len(codes)
        if n <= 2:
            return 2 * n - 1
        key = codes.tobytes()
        hit = self.exact.get(key)
        if hit is not None:
            return hit[0]
        low = max(int(self.lb[n]), self.lower.get(key, 0))
        if low >= bound:
            return low
        if self.max_memo is not None and len(self.exact) + len(self.lower) > self.max_memo:
            self.exact.clear()
            self.lower.clear()
        self.nodes += 1
        if self.deadline is not None and (self.nodes & 63) == 0:
            if time.monotonic() > self.deadline:
                raise SearchTimeout
        if self.lb[n] == 2 * n - 1:
            g = perfect_consistent(self.game, codes)
            if g is not None:
                self.exact[key] = (2 * n - 1, g)
                return 2 * n - 1
        cands, fbm, counts = self._candidates(codes, node)
        bounds = n + self.lb[counts[:, 1:]].sum(axis=1)
        consistent = counts[:, 0] > 0
        order = np.lexsort((cands, ~consistent, bounds))
        best, best_g = bound, -1
        for i in order:
            if bounds[i] >= best:
                break
            g = int(cands[i])
            row = fbm[i]
            sizes = counts[i]
            fbs = [f for f in np.argsort(-sizes[1:], kind="stable") + 1 if sizes[f] > 0]
            rest = int(bounds[i]) - n
            total = n
            below = node.then(g) if self.policy == "symmetry" else node
            for f in fbs:
                rest -= int(self.lb[sizes[f]])
                total += self.solve(codes[row == f], below, best - total - rest)
                if total + rest >= best:
                    break
            else:
                best, best_g = total, g
        if best_g >= 0:
            self.exact[key] = (best, best_g)
            return best
        self.lower[key] = max(low, bound)
        return max(low, bound)

    def _candidates(self, codes: np.ndarray, node: Node):
        """One candidate per distinct partition (and, with ``symmetry``, per orbit), with
        its feedbacks (``k × n``) and part sizes (``k × F``); unhelpful guesses dropped."""
        game, f = self.game, self.game.num_feedbacks
        cands = candidates(game, codes, pool=self.pool)
        if self.policy == "symmetry":
            cands = node.stabilizer.representatives(None if self.pool == "all" else cands)
        fbm = feedback_block(game, cands, codes)
        k, n = fbm.shape
        key = fbm.astype(np.intp) + (np.arange(k, dtype=np.intp) * f)[:, None]
        flat = key.ravel()
        counts = np.bincount(flat, minlength=k * f).reshape(k, f)
        # A partition's fingerprint: two random sums per part (the win part told apart),
        # sorted per row so that the labels of the parts do not matter, then mixed.
        idx = np.flatnonzero(helpful_counts(counts, game.win))
        hashes = []
        for w in self._weights:
            sums = np.bincount(
                flat, weights=np.broadcast_to(w[codes], (k, n)).ravel(), minlength=k * f
            ).reshape(k, f)[idx]
            sums[:, 0] += 2.0 * (counts[idx, 0] > 0)
            hashes.append(np.sort(sums, axis=1) @ self._mix)
        h1, h2 = hashes
        order = np.lexsort((idx, h2, h1))  # equal fingerprints: the lowest code first
        new = np.ones(len(order), dtype=bool)
        new[1:] = (h1[order][1:] != h1[order][:-1]) | (h2[order][1:] != h2[order][:-1])
        keep = np.sort(idx[order[new]])
        return cands[keep], fbm[keep], counts[keep]


def _sorted(codes: np.ndarray) -> np.ndarray:
    return np.sort(np.asarray(codes, dtype=np.int64))


_SHARED: dict[tuple, Solver] = {}


def shared_solver(game: Game, *, pool: Pool = "all") -> Solver:
    """The process's path-independent solver for a game and pool, its memo shared by all
    callers (the evolution's operators and reference totals); memo capped."""
    key = (game.key, pool)
    if key not in _SHARED or _SHARED[key].game is not game:
        _SHARED[key] = Solver(game, policy="path-independent", pool=pool, max_memo=200_000)
    return _SHARED[key]
