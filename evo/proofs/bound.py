"""Proved lower bounds on the least total of a game (docs/DESIGN.md §5, "Lower bounds").

The optimum is ``cost(U)`` for the set ``U`` of every code, with
``cost(S) = |S| + min_g sum_f cost(S_f)`` over the guesses ``g`` that help (any code, no
limit on the worst case), ``S_f`` the parts of ``S`` other than the win. The exact
search (:mod:`evo.search.exact`) computes it; where that is out of reach, this module
proves a number that ``cost(U)`` cannot be below.

``V_d(S)``, a lower bound of ``cost(S)`` searched ``d`` levels deep:

* a set of at most ``exact_below`` codes (or two) is solved exactly (the exact search's
  :class:`~evo.search.exact.Solver`);
* ``V_0(S)`` is the least, over every guess, of ``|S|`` plus the perfect-split bounds
  ``LB`` of its parts, the floors of the kinds of guesses below it (the exact search's
  scoring, :func:`evo.search.exact_kernel.score`: its ``least``), each part of at most
  :data:`REFINE_UPTO` codes bounded by its own floor
  (:func:`evo.proofs.bound_kernel.part_floor`);
* ``V_d(S) = |S| + min_g sum_f V_(d-1)(S_f)`` otherwise, one guess per orbit of the
  symmetries that fix the history (:mod:`evo.search.symmetry`); under a rule on guesses,
  every legal guess at the set's node, none other (the memo keyed by the rule's state).

Each step only replaces a lower bound of ``cost`` by another lower bound of it, so
``V_d(S) <= cost(S)``; and ``V_d(S) = cost(S)`` once ``d`` reaches ``|S|`` (every path
of helpful guesses ends before). ``V_d`` is computed by the exact search's branch and
bound with ``V`` in place of the cost: a guess is dropped as soon as what its parts are
proved to cost reaches the least found (it cannot be the minimum); a set whose guesses
all reach a budget returns a lower bound of at least the budget, as the exact search does.

The game's bound is split into independent tasks: one per part of each first guess (one
first guess per symmetry class, :func:`part_bound`). A class is bounded by ``M + sum`` of
its parts' bounds, and the game by the least class (:class:`Bound`);
:mod:`evo.proofs.refine` schedules the tasks. A certificate lists each class and part
with the bound proved there, so that any part can be proved again alone
(:func:`check_certificate`).
"""

from __future__ import annotations

import bisect
import time
from collections.abc import Callable, Hashable, Sequence
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path
from typing import Any

import numpy as np

from evo.core.files import is_json_number
from evo.core.game import Game, game_from_spec, legal_in, rule_state, spec_key
from evo.core.tree import Tree
from evo.games.pegs import peg_game
from evo.search.build import Node
from evo.search.exact import UNBOUNDED, SearchTimeout, Solver
from evo.search.symmetry import Stabilizer

#: Code sets of at most this many codes are solved exactly by default.
EXACT_BELOW = 20

#: A part's depth when only its perfect-split bound ``LB(size)`` is known (no search).
UNSEARCHED = -1

#: A part's depth when the exact search, given its bound as budget, proved that no
#: subtree costs less (:func:`part_bound` with ``budget``): its least total is at least
#: the bound, and the search that proves it again is the exact search with that budget.
BUDGET = -2

#: Parts of at most this many codes are bounded above the perfect split in a depth-0
#: estimate (:func:`evo.proofs.bound_kernel.part_floor`: ``s^2`` feedbacks each). On
#: (4,8) at depth 2, 32 gains as much as 64 or every part.
REFINE_UPTO = 32

#: Sets of more codes than this check the deadline before they are searched (smaller
#: ones every 16 sets): a task given a few seconds ends within them.
CHECK_ABOVE = 64

#: Codes of the search that warms a worker up (:func:`warm_up`).
WARM_CODES = 24

#: Sets whose bounds a task keeps before it empties its memo (and the exact search's).
MEMO_ENTRIES = 1_000_000

#: The certificate's format, written in it.
FORMAT = "evo-bound/1"

#: The key of a certificate's seal (:mod:`evo.core.seal`): what this machine wrote.
SEAL_KEY = "seal"


class CertificateError(ValueError):
    """A certificate that does not prove what it claims: a malformed entry, a bound that
    does not follow from its parts, or a part whose bound cannot be proved again."""


# --------------------------------------------------------------------- one code set
@dataclass(frozen=True)
class Relaxed:
    """A set's floor under a narrowing rule (:meth:`Bounder.relaxed`): ``low``, and
    whether it is the set's least total under the rule (``exact``)."""

    low: int
    exact: bool


class Bounder:
    """``V_d`` of code sets of one game (the module's recursion), with a memo of the
    bounds proved so far per set. Each call's answer is a lower bound of the set's
    least total, whatever the memo holds."""

    def __init__(
        self,
        game: Game,
        *,
        exact_below: int = EXACT_BELOW,
        deadline: float | None = None,
        max_memo: int = MEMO_ENTRIES,
        refine_upto: int | None = None,
        floors: bool = True,
    ):
        if exact_below < 0:
            raise ValueError(f"exact_below must be 0 or more, not {exact_below}")
        self.game = game
        self.exact_below = exact_below
        self.deadline = deadline
        self.max_memo = max_memo
        #: The largest parts a depth-0 estimate bounds above the perfect split
        #: (:func:`evo.proofs.bound_kernel.part_floor`; 0: none).
        self.refine_upto = REFINE_UPTO if refine_upto is None else refine_upto
        #: Whether parts get their floors; else only the parts whose perfect split is
        #: ``2s - 1`` are bounded above it, by one when none of their codes tells the
        #: others apart (the cheaper rule that the gap-directed search keeps: on (5,8)
        #: a level of a part of 1,450 codes takes 6 s with it, 45 s with the floors).
        self.floors = floors
        # The exact search: its perfect-split bounds, its scoring and splitting kernels
        # and the feedback source they read, used as it uses them.
        self.solver = Solver(game, policy="symmetry", deadline=deadline, max_memo=max_memo)
        from evo.proofs.bound_kernel import kind_parts, most_parts, refined_least
        from evo.search import exact_kernel
        from evo.search.palette import identity_palette, palette

        self._score = exact_kernel.score
        self._split = exact_kernel.split
        self._most_parts = most_parts
        self._kind_parts = kind_parts
        self._refined = refined_least
        self._kinds, self._common = self.solver._kinds, self.solver._common
        # The kinds' bound reads the pegs; a game of another family has no kinds (its
        # bound is then every feedback, more than any set's parts).
        pegs = peg_game(game)
        self._pegs = game.num_feedbacks if pegs is None else pegs.pegs
        self._palette = palette
        self._identity = identity_palette(game)
        self._free: Solver | None = None
        self.lb = self.solver.lb
        self.parts = self.solver._parts
        self._game = self.solver._game
        self._all = self.solver._all
        self._source = self.solver._source
        self._nf = game.num_feedbacks
        #: A rule on guesses (Wordle's hard mode, a custom game's): each set's guesses are
        #: the legal ones at its node, its memo keyed by the rule's state too, and no
        #: symmetry used (the exact search's way with such a game).
        self._rule = game.rule is not None
        # Per number of parts p: the perfect-split bounds with p parts, and the exact
        # search's game tuple with them (its scoring reads them from there).
        self._lbs: dict[int, list[int]] = {self.parts: self.lb.tolist()}
        self._games: dict[int, tuple] = {self.parts: self._game}
        #: Per set: ``[low, depth, value]``: the best lower bound proved of its least
        #: total, and ``V_depth`` when known (depth -1: none). Sets meet again by other
        #: orders of the same guesses.
        self.memo: dict[Hashable, list[int]] = {}
        self.nodes = 0
        #: Whether a value found rests on a depth-0 estimate (the perfect splits of a
        #: set's parts). While it does not, every value found is the set's least total
        #: itself: each guess's parts were solved exactly or bounded by no less than the
        #: least found (:meth:`bound` then returns the exact value).
        self.estimated = False

    def bound(
        self, codes: np.ndarray, node: Node | None = None, *, depth: int, budget: int = UNBOUNDED
    ) -> int:
        """``V_depth(codes)`` when it is below ``budget``, else a lower bound of the
        set's least total of at least ``budget``; ``node``: the guesses that led to the
        codes (their symmetries reduce the guesses tried; None: unknown, no symmetry
        used)."""
        if depth < 0:
            raise ValueError(f"depth must be 0 or more, not {depth}")
        self._need_history(node)
        s = np.sort(np.asarray(codes, dtype=np.int64))
        return self._bound(s, node, depth, budget, self.parts)

    def relaxed(
        self,
        codes: np.ndarray,
        node: Node,
        *,
        budget: int = UNBOUNDED,
        max_guesses: int | None = None,
    ) -> Relaxed:
        """A floor of the least total of ``codes`` at ``node`` under the game's rule, which
        must narrow (:attr:`~evo.core.game.GuessRule.narrows`): the least total when every
        guess below may be any guess legal at the node (the rule's strategies are among
        those), by the compiled search; when below ``budget`` the exact least of that
        relaxation, else a floor of at least ``budget``. It is the rule's least total too
        (``exact``) when a subtree of that least plays only guesses the rule allows (the
        rule does not bind). ``max_guesses``: every code solved within that many more
        guesses (its floor; :data:`UNBOUNDED` when none can be)."""
        low, exact = self.solver.relaxed(
            np.sort(np.asarray(codes, dtype=np.int64)), node, budget, depth=max_guesses
        )
        return Relaxed(int(low), exact)

    def _need_history(self, node: Node | None) -> None:
        """Refuse a set of unknown history in a game with a rule on guesses: its legal
        guesses depend on the guesses above it."""
        if self._rule and node is None:
            raise ValueError(f"{self.game.name} has a rule on guesses: a node's history is needed")

    def _with_parts(self, p: int) -> tuple[list[int], tuple]:
        """The perfect-split bounds with at most ``p`` parts, and the game tuple of the
        exact search's kernels with them."""
        if p not in self._lbs:
            lb = _split_table(self.game.num_codes, p)
            self._lbs[p] = lb.tolist()
            game = list(self._game)
            game[5] = lb
            self._games[p] = tuple(game)
        return self._lbs[p], self._games[p]

    def _small(self, most: int) -> int:
        """The most codes whose perfect-split bound with ``most`` parts is ``2s - 1``."""
        lb = self._with_parts(most)[0]
        small = 1
        while small + 1 < len(lb) and lb[small + 1] == 2 * small + 1:
            small += 1
        return small

    def _bound(
        self, codes: np.ndarray, node: Node | None, depth: int, budget: int, most: int
    ) -> int:
        n = len(codes)
        if n <= 2:
            return 2 * n - 1
        if n <= self.exact_below:
            return self._solve(codes, node, budget)
        key: Hashable = codes.tobytes()
        if self._rule:
            assert node is not None
            # Only the legal guesses, and the memo keyed by the rule's state (the guesses
            # legal below depend on it); every guess that helps is tried (no symmetry).
            state = rule_state(self.game, node.history, int(codes[0]))
            key = (key, state)
            cands = legal_in(self.game, state)
            pal = self._identity
        elif node is None:
            cands, pal = self._all, self._identity
        else:
            cands, pal = self._all, self._palette(self.game, node.history, symmetries=True)
        if n > most + 1:
            # The most parts a guess makes of this set bounds those of its subsets too:
            # bounded from the set's kinds of codes (cheap), and counted where the
            # search branches (a pass over the guesses: not on the many sets below).
            most = int(self._kind_parts(codes, self._kinds, self._common, self._pegs, most))
            if depth > 0 and n > most + 1:
                most = int(self._most_parts(cands, codes, self._source, self._nf, most, pal))
        lb, game = self._with_parts(most)
        low = lb[n]
        hit = self.memo.get(key)
        if hit is not None:
            if hit[1] >= depth:
                return max(hit[0], hit[2])  # V at this depth or deeper: at least V_depth
            low = max(low, hit[0])
        if low >= budget:
            return low
        self.nodes += 1
        if self.deadline is not None and ((self.nodes & 15) == 0 or n > CHECK_ABOVE):
            # Every set of many codes (its scoring alone may take long), else every 16th.
            if time.monotonic() > self.deadline:
                raise SearchTimeout
        kept, bounds, biggest, least = self._score(cands, codes, budget, low, game, pal)
        if depth == 0:
            # The least over the guesses, their small parts bounded by their floors (or,
            # without floors, counted one up where no code tells the others apart).
            self.estimated = True
            value = int(least)
            upto, common = self.refine_upto, self._common
            if not self.floors:
                # The one-up rule is the floor of the parts whose perfect split is 2s - 1,
                # with no kinds (an empty table of common colors: ``m`` stays ``most``).
                upto, common = self._small(most), self._common[:0]
            if len(kept) and value < budget:
                value = int(
                    self._refined(
                        cands,
                        kept,
                        bounds,
                        codes,
                        self._source,
                        self._nf,
                        game[5],
                        most,
                        upto,
                        budget,
                        self._kinds,
                        common,
                        self._pegs,
                    )
                )
            value = max(low, value)
            self._remember(key, value, depth if value < budget else -1)
            return value
        best, found = budget, False
        seen: set[bytes] = set()
        for i, b, big in zip(kept.tolist(), bounds.tolist(), biggest.tolist()):
            if b >= best:
                break
            if big <= 2:
                # Parts of one or two codes cost exactly their bound, the least left.
                best, found = b, True
                break
            g = int(cands[i])
            grouped, sizes, label = self._split(self._source, g, codes, codes, self._nf)
            mark = label.tobytes()
            if mark in seen:
                continue  # the same partition as a guess tried: the same bound
            if not self._rule:  # under a rule, the guess changes the legal guesses below
                seen.add(mark)
            total = n
            parts = []
            pos = 0
            for size in sizes.tolist():
                if size <= 2:
                    total += 2 * size - 1
                else:
                    parts.append((grouped[pos : pos + size], lb[size]))
                pos += size
            rest = sum(p[1] for p in parts)
            if total + rest >= best:
                continue
            below = None if node is None else node.then(g)
            for part, part_low in parts:
                rest -= part_low
                total += self._bound(part, below, depth - 1, best - total - rest, most)
                if total + rest >= best:
                    break
            else:
                best, found = total, True
        value = best if found else max(low, budget, int(least))
        self._remember(key, value, depth if found else -1)
        return value

    def _remember(self, key: Hashable, value: int, depth: int) -> None:
        """Record a lower bound proved of a set, and that it is ``V_depth`` (depth -1:
        only a lower bound, the search stopped at its budget)."""
        hit = self.memo.get(key)
        if hit is None:
            if len(self.memo) >= self.max_memo:
                self.memo.clear()
            self.memo[key] = [value, depth, value]
            return
        hit[0] = max(hit[0], value)
        if depth > hit[1]:
            hit[1], hit[2] = depth, value

    def exact(self, codes: np.ndarray, node: Node | None = None, *, budget: int = UNBOUNDED) -> int:
        """The least total of ``codes`` (the exact search) when below ``budget``, else a
        lower bound of it of at least ``budget``; ``node`` as for :meth:`bound`."""
        self._need_history(node)
        return self._solve(np.sort(np.asarray(codes, dtype=np.int64)), node, budget)

    def _solve(self, codes: np.ndarray, node: Node | None, budget: int) -> int:
        """The exact search's ``solve``: with the symmetries of ``node``'s history, or,
        when it is unknown, none (its path-independent policy)."""
        if node is not None:
            return self.solver.solve(codes, node, budget)
        if self._free is None:
            self._free = Solver(
                self.game, policy="path-independent", deadline=self.deadline, max_memo=self.max_memo
            )
        return self._free.solve(codes, Node(self.game), budget)


def set_bound(
    game: Game,
    codes: np.ndarray,
    *,
    history: Sequence[int] | None = None,
    depth: int | None = None,
    exact_below: int = EXACT_BELOW,
) -> int:
    """A proved lower bound of the least total of a subtree for ``codes``, reached by the
    guesses of ``history`` (None: unknown, and no symmetry is used; ``()`` means every
    code): ``V_depth`` (see the module); ``depth=None``: the least total itself (the
    exact search)."""
    bounder = Bounder(game, exact_below=exact_below)
    node = None if history is None else Node.after(game, tuple(int(g) for g in history))
    if depth is None:
        return bounder.exact(codes, node)
    return bounder.bound(codes, node, depth=depth)


# --------------------------------------------------------------------- one task
def first_guess_part(game: Game, guess: int, feedback: int) -> np.ndarray:
    """The codes that answer ``feedback`` to the first guess ``guess``, ascending."""
    fb = game.feedback_row(int(guess))
    return np.flatnonzero(fb == feedback).astype(np.int64)


@dataclass(frozen=True)
class PartResult:
    """What a task proved of a part: its ``bound`` (None: the time ran out first), the
    depth it holds at (``None``: the part's least total itself, either solved exactly
    or searched to a depth that never used an estimate; :data:`BUDGET`: the exact search
    reached its budget), and the task's ``seconds``."""

    bound: int | None
    depth: int | None
    seconds: float


def part_bound(
    game: Game,
    guess: int,
    feedback: int,
    depth: int | None,
    *,
    exact_below: int = EXACT_BELOW,
    seconds: float | None = None,
    budget: int = UNBOUNDED,
    floors: bool = True,
) -> PartResult:
    """A task: the bound of the part of the codes that answer ``feedback`` to the first
    guess ``guess``: its perfect-split bound (depth :data:`UNSEARCHED`), ``V_depth``
    (depth 0 or more; the least total itself when no estimate was used), or (``None``)
    the exact search's: the least total when below ``budget``, else a bound of at least
    ``budget`` (depth :data:`BUDGET`: the search dropped every guess there, which is
    far quicker than solving a part that costs more); bound None when ``seconds`` ran
    out first. A pure function of its arguments: ``V_depth`` with a fresh memo; the exact
    search in the process's memo (:func:`_kept_bounder`), which holds only facts.
    ``floors``: :attr:`Bounder.floors` of ``V_depth``."""
    start = time.monotonic()
    codes = first_guess_part(game, guess, feedback)
    n = len(codes)
    if n <= 2:
        return PartResult(2 * n - 1, None, time.monotonic() - start)
    if depth == UNSEARCHED:
        return PartResult(perfect_split(game, n), UNSEARCHED, time.monotonic() - start)
    deadline = None if seconds is None else start + seconds
    node = Node.after(game, (int(guess),))
    try:
        if depth is None:
            bounder = _kept_bounder(game, exact_below)
            bounder.solver.deadline = deadline
            value = bounder.exact(codes, node, budget=budget)
        else:
            bounder = Bounder(game, exact_below=exact_below, deadline=deadline, floors=floors)
            value = bounder.bound(codes, node, depth=depth)
    except SearchTimeout:
        return PartResult(None, depth, time.monotonic() - start)
    seconds = time.monotonic() - start
    if depth is None:
        return PartResult(int(value), None if value < budget else BUDGET, seconds)
    exact = n <= exact_below or not bounder.estimated
    return PartResult(int(value), None if exact else depth, seconds)


@lru_cache(maxsize=2)
def _kept_bounder(game: Game, exact_below: int) -> Bounder:
    """The bounder whose exact search a process keeps from task to task: its memo holds
    only what was proved of code sets (least totals, bounds), true whatever the task, so
    one part's sets serve another's. A search tried again after running out gains little
    from it (measured on (4,8)'s largest part of 1123: 7.0 s on the last try, 7.7 s anew)."""
    return Bounder(game, exact_below=exact_below)


def warm_up(game: Game) -> None:
    """Load in this process what the tasks use (their kernels from numba's cache, the
    perfect-split table): a search of each kind on a few codes, its answer dropped."""
    first = first_guess_classes(game)[0][0]  # a legal first guess
    fb = game.feedback_row(first)
    part = np.flatnonzero(fb == np.bincount(fb, minlength=game.num_feedbacks).argmax())
    codes = part[:WARM_CODES].astype(np.int64)
    node = Node.after(game, (first,))
    bounder = Bounder(game, exact_below=2)
    bounder.bound(codes, node, depth=1)
    bounder.exact(codes[:5], node)
    perfect_split(game, len(part))
    first_guess_classes(game)


def perfect_split(game: Game, n: int) -> int:
    """``LB(n)``, the exact search's perfect-split bound of ``n`` codes (exact up to two)."""
    if n <= 2:
        return 2 * n - 1
    return int(_perfect_split_table(game)[n])


@lru_cache(maxsize=64)
def _split_table(n_max: int, parts: int) -> np.ndarray:
    """The exact search's perfect-split bounds ``LB[0 .. n_max]`` with ``parts`` parts,
    computed once per process (a second for (6,8)'s 262,144 codes)."""
    from evo.search.exact import perfect_split_bounds

    return perfect_split_bounds(n_max, parts)


@lru_cache(maxsize=8)
def _perfect_split_table(game: Game) -> np.ndarray:
    from evo.search.exact import max_parts

    return _split_table(game.num_codes, max_parts(game))


# --------------------------------------------------------------------- the whole game
@dataclass
class PartBound:
    """A part of a first guess: the codes answering ``feedback``, their number, and the
    bound proved on their least total: at ``depth`` (:data:`UNSEARCHED`: the perfect
    split alone; ``None``: exactly, their least total; :data:`BUDGET`: by the exact
    search, which found no subtree below it)."""

    feedback: int
    size: int
    bound: int
    depth: int | None
    #: The seconds of the part's last task (the longest of those that ran out since).
    seconds: float = 0.0
    #: An upper bound of the part's least total (a breaker's subtree on it, or the bound
    #: once exact), None: none known. Not proved here: it orders the refinement and says
    #: the gap, and is no part of the certificate's proof.
    upper: int | None = None
    #: The deepest level ``V_d`` the part was bounded at, whatever proves its bound now
    #: (a part proved by the budget keeps the level it had reached): its next level is
    #: one deeper. A hint of where to go on, no part of the proof.
    level: int = UNSEARCHED

    def __post_init__(self) -> None:
        if self.depth is not None and self.depth > self.level:
            self.level = self.depth

    @property
    def reached(self) -> int | None:
        """The part's depth, a level for its level (None: solved; :data:`BUDGET`)."""
        return self.depth if self.depth is None or self.depth == BUDGET else self.level

    @property
    def exact(self) -> bool:
        return self.depth is None or self.size <= 2

    @property
    def closed(self) -> bool:
        """Whether the bound reached the upper: the part's least total is known (some
        subtree costs it), though its certificate entry keeps the depth it was proved at."""
        return self.exact or (self.upper is not None and self.bound >= self.upper)

    @property
    def gap(self) -> int | None:
        """``upper - bound`` (None without an upper)."""
        return None if self.upper is None else self.upper - self.bound


@dataclass
class ClassBound:
    """One first guess per symmetry class (``orbit`` first guesses alike) and the bounds
    of its parts: every first guess of the class costs at least :attr:`total`."""

    guess: int
    orbit: int
    codes: int
    parts: list[PartBound]

    @property
    def total(self) -> int:
        return self.codes + sum(p.bound for p in self.parts)

    @property
    def upper(self) -> int | None:
        """The class's upper bound, ``codes + sum`` of its parts' uppers (None unless
        every part has one): a first guess of the class and subtrees that cost that."""
        if any(p.upper is None for p in self.parts):
            return None
        return self.codes + sum(int(p.upper or 0) for p in self.parts)

    @property
    def depth(self) -> int | None:
        """The depth of the shallowest part (``None``: every part exact)."""
        depths = [p.depth for p in self.parts if p.depth not in (None, BUDGET) and not p.exact]
        return min(depths) if depths else None


@dataclass
class Bound:
    """A proved lower bound of a game's least total, and how it was proved."""

    game: Game
    lower_bound: int
    classes: list[ClassBound]
    exact_below: int
    seconds: float
    #: Whether the bound is the optimum (the least class solved exactly).
    optimal: bool
    #: The depth of the least class (root levels searched: its parts' depth + 1).
    depth: int | None
    tasks: int = 0
    #: ``(seconds, lower bound, upper bound or None)`` each time one of them changed.
    history: list[tuple[float, int, int | None]] = field(default_factory=list)
    #: The least upper bound known (the least class upper, a breaker's total), or None.
    upper: int | None = None

    @property
    def gap(self) -> float | None:
        """``(upper - lower) / upper`` in percent (None without an upper): how far the
        best breaker known can be from optimal, at most."""
        return None if self.upper is None else gap_percent(self.lower_bound, self.upper)

    def to_json(self) -> dict[str, Any]:
        """The certificate (see :func:`check_certificate`), sealed by this machine's key
        (:func:`certificate_sealed`)."""
        from evo.core.seal import seal

        body = self._body()
        return {**body, SEAL_KEY: seal(body)}

    def _body(self) -> dict[str, Any]:
        g = self.game
        return {
            "format": FORMAT,
            "game": g.spec,
            "codes": g.num_codes,
            "lower_bound": self.lower_bound,
            "optimal": self.optimal,
            "depth": self.depth,
            "exact_below": self.exact_below,
            "seconds": round(self.seconds, 3),
            "tasks": self.tasks,
            "history": [
                [round(t, 3), v] if u is None else [round(t, 3), v, u] for t, v, u in self.history
            ],
            "upper": self.upper,
            "gap": None if self.gap is None else round(self.gap, 4),
            "rule": "lower_bound = min over classes of (codes + sum of the bounds of its parts); "
            "the orbits of the classes' guesses cover every code once",
            "classes": [
                {
                    "guess": g.format_code(c.guess),
                    "orbit": c.orbit,
                    "total": c.total,
                    **({} if c.upper is None else {"upper": c.upper}),
                    "parts": [
                        {
                            "feedback": g.format_feedback(p.feedback),
                            "size": p.size,
                            "bound": p.bound,
                            "depth": depth_name(p.depth),
                            **_level_entry(p),
                            "seconds": round(p.seconds, 3),
                            **({} if p.upper is None else {"upper": p.upper}),
                        }
                        for p in c.parts
                    ],
                }
                for c in self.classes
            ],
        }


def gap_percent(lower: int, upper: int) -> float:
    """The gap between a lower and an upper bound, in percent of the upper (a MIP
    solver's relative gap): at most this far is the upper from the optimum."""
    return 100.0 * (upper - lower) / upper


@dataclass(frozen=True)
class Uppers:
    """Upper bounds of first guesses' parts, in the unit of the parts' lower bounds (a
    subtree's total on the part, from its node: each code's guesses after the first):
    ``parts[guess][feedback]``, ``guess`` the lowest code of its class; and
    ``total``, the least total of a whole breaker known (None: none)."""

    parts: dict[int, dict[int, int]]
    total: int | None = None

    def merged(self, other: Uppers) -> Uppers:
        """The least of both per part, and the least total."""
        parts = {g: dict(fs) for g, fs in self.parts.items()}
        for g, fs in other.parts.items():
            mine = parts.setdefault(g, {})
            for f, u in fs.items():
                mine[f] = min(u, mine.get(f, u))
        totals = [t for t in (self.total, other.total) if t is not None]
        return Uppers(parts, min(totals) if totals else None)


def tree_uppers(tree: Tree) -> Uppers:
    """A breaker's upper bounds: its total, and on each part of its first guess its
    subtree's total counted from the part's node (:meth:`Tree.subtree_totals`: the
    first guess is counted once for every code, by the class total ``codes + sum of
    parts``, as by the parts' lower bounds). The symmetries of the game
    keep every feedback, so the parts of the first guess's class's lowest code are the
    images of its parts, with the same least totals: the uppers are filed under that
    code and the same feedbacks."""
    game = tree.game
    if tree.num_codes != game.num_codes:
        raise ValueError(f"the tree solves {tree.num_codes} codes, not the game's {game.num_codes}")
    guess = class_guess(game, int(tree.guess[0]))
    totals = tree.subtree_totals()
    parts = {int(f): int(totals[node]) for f, node in tree.children(0).items() if f != game.win}
    return Uppers({guess: parts}, tree.total)


def lookahead_uppers(
    game: Game,
    *,
    heuristic: str = "entropy",
    first: int | None = None,
    guesses: Sequence[int] | None = None,
    until: float | None = None,
) -> Uppers:
    """Cheap upper bounds for every class (only that of first guess ``first`` when
    given; only the classes of ``guesses``, lowest codes of theirs, when given): per
    class, the one-step ``heuristic`` tree that opens with the class's guess
    (:func:`tree_uppers` of it). Seconds on (4,8); :func:`lookahead_plan` says which
    classes are worth it within a limit of work. ``until``: a :func:`time.monotonic`
    time after which no tree is begun (the classes left get no uppers)."""
    from evo.search.build import build_tree
    from evo.search.lookahead import lookahead_player

    player = lookahead_player(game, heuristic)
    out = Uppers({})
    if guesses is not None:
        every = [int(g) for g in guesses]
    elif first is None:
        every = [g for g, _ in first_guess_classes(game)]
    else:
        every = [first_guess_class(game, first)[0]]
    for guess in every:
        if until is not None and time.monotonic() >= until:
            break

        def choose(codes: np.ndarray, node: Node, guess: int = guess) -> int:
            return guess if not node.history else player(codes, node)

        out = out.merged(tree_uppers(build_tree(game, choose, as_written=True)))
    return out


#: The work of the one-step trees :func:`against_uppers` builds for the first guesses'
#: classes, at most: a tree's work is the game's guesses times its codes, summed over
#: the trees (built here at about 2e8 a second: Wordle's 3.0e7 a tree in 0.16 s, (5,8)'s
#: 1.07e9 in 4.3 s). So about 6 s: every class of (4,8), the first of (5,8), Wordle's 40
#: classes of least depth-0 bound (of 12,972: all of them took 35 minutes), none of
#: (6,8)'s (6.9e10 a tree). The other classes are refined without uppers.
LOOKAHEAD_WORK = 1_200_000_000

#: The seconds :func:`against_uppers` spends on one-step trees at most (:func:`evo.bound`:
#: without --seconds; with it, a twentieth of it), whatever their
#: work (a loaded machine builds them several times slower): the classes left get none.
LOOKAHEAD_SECONDS = 10.0

#: With a time limit (``--seconds``), the share of it the one-step trees may take before
#: the clock (Wordle's 60 s: 3 s, about 20 trees here; (5,8)'s 1,200 s: its 7 trees).
LOOKAHEAD_SHARE = 0.05

#: The work units (guesses x codes) a one-step tree's building does in a second here,
#: for :attr:`LookaheadPlan.seconds` (an estimate: a loaded machine takes longer).
LOOKAHEAD_RATE = 2e8


@dataclass(frozen=True)
class LookaheadPlan:
    """Which first guesses' classes get a one-step tree's uppers (:func:`lookahead_plan`):
    ``guesses`` (the lowest code of each class, the least depth-0 bound first), out of
    ``wanted`` classes that could use one (those whose depth-0 bound is below the
    breaker's total), and the ``work`` (guesses x codes summed) they take."""

    guesses: list[int]
    wanted: int
    work: float

    @property
    def seconds(self) -> float:
        """The seconds the trees are estimated to take (at :data:`LOOKAHEAD_RATE`)."""
        return self.work / LOOKAHEAD_RATE

    @property
    def left(self) -> int:
        """The classes that could use uppers and get none (beyond the work allowed)."""
        return self.wanted - len(self.guesses)


def opening_bounds(game: Game, guesses: Sequence[int]) -> np.ndarray:
    """The depth-0 bound of each first guess of ``guesses``: the game's codes plus the
    perfect splits of the guess's parts (what :func:`_initial_classes` gives its class,
    in one vectorized pass per guess)."""
    table = _perfect_split_table(game)
    out = np.empty(len(guesses), dtype=np.int64)
    for i, g in enumerate(guesses):
        sizes = np.bincount(game.feedback_row(int(g)), minlength=game.num_feedbacks)
        sizes[game.win] = 0
        out[i] = game.num_codes + int(table[sizes].sum())
    return out


def lookahead_plan(
    game: Game,
    *,
    first: int | None = None,
    below: int | None = None,
    work: float = LOOKAHEAD_WORK,
) -> LookaheadPlan:
    """The classes of first guesses whose one-step trees fit within ``work`` (guesses x
    codes per tree, summed): those of least depth-0 bound first (the ones a bound meets
    first as its least class), only those below ``below`` (a breaker's total: a class
    bounded at it or above never lowers the bound under the breaker), only ``first``'s
    class when given."""
    if first is not None:
        every = [first_guess_class(game, first)[0]]
    else:
        every = [g for g, _ in first_guess_classes(game)]
    bounds = opening_bounds(game, every)
    order = np.argsort(bounds, kind="stable")
    if below is not None:
        order = order[bounds[order] < below]
    each = float(game.num_guesses) * game.num_codes
    room = int(work // each) if each > 0 else len(order)
    chosen = [int(every[i]) for i in order[:room]]
    return LookaheadPlan(chosen, len(order), each * len(chosen))


def against_uppers(
    breaker: Tree,
    *,
    first: int | None = None,
    work: float = LOOKAHEAD_WORK,
    plan: LookaheadPlan | None = None,
    seconds: float | None = LOOKAHEAD_SECONDS,
) -> Uppers:
    """The uppers of a bound against ``breaker`` (``--against``): its subtrees on its
    first guess's parts, and on other classes' (only ``first``'s class's when given)
    the one-step entropy trees' (:func:`lookahead_uppers`) of ``plan``, by default
    :func:`lookahead_plan` within ``work``: the classes of least depth-0 bound below the
    breaker's total, begun within ``seconds`` (None: all of them). The other classes
    are refined without uppers."""
    mine = tree_uppers(breaker)
    game = breaker.game
    if plan is None:
        below = breaker.total if first is None else None
        plan = lookahead_plan(game, first=first, below=below, work=work)
    if not plan.guesses:
        return mine
    until = None if seconds is None else time.monotonic() + seconds
    return mine.merged(lookahead_uppers(game, guesses=plan.guesses, until=until))


def first_guess_classes(game: Game) -> list[tuple[int, int]]:
    """``(guess, orbit size)`` of each symmetry class of first guesses: the lowest code
    of each orbit of the game's automorphisms and how many codes the orbit has; then
    each guess that is not a code (Wordle's, a custom game's) as a class of its own, for
    an optimal tree may open with one (the bound would otherwise be too high). Under a
    rule on guesses, each legal first guess alone (the rule may tell guesses apart that
    a symmetry maps to each other)."""
    if game.rule is not None:
        return [(int(g), 1) for g in legal_in(game, game.rule.start())]
    stab = Stabilizer.root(game)
    canon = stab.canonical(game.all_codes())
    reps, counts = np.unique(canon, return_counts=True)
    classes = [(int(r), int(c)) for r, c in zip(reps, counts)]
    return classes + [(g, 1) for g in range(game.num_codes, game.num_guesses)]


def first_guess_class(game: Game, guess: int) -> tuple[int, int]:
    """``(lowest guess, orbit size)`` of the class of first guess ``guess`` (one of
    :func:`first_guess_classes`)."""
    if not 0 <= int(guess) < game.num_guesses:
        raise ValueError(f"guess {guess} is not one of the game's {game.num_guesses} guesses")
    low = class_guess(game, int(guess))
    found = next(((g, o) for g, o in first_guess_classes(game) if g == low), None)
    if found is None:
        raise ValueError(f"guess {guess} is not a legal first guess of {game.name}")
    return found


def class_guess(game: Game, guess: int) -> int:
    """The guess that stands for ``guess``'s first-guess class: the lowest code of its
    orbit under the game's automorphisms; a guess that is not a code is its own class."""
    if guess >= game.num_codes or game.rule is not None:
        return guess
    return int(Stabilizer.root(game).canonical(np.array([guess], dtype=np.int64))[0])


def _initial_classes(game: Game, first: int | None = None) -> list[ClassBound]:
    """Every class (only that of first guess ``first`` when given) with its parts
    bounded by the perfect split alone."""
    out = []
    every = first_guess_classes(game) if first is None else [first_guess_class(game, first)]
    for guess, orbit in every:
        fb = game.feedback_row(guess)
        sizes = np.bincount(fb, minlength=game.num_feedbacks)
        parts = [
            PartBound(f, int(s), perfect_split(game, int(s)), UNSEARCHED if s > 2 else None)
            for f, s in enumerate(sizes.tolist())
            if f != game.win and s > 0
        ]
        if len(parts) == 1 and sizes[game.win] == 0:
            continue  # a first guess that tells nothing is never in an optimal tree
        out.append(ClassBound(guess, orbit, game.num_codes, parts))
    return out


# --------------------------------------------------------------------- certificates
#: The compact format: each class's ``parts`` an object of arrays, one per key of a
#: part's object in :data:`FORMAT`, entry ``i`` of each that of part ``i`` (``null``: the
#: part has no such key). Wordle's 12,972 classes hold 1.1 million parts: an object each
#: took 127 MB, 2.1 GB of memory and 51 s at depth 0, the arrays 31 MB, 0.8 GB and 18 s.
COLUMNS_FORMAT = "evo-bound/2"

#: A certificate of more parts than this is written in :data:`COLUMNS_FORMAT`; smaller
#: ones (every Mastermind game's: a few hundred parts) one object per part, read by eye.
COLUMNS_ABOVE = 10_000

#: The columns of :data:`COLUMNS_FORMAT`: those every class has, then those it may have.
NEEDED_COLUMNS = ("feedback", "size", "bound", "depth")
COLUMNS = (*NEEDED_COLUMNS, "level", "seconds", "upper")


def certificate_document(bound: Bound, *, columns: bool | None = None) -> dict[str, Any]:
    """The bound's certificate, sealed by this machine's key: one object per part
    (:meth:`Bound.to_json`), or (``columns``; None: when it has more than
    :data:`COLUMNS_ABOVE` parts) each class's parts as arrays (:data:`COLUMNS_FORMAT`),
    the seal over that layout."""
    from dataclasses import replace

    from evo.core.seal import seal

    if columns is None:
        columns = sum(len(c.parts) for c in bound.classes) > COLUMNS_ABOVE
    if not columns:
        return bound.to_json()
    g = bound.game
    labels = [g.format_feedback(f) for f in range(g.num_feedbacks)]
    body = replace(bound, classes=[])._body()  # the entries besides the classes
    body["format"] = COLUMNS_FORMAT
    body["classes"] = [
        {
            "guess": g.format_code(c.guess),
            "orbit": c.orbit,
            "total": c.total,
            **({} if c.upper is None else {"upper": c.upper}),
            "parts": _columns(c.parts, labels),
        }
        for c in bound.classes
    ]
    return {**body, SEAL_KEY: seal(body)}


def _columns(parts: list[PartBound], labels: list[str]) -> dict[str, list]:
    """A class's parts as :data:`COLUMNS_FORMAT` writes them: each key of their objects
    in :meth:`Bound.to_json` an array (``level`` and ``upper`` when some part has one)."""
    out: dict[str, list] = {
        "feedback": [labels[p.feedback] for p in parts],
        "size": [p.size for p in parts],
        "bound": [p.bound for p in parts],
        "depth": [depth_name(p.depth) for p in parts],
        "seconds": [round(p.seconds, 3) for p in parts],
    }
    levels = [_level_entry(p).get("level") for p in parts]
    if any(v is not None for v in levels):
        out["level"] = levels
    if any(p.upper is not None for p in parts):
        out["upper"] = [p.upper for p in parts]
    return out


def write_certificate(bound: Bound, path: str | Path, *, columns: bool | None = None) -> Path:
    """Write the bound's certificate (:func:`certificate_document`, ``columns`` as there)
    as JSON, atomically; gzip-compressed when ``path`` ends in ``.gz`` (Wordle's: 3.8 MB
    where its plain arrays take 31 MB)."""
    from evo.core.files import atomic_write_json

    doc = certificate_document(bound, columns=columns)
    gz = Path(path).name.lower().endswith(".gz")
    # One line unless read by eye: indenting a big one takes the pure-Python encoder.
    indent = None if gz or doc["format"] == COLUMNS_FORMAT else 1
    return atomic_write_json(path, doc, indent=indent, compress=gz)


def read_certificate(path: str | Path) -> dict[str, Any]:
    """A certificate file's content, gzip-compressed or not, as written (either format:
    :func:`check_certificate` and the others read both); a one-line
    :class:`CertificateError` when it is not one."""
    from evo.core.files import decode_text, gunzip, parse_json, read_bytes

    what = "bound certificate"
    raw = read_bytes(path, what=what, error=CertificateError)
    if raw[:2] == b"\x1f\x8b":
        raw = gunzip(raw, path=path, what=what, error=CertificateError)
    text = decode_text(raw, path=path, what=what, error=CertificateError)
    data = parse_json(text, where=str(path), error=CertificateError)
    if not isinstance(data, dict) or data.get("format") not in (FORMAT, COLUMNS_FORMAT):
        raise CertificateError(
            f"{path}: not a bound certificate (format {FORMAT!r} or {COLUMNS_FORMAT!r})"
        )
    return data


def _expanded(data: Any) -> Any:
    """A certificate with each class's parts one object each, as :data:`FORMAT` holds
    them: ``data`` itself in that format; in :data:`COLUMNS_FORMAT` a copy whose parts are
    built from the columns (part ``i`` has the key of each column whose entry ``i`` is
    not null), or a :class:`CertificateError` naming the class whose columns are not."""
    if not isinstance(data, dict) or data.get("format") != COLUMNS_FORMAT:
        return data
    classes = _field(data, "classes", list)
    rows = [_class_rows(c, f"class {ci}") for ci, c in enumerate(classes)]
    return {**data, "format": FORMAT, "classes": rows}


def _class_rows(c: Any, where: str) -> dict[str, Any]:
    """A class of :data:`COLUMNS_FORMAT` with its parts as objects (see :func:`_expanded`)."""
    cols = _field(c, "parts", dict)
    for key, column in cols.items():
        if key not in COLUMNS:
            raise CertificateError(
                f"{where}: {key!r} is not a column of parts ({', '.join(COLUMNS)})"
            )
        if not isinstance(column, list):
            raise CertificateError(f"{where}: the parts' {key} {column!r} is not an array")
    for key in NEEDED_COLUMNS:
        if key not in cols:
            raise CertificateError(f"{where}: the parts have no column {key!r}")
    if len({len(column) for column in cols.values()}) != 1:
        raise CertificateError(f"{where}: the parts' columns are not of one length")
    keys = list(cols)
    parts = [{k: v for k, v in zip(keys, entry) if v is not None} for entry in zip(*cols.values())]
    return {**c, "parts": parts}


def certificate_sealed(data: dict[str, Any]) -> bool:
    """Whether a certificate is as this machine wrote it (its seal holds): its parts'
    bounds were proved here and can be gone on from without proving them again."""
    from evo.core.seal import is_sealed

    body = {k: v for k, v in data.items() if k != SEAL_KEY}
    return is_sealed(body, data.get(SEAL_KEY))


@dataclass(frozen=True)
class CertificateCheck:
    """What a check of a certificate found: its game, its bound (which follows from its
    entries), the parts proved again (their flat indices) and what was proved of each."""

    game: Game
    lower_bound: int
    parts: int
    proved: tuple[int, ...]
    results: tuple[PartResult, ...] = ()


def certificate_parts(data: dict[str, Any]) -> list[tuple[int, int, dict[str, Any]]]:
    """``(class index, part index, entry)`` of every part, in the flat order that
    ``--part K`` numbers them (either format: the entry is the part's object)."""
    data = _expanded(data)
    out = []
    for ci, c in enumerate(_field(data, "classes", list)):
        for pi, p in enumerate(_field(c, "parts", list)):
            out.append((ci, pi, p))
    return out


def certificate_game(data: dict[str, Any]) -> tuple:
    """The key of a certificate's game (:func:`evo.core.game.spec_key`), any game evo
    names: ``(pegs, colors, variant)`` for the Mastermind family, ``("wordle",)`` or
    ``("wordle-hard",)``, ``("custom", name, digest)``."""
    g = _field(data, "game", dict)
    try:
        return spec_key(g)
    except ValueError as e:
        raise CertificateError(f"game: {e}") from None


def certificate_classes(
    data: dict[str, Any], game: Game, *, exact_below: int = EXACT_BELOW
) -> list[ClassBound]:
    """The classes and parts of a certificate of ``game`` whose parts were proved with
    ``exact_below``, to go on from; checked as :func:`check_certificate` does, without
    proving the parts again."""
    data = _expanded(data)
    _, read = _checked(data, prove=False, game=game)
    if data["exact_below"] != exact_below:
        raise CertificateError(
            f"exact_below: the certificate's parts were proved with {data['exact_below']}, "
            f"not {exact_below}"
        )
    return [
        ClassBound(
            guess,
            orbit,
            game.num_codes,
            [PartBound(f, n, b, d, s, level=level) for f, n, b, d, s, level in rows],
        )
        for guess, orbit, rows in read
    ]


def _certificate_run(
    data: dict[str, Any],
) -> tuple[float, int, list[tuple[float, int, int | None]]]:
    """``(seconds, tasks, history)`` of the search that wrote a certificate; an entry of
    the history is ``[seconds, bound]``, or ``[seconds, bound, upper]`` (upper at least
    the bound) when the search had an upper bound."""
    seconds = data.get("seconds")
    if not is_json_number(seconds) or seconds < 0:
        raise CertificateError(f"seconds: {seconds!r} is not a number of seconds")
    tasks = _field(data, "tasks", int)
    history: list[tuple[float, int, int | None]] = []
    for entry in _field(data, "history", list):
        if (
            not isinstance(entry, list)
            or len(entry) not in (2, 3)
            or not all(map(is_json_number, entry))
            or (len(entry) == 3 and entry[2] < entry[1])
        ):
            raise CertificateError(f"history: {entry!r} is not [seconds, bound(, upper)]")
        history.append((float(entry[0]), int(entry[1]), None if len(entry) == 2 else int(entry[2])))
    return float(seconds), tasks, history


def check_certificate(
    data: dict[str, Any],
    *,
    part: int | None = None,
    prove: bool = True,
    game: Game | None = None,
) -> CertificateCheck:
    """Check a certificate: its classes are one first guess per symmetry class (the
    orbits cover every code), each class's parts are that guess's parts, the bound is
    ``min over classes of (codes + sum of its parts' bounds)``, and (``prove``) each
    part's bound is proved again (only part ``part``, a flat index, when given). Either
    format (:data:`FORMAT`, :data:`COLUMNS_FORMAT`). ``game``: the certificate's game,
    made by the caller (with its memory budget and cache; a custom game must be given);
    by default made here. Raises :class:`CertificateError` at the first thing that does
    not hold."""
    return _checked(data, part=part, prove=prove, game=game)[0]


#: A part as a check reads it: ``(feedback, size, bound, depth, seconds, level)``.
PartRow = tuple[int, int, int, int | None, float, int]


def _checked(
    data: dict[str, Any],
    *,
    part: int | None = None,
    prove: bool = True,
    game: Game | None = None,
) -> tuple[CertificateCheck, list[tuple[int, int, list[PartRow]]]]:
    """:func:`check_certificate`, and what it read of each class: ``(guess, orbit,
    parts)`` (read once: Wordle's 1.1 million parts take seconds)."""
    data = _expanded(data)
    game = _certificate_of(data, game)
    exact_below = _field(data, "exact_below", int)
    top = max(game.num_codes, EXACT_BELOW)  # a small game's sets are all below the default
    if not 0 <= exact_below <= top:
        raise CertificateError(
            f"exact_below: {exact_below} is not a number of codes from 0 to {top}"
        )
    expected = {g: o for g, o in first_guess_classes(game)}
    classes = _field(data, "classes", list)
    seen: set[int] = set()
    totals = []
    read = []
    parse = _feedback_reader(game)
    for ci, c in enumerate(classes):
        guess, total, rows = _class_total(game, c, f"class {ci}", expected, parse)
        if guess in seen:
            raise CertificateError(f"class {ci}: the class of {c['guess']} is listed twice")
        seen.add(guess)
        totals.append(total)
        read.append((guess, c["orbit"], rows))
    for g in set(expected) - seen:
        # A class left out must be one that tells nothing (never in an optimal tree).
        sizes = np.bincount(game.feedback_row(g), minlength=game.num_feedbacks)
        if not (sizes[game.win] == 0 and np.count_nonzero(sizes) == 1):
            raise CertificateError(f"the class of {game.format_code(g)} is missing")
    if not totals:
        raise CertificateError("no class")
    claimed = _field(data, "lower_bound", int)
    if claimed != min(totals):
        raise CertificateError(f"lower_bound {claimed} is not the least class total {min(totals)}")
    _upper_at_least(data, claimed, "upper")
    gap = data.get("gap")
    upper = data.get("upper")
    if gap is not None and (upper is None or gap != round(gap_percent(claimed, upper), 4)):
        raise CertificateError(f"gap: {gap!r} is not the gap between lower_bound and upper")
    # Each part's flat index, from its class's first (not a list of Wordle's 1.1 million).
    starts = np.cumsum([0] + [len(c["parts"]) for c in classes]).tolist()
    count = starts[-1]
    if part is not None and not 0 <= part < count:
        raise CertificateError(f"part {part}: the certificate has parts 0 to {count - 1}")
    proved: list[int] = []
    results: list[PartResult] = []
    if prove:
        for k in range(count) if part is None else [part]:
            ci = bisect.bisect_right(starts, k) - 1
            pi = k - starts[ci]
            guess = game.parse_code(classes[ci]["guess"])
            entry = classes[ci]["parts"][pi]
            results.append(
                _prove_part(game, guess, entry, f"class {ci} part {pi} (part {k})", exact_below)
            )
            proved.append(k)
    return CertificateCheck(game, claimed, count, tuple(proved), tuple(results)), read


def _certificate_of(data: dict[str, Any], game: Game | None) -> Game:
    """The game of a certificate (``game`` when given, which must be it), its number of
    codes checked."""
    key = certificate_game(data)
    if game is None:
        try:
            game = game_from_spec(data["game"])
        except ValueError as e:
            raise CertificateError(f"game: {e}") from None
    elif game.key != key:
        raise CertificateError(f"the certificate is of {key}, not of {game.key}")
    m = game.num_codes
    if _field(data, "codes", int) != m:
        raise CertificateError(f"codes: {data['codes']} is not the game's {m}")
    return game


def _feedback_reader(game: Game) -> Callable[[str], int]:
    """``game.parse_feedback`` remembered per spelling: a certificate names each of a few
    hundred feedbacks over and over (Wordle's 1.1 million parts took 30 s one by one)."""
    known: dict[str, int] = {}

    def parse(text: str) -> int:
        f = known.get(text)
        if f is None:
            f = known[text] = game.parse_feedback(text)
        return f

    return parse


def _class_total(
    game: Game,
    c: dict[str, Any],
    where: str,
    expected: dict[int, int],
    parse: Callable[[str], int] | None = None,
) -> tuple[int, int, list[PartRow]]:
    """A certificate's class checked: its guess the lowest code of its class, its orbit,
    its parts that guess's (each once, well formed), its total theirs and its uppers no
    less than its bounds; ``(guess, total, parts as read)``. ``parse``: the game's
    feedbacks as read (:func:`_feedback_reader`)."""
    parse = parse or _feedback_reader(game)
    m = game.num_codes
    try:
        guess = game.parse_code(_field(c, "guess", str))
    except ValueError as e:
        raise CertificateError(f"{where}: {e}") from None
    if guess not in expected:
        raise CertificateError(f"{where}: {c['guess']} is not the lowest code of its class")
    if _field(c, "orbit", int) != expected[guess]:
        raise CertificateError(f"{where}: orbit {c['orbit']}, not {expected[guess]}")
    sizes = np.bincount(game.feedback_row(guess), minlength=game.num_feedbacks)
    want = {f: int(s) for f, s in enumerate(sizes.tolist()) if f != game.win and s > 0}
    got: dict[int, int] = {}
    rows: list[PartRow] = []
    for pi, p in enumerate(_field(c, "parts", list)):
        at = f"{where} part {pi}"
        try:
            f = parse(_field(p, "feedback", str))
        except ValueError as e:
            raise CertificateError(f"{at}: {e}") from None
        if f in got:  # however spelled: a part counted twice would raise the total
            raise CertificateError(f"{at}: feedback {p['feedback']} is listed twice")
        got[f] = size = _field(p, "size", int)
        row = (f, size, _bound_value(p, at), _entry_depth(p, at), _entry_seconds(p, at))
        rows.append((*row, _entry_level(p, at)))
    if got != want:
        raise CertificateError(f"{where}: its parts are not those of {c['guess']}")
    if sum(got.values()) != m - int(sizes[game.win]):
        raise CertificateError(f"{where}: its parts do not hold the codes less the win")
    total = m + sum(int(p["bound"]) for p in c["parts"])
    if _field(c, "total", int) != total:
        raise CertificateError(f"{where}: total {c['total']} is not {total}")
    _upper_at_least(c, total, f"{where} upper")
    for pi, p in enumerate(c["parts"]):
        _upper_at_least(p, int(p["bound"]), f"{where} part {pi} upper")
    return guess, total, rows


def _prove_part(
    game: Game, guess: int, p: dict[str, Any], where: str, exact_below: int
) -> PartResult:
    """A checked certificate's part ``p`` of first guess ``guess`` proved again: a
    :class:`CertificateError` (naming it ``where``) unless it proves at least the bound
    claimed."""
    depth = _entry_depth(p, where)
    # A part proved by the exact search's budget: the same search, its claim the
    # budget (it returns at least the claim only if no subtree costs less).
    budget = int(p["bound"]) if depth == BUDGET else UNBOUNDED
    # A level by the cheaper leaves first (the gap-directed search's, and every
    # level's before the floors), then, if that proves less than the claim, by
    # the floors, which never prove less: on (4,10)'s parts of 3,000 codes
    # ``V_2`` takes minutes the one way, more than 25 minutes the other.
    for floors in (False, True) if depth is not None and depth >= 0 else (True,):
        result = part_bound(
            game,
            guess,
            game.parse_feedback(p["feedback"]),
            None if depth == BUDGET else depth,
            exact_below=exact_below,
            budget=budget,
            floors=floors,
        )
        value = result.bound
        assert value is not None
        if value >= p["bound"]:
            return result
    raise CertificateError(f"{where}: proved {value}, not the {p['bound']} claimed")


def _upper_at_least(entry: dict[str, Any], bound: int, where: str) -> None:
    """An entry's ``upper``, when given: a total of some breaker, so no less than the
    bound proved under it (an upper below would say a gap that cannot be)."""
    upper = entry.get("upper")
    if upper is None:
        return
    if not isinstance(upper, int) or isinstance(upper, bool) or upper < bound:
        raise CertificateError(f"{where}: {upper!r} is not a total of at least the bound {bound}")


def _bound_value(p: dict[str, Any], where: str) -> int:
    """A part's ``bound``: an integer from 1 up (a part holds a code at least)."""
    value = _field(p, "bound", int)
    if value < 1:
        raise CertificateError(f"{where}: bound {value} is not a total of guesses")
    return value


def _entry_seconds(p: dict[str, Any], where: str) -> float:
    """A part's ``seconds`` (0 when missing): a finite number from 0 up."""
    seconds = p.get("seconds", 0.0)
    if not is_json_number(seconds) or not 0 <= seconds < float("inf"):
        raise CertificateError(f"{where}: seconds {seconds!r} is not a number of seconds")
    return float(seconds)


#: A certificate's names of the depths that are not levels.
DEPTH_NAMES = {None: "exact", BUDGET: "budget"}


def depth_name(depth: int | None) -> int | str:
    """A part's depth as its certificate writes it: a level, ``"exact"`` or ``"budget"``."""
    return DEPTH_NAMES.get(depth, depth)  # type: ignore[return-value]


def _level_entry(p: PartBound) -> dict[str, int]:
    """A part's ``level`` in its certificate entry when it says more than its depth."""
    return {"level": p.level} if p.depth is not None and p.level != p.depth else {}


def _entry_level(p: dict[str, Any], where: str) -> int:
    """A part's ``level`` (:attr:`PartBound.level`; -1 when missing): a depth from -1 up."""
    level = p.get("level", UNSEARCHED)
    if not isinstance(level, int) or isinstance(level, bool) or level < UNSEARCHED:
        raise CertificateError(f"{where}: level {level!r} is not a depth from -1 up")
    return level


def _entry_depth(p: dict[str, Any], where: str) -> int | None:
    depth = p.get("depth")
    for value, name in DEPTH_NAMES.items():
        if depth == name:
            return value
    if isinstance(depth, int) and not isinstance(depth, bool) and depth >= UNSEARCHED:
        return depth
    raise CertificateError(
        f"{where}: depth {depth!r} is not 'exact', 'budget' or a depth from -1 up"
    )


def _field(data: Any, key: str, kind: type) -> Any:
    """``data[key]`` of type ``kind``, or a :class:`CertificateError` naming the key."""
    if not isinstance(data, dict) or key not in data:
        raise CertificateError(f"missing key {key!r}")
    value = data[key]
    if not isinstance(value, kind) or (kind is int and isinstance(value, bool)):
        raise CertificateError(f"{key}: {value!r} is not a {kind.__name__}")
    return value
