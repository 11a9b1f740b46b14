"""The exact optimum of the expected case (smallest total), by branch and bound.

``cost(S)`` is the smallest total of a subtree for the code set ``S``:
``|S| + min_g sum_f cost(S_f)`` over the guesses ``g`` that help. The search is a
depth-first branch and bound:

* **Lower bound** ("perfect split"): a guess solves at most one code of its set and
  splits the rest into at most ``P`` parts (``P``: the most non-win feedbacks a guess
  can produce in this game), so at most ``P^(d-1)`` codes are solved at depth ``d``;
  filling depths greedily gives ``LB(n)``. A candidate ``g`` is bounded by
  ``|S| + sum_f LB(|S_f|)``, with its real parts.
* **Candidates**: one per orbit of the symmetries fixing the history
  (:mod:`evo.baselines.symmetry`), then one per distinct partition of ``S`` (guesses
  inducing the same partition, the win part included, have the same cost; detected by
  two fingerprints made of random real sums per part, so that a false merge would need
  two coincidences of 53-bit floats).
  They are tried by increasing bound, a consistent one first, then the lowest code.
* **Pruning**: parts are solved largest first with the budget left; a candidate is
  dropped once what it has cost so far plus the bounds of its remaining parts reaches
  the best total found. Exact costs are memoised per code set, and so are the lower
  bounds that failed searches prove.

``optimal(game, time_limit)`` refuses, before any work, a game whose estimated time is
beyond the limit, and gives up with an estimate when the limit is reached.
"""

from __future__ import annotations

import time

import numpy as np

from evo.baselines.build import Node, build_tree
from evo.baselines.lookahead import feedback_block, partition_counts, perfect_consistent
from evo.baselines.symmetry import Stabilizer
from evo.game import Game, count_codes
from evo.tree import Tree

#: Seconds measured for the whole optimum (search and tree) of games, on the machine of
#: benchmarks/RESULTS.md (2 cores, shared); the refusal extrapolates from them.
MEASURED_SECONDS: dict[tuple[str, int, int], float] = {
    ("mastermind", 3, 5): 0.05,
    ("mastermind", 5, 3): 0.12,
    ("mastermind", 3, 6): 0.17,
    ("mastermind", 4, 4): 0.23,
    ("mastermind", 3, 7): 1.6,
    ("mastermind", 7, 2): 2.2,
    ("mastermind", 4, 5): 0.9,
    ("mastermind", 3, 8): 3.0,
    ("mastermind", 5, 4): 6.7,
    ("mastermind", 4, 6): 26.7,
    ("bulls-cows", 3, 6): 0.14,
    ("bulls-cows", 3, 7): 0.29,
    ("bulls-cows", 3, 8): 1.0,
    ("bulls-cows", 4, 6): 0.94,
    ("bulls-cows", 3, 10): 4.4,
    ("bulls-cows", 4, 7): 2.7,
    ("bulls-cows", 4, 8): 328.0,
}

_GODDARD = "Goddard 2004, Mastermind revisited"
_EVO = "exact search of evo.baselines.optimal (benchmarks/RESULTS.md)"

#: Best-known optimal totals (expected case): ``(pegs, colors, variant, total, source)``.
#: Every published figure here was also found by :func:`optimal`; the others are its own.
_OPTIMA = [
    (2, 2, "mastermind", 8, _GODDARD),
    (3, 2, "mastermind", 18, _GODDARD),
    (4, 2, "mastermind", 44, _GODDARD),
    (5, 2, "mastermind", 97, _GODDARD),
    (6, 2, "mastermind", 224, _GODDARD),
    (7, 2, "mastermind", 496, _GODDARD),
    (2, 3, "mastermind", 21, _GODDARD),
    (3, 3, "mastermind", 73, _GODDARD),
    (4, 3, "mastermind", 246, _GODDARD),
    (5, 3, "mastermind", 816, _GODDARD),
    (2, 4, "mastermind", 45, _GODDARD),
    (3, 4, "mastermind", 206, _GODDARD),
    (4, 4, "mastermind", 905, _GODDARD),
    (2, 5, "mastermind", 81, _GODDARD),
    (3, 5, "mastermind", 451, _GODDARD),
    (4, 5, "mastermind", 2463, _GODDARD),
    (4, 6, "mastermind", 5625, "Koyama & Lai 1993"),
    (3, 6, "mastermind", 854, _EVO),
    (3, 7, "mastermind", 1474, _EVO),
    (3, 8, "mastermind", 2359, _EVO),
    (5, 4, "mastermind", 3954, _EVO),
    (3, 6, "bulls-cows", 436, _EVO),
    (3, 7, "bulls-cows", 836, _EVO),
    (3, 8, "bulls-cows", 1449, _EVO),
    (4, 6, "bulls-cows", 1446, _EVO),
    (3, 10, "bulls-cows", 3575, _EVO),
    (4, 7, "bulls-cows", 3639, _EVO),
    (4, 8, "bulls-cows", 7817, _EVO),
    (4, 10, "bulls-cows", 26274, "published optimum of 4-digit Bulls and Cows"),
]

#: Best-known optimal totals keyed by ``(pegs, colors, variant)``.
KNOWN_OPTIMA: dict[tuple[int, int, str], int] = {(p, c, v): t for p, c, v, t, _ in _OPTIMA}

#: Where each of :data:`KNOWN_OPTIMA` comes from.
OPTIMA_SOURCES: dict[tuple[int, int, str], str] = {(p, c, v): s for p, c, v, _, s in _OPTIMA}


#: Seconds the optimum may take when the caller gives no limit.
DEFAULT_TIME_LIMIT = 600.0


class OptimalRefused(RuntimeError):
    """The optimum cannot be computed in the time allowed; says the estimate."""

    def __init__(self, message: str, estimate_seconds: float | None = None):
        super().__init__(message)
        self.estimate_seconds = estimate_seconds
        self.name = "optimal"


class _Timeout(Exception):
    pass


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
    """Branch and bound for one game; keeps its memo across calls."""

    def __init__(self, game: Game, deadline: float | None = None, seed: int = 12345):
        self.game = game
        self.deadline = deadline
        self.parts = max_parts(game)
        self.lb = perfect_split_bounds(game.num_codes, self.parts)
        self.exact: dict[bytes, tuple[int, int]] = {}
        self.lower: dict[bytes, int] = {}
        self.nodes = 0
        rng = np.random.default_rng(seed)
        self._weights = rng.random((2, game.num_codes))
        self._mix = rng.random(game.num_feedbacks) + 1.0

    # ------------------------------------------------------------------ search
    def solve(self, codes: np.ndarray, node: Node, bound: int) -> int:
        """``cost(codes)`` when it is below ``bound``; else a lower bound ``>= bound``."""
        n = len(codes)
        if n == 1:
            return 1
        if n == 2:
            return 3
        key = codes.tobytes()
        hit = self.exact.get(key)
        if hit is not None:
            return hit[0]
        low = max(int(self.lb[n]), self.lower.get(key, 0))
        if low >= bound:
            return low
        self.nodes += 1
        if self.deadline is not None and (self.nodes & 63) == 0:
            if time.monotonic() > self.deadline:
                raise _Timeout
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
            below = node.then(g)
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
        """One candidate per symmetry orbit and distinct partition, with its feedbacks
        (``k × n``) and part sizes (``k × F``); guesses that do not help are dropped."""
        game, f = self.game, self.game.num_feedbacks
        stab = node.stabilizer
        cands = stab.representatives()
        fbm = feedback_block(game, cands, codes)
        k, n = fbm.shape
        key = fbm.astype(np.intp) + (np.arange(k, dtype=np.intp) * f)[:, None]
        flat = key.ravel()
        counts = np.bincount(flat, minlength=k * f).reshape(k, f)
        helpful = (counts[:, 0] > 0) | (counts.max(axis=1) < n)
        # A partition's fingerprint: two random sums per part (the win part told apart),
        # sorted per row so that the labels of the parts do not matter, then mixed.
        idx = np.flatnonzero(helpful)
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

    # ------------------------------------------------------------------ result
    def guess_for(self, codes: np.ndarray, node: Node) -> int:
        """The optimal guess of a code set the search has solved."""
        if len(codes) <= 2:
            return int(codes[0])
        return self.exact[codes.tobytes()][1]


def estimate_seconds(game: Game) -> float | None:
    """Seconds the optimum is expected to take: the measured time of a game in
    :data:`MEASURED_SECONDS`, else an exponential in the number of codes fitted (least
    squares on the logarithm of the time) to the three largest measured games of the
    variant; None without two."""
    key = (game.variant, game.pegs, game.colors)
    if key in MEASURED_SECONDS:
        return MEASURED_SECONDS[key]
    points = sorted(
        (count_codes(p, c, v), s) for (v, p, c), s in MEASURED_SECONDS.items() if v == game.variant
    )[-3:]
    if len(points) < 2:
        return None
    m = np.array([p[0] for p in points], dtype=float)
    t = np.log([max(p[1], 1e-3) for p in points])
    if np.ptp(m) == 0:
        return float(np.exp(t.max()))
    rate, intercept = np.polyfit(m, t, 1)
    return float(np.exp(intercept + max(float(rate), 0.0) * game.num_codes))


def optimal(game: Game, time_limit: float | None = DEFAULT_TIME_LIMIT) -> Tree:
    """The tree of smallest total. Raises :class:`OptimalRefused` (with an estimate)
    when the estimate is beyond ``time_limit`` seconds, or when the limit is reached."""
    if time_limit is not None:
        est = estimate_seconds(game)
        if est is not None and est > time_limit:
            raise OptimalRefused(
                f"refused: the exact optimum of {game.name} ({game.num_codes:,} codes) would "
                f"take about {_duration(est)}, more than the {_duration(time_limit)} allowed "
                "(--time-limit)",
                est,
            )
    start = time.monotonic()
    deadline = None if time_limit is None else start + time_limit
    solver = Solver(game, deadline)
    codes = game.all_codes().astype(np.int64)
    try:
        solver.solve(codes, Node(game), np.iinfo(np.int64).max)
    except _Timeout:
        est = estimate_seconds(game)
        more = f"; estimated {_duration(est)}" if est is not None and est > time_limit else ""
        raise OptimalRefused(
            f"gave up: the exact optimum of {game.name} ({game.num_codes:,} codes) did not "
            f"finish in the {_duration(time_limit)} allowed (--time-limit), after "
            f"{solver.nodes:,} searched nodes{more}",
            est,
        ) from None
    return build_tree(game, solver.guess_for)


def _duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.1f} s"
    if seconds < 7200:
        return f"{seconds / 60:.0f} min"
    if seconds < 2 * 86400:
        return f"{seconds / 3600:.0f} h"
    if seconds < 2 * 365 * 86400:
        return f"{seconds / 86400:.0f} days"
    return f"{seconds / (365 * 86400):.2g} years"
