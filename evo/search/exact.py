"""The exact search: a subtree of least total for a code set, by branch and bound.

``cost(S) = |S| + min_g sum_f cost(S_f)`` over the guesses ``g`` that help, ``S_f`` the
parts of ``S`` other than the win. The search is depth first:

* **Lower bound** ("perfect split"): a guess solves at most one code of its set and
  splits the rest into at most ``P`` parts (``P``: the most non-win feedbacks a guess
  can produce in this game), so at most ``P^(d-1)`` codes are solved at depth ``d``;
  filling depths greedily gives ``LB(n)``. A candidate ``g`` is bounded by
  ``|S| + sum_f LB(|S_f|)``, with its real parts; the bound is exact when no part has
  more than two codes. A guess outside the set costs at least ``2|S|``.
* **Candidates** (the *policy*): with ``symmetry``, one guess per orbit of the
  symmetries that fix the history (:mod:`evo.search.symmetry`), the fastest for a whole
  game; with ``path-independent``, the pool's guesses whatever the history, so that the
  subtree chosen for a code set does not depend on the path by which it was first met
  (the evolution needs that: the same result with any number of worker processes).
  Under both, colors that no code of the set has are interchangeable, so one guess per
  orbit of their permutations is scored (the lowest code of each).
* **Pool**: ``all`` tries every code as a guess; ``consistent`` only the codes still
  possible (exact among strategies that guess possible codes from there on: its cost
  grows with the set, not with the game); ``consistent`` with ``impossible=k`` also the
  impossible guesses whose bound is among the ``k`` smallest bounds of the impossible
  ones (all guesses of a bound, so that the class does not depend on the symmetries
  used: a *mixed* pool, near the optimum at a fraction of the ``all`` search).
* **Order**: candidates are tried by increasing bound, a consistent one first, then the
  lowest code, so the guess chosen is the first optimal one in that order. A candidate
  that splits the set as one already tried (the win part told apart) is skipped. When
  the first candidate of the order is exact, it is taken without search: a consistent
  guess leaving at most pairs, or a guess outside the set leaving single codes (``2n``).
* **Pruning**: parts are solved smallest first (their exact costs, often found at once,
  tighten the budget left for the large ones); a candidate is dropped once what it has
  cost so far plus the bounds of its remaining parts reaches the best total found.
  Exact costs are memoised per code set, and so are the lower bounds that failed
  searches prove (the memo is emptied past ``max_memo`` entries).

The search runs compiled (:mod:`evo.search.exact_kernel`), the node's symmetries carried
guess by guess below it, its memo a hash table over arrays
(:mod:`evo.search.memo_kernel`); with a depth limit, by
:mod:`evo.search.within_kernel`. The Python recursion here, with its memo in
dictionaries, serves ``fewest_last`` and games of more than 32 colors (the compiled one
keeps colors as bits of a uint32) where a node has symmetries.
"""

from __future__ import annotations

import copy
import threading
import time
from collections.abc import Callable, Hashable
from functools import lru_cache, partial
from typing import Literal, get_args

import numpy as np

from evo.core.engine import threads
from evo.core.game import Game, rule_state
from evo.core.kinds import POOLS, Pool
from evo.core.tree import Tree
from evo.games.pegs import peg_game
from evo.search import spread as spreading
from evo.search.build import Node, build_tree
from evo.search.palette import Palette, identity_palette, palette
from evo.search.partition import candidates, partition_counts
from evo.search.spread import UNBOUNDED
from evo.search.symmetry import Stabilizer

Policy = Literal["symmetry", "path-independent"]
POLICIES: tuple[str, ...] = get_args(Policy)

#: From this many codes, a search is spread over :func:`~evo.core.engine.threads` threads
#: (:mod:`evo.search.spread`; below, as for the (4,6) optimum, loading the kernels that do
#: it costs a process more time than the threads save).
PARALLEL_CODES = 1500

#: The sets of fewer codes than this that a spread search's threads find stay in their own
#: memos, not gathered into the one they all read.
GATHER_CODES = 3

#: A spread search splits the sets of at least a share of its codes (its runner's:
#: :attr:`evo.search.spread.Threads.share`), and at least this many, into their
#: candidates' parts; the smaller ones are its leaves.
SPLIT_CODES = 200

#: With a deadline, the compiled search is stopped at the deadline by a watch thread (it
#: sets the memos' stop cell); it also looks at the clock every this many nodes.
BUDGET_NODES = 1 << 20


class SearchTimeout(TimeoutError):
    """The search reached its deadline."""


#: Guesses whose parts :func:`max_parts` counts at a time: Wordle's 12,972 guesses at once
#: took 120 MB for a number (their counts of 243 feedbacks, and a copy per block).
MAX_PARTS_BLOCK = 512


def max_parts(game: Game) -> int:
    """``P``: the most non-win parts one guess can split the codes into."""
    reps = Stabilizer.root(game).representatives()
    codes = game.all_codes()
    most = 0
    for lo in range(0, len(reps), MAX_PARTS_BLOCK):
        counts = partition_counts(game, codes, reps[lo : lo + MAX_PARTS_BLOCK])
        most = max(most, int(np.count_nonzero(counts[:, 1:], axis=1).max()))
    return most


def depth_room(n_max: int, parts: int) -> np.ndarray:
    """``room[d]`` for ``d = 0 .. 255``: the most codes that ``d`` guesses can solve (each
    guess solves one code and splits the rest into at most ``parts`` parts), past ``n_max``
    kept as ``n_max + 1``."""
    room = np.zeros(256, dtype=np.int64)
    level = 1
    for d in range(1, 256):
        room[d] = min(room[d - 1] + level, n_max + 1)
        level = min(level * max(parts, 1), n_max + 1)
    return room


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
    when each call's ``node`` holds the guesses that led to its codes. ``pool`` and
    ``impossible``: which guesses are tried (see the module). ``deadline``: a
    ``time.monotonic()`` instant after which :class:`SearchTimeout` is raised;
    ``max_memo``: memo entries kept before it is emptied (None: no limit); ``memory``:
    bytes its memos may take in all (None: no limit), beyond which each keeps its largest
    sets only (:func:`evo.search.memo_kernel.keep_largest`).

    ``fewest_last``: with a depth limit, among the subtrees of least total, one with the
    fewest codes solved at the limit's last guess (a tree's codes at its worst case). The
    costs :meth:`solve` returns are then ``total * scale + codes at the last guess``
    (:attr:`scale`: more than the game has codes, so that the total decides first);
    :meth:`total` and :meth:`last` read them apart.
    """

    def __init__(
        self,
        game: Game,
        *,
        policy: Policy = "path-independent",
        pool: Pool = "all",
        impossible: int = 0,
        deadline: float | None = None,
        max_memo: int | None = None,
        memory: int | None = None,
        fewest_last: bool = False,
    ):
        if policy not in POLICIES:
            raise ValueError(f"policy must be one of {', '.join(POLICIES)}, not {policy!r}")
        if pool not in POOLS:
            raise ValueError(f"pool must be one of {', '.join(POOLS)}, not {pool!r}")
        if impossible < 0:
            raise ValueError(f"impossible must be 0 or more, not {impossible}")
        self.game = game
        self.policy = policy
        self.pool = pool
        self.impossible = impossible if pool == "consistent" else 0
        self.deadline = deadline
        self.max_memo = max_memo
        self.memory = memory
        self.fewest_last = fewest_last
        #: What a guess costs in :meth:`solve`'s units (one code at the last guess costs 1).
        self.scale = game.num_codes + 1 if fewest_last else 1
        self._parts = max_parts(game)
        self.lb = perfect_split_bounds(game.num_codes, self._parts)
        self._room = depth_room(game.num_codes, self._parts)
        self.exact: dict[Hashable, tuple[int, int]] = {}
        self.lower: dict[Hashable, int] = {}
        #: A rule on guesses: the search runs in Python, its memo keyed by each set's
        #: state of the rule too (the legal guesses below it depend on it).
        self._rule = game.rule is not None
        self._py_nodes = 0
        #: Only some guesses at every node (:meth:`narrowed`): never spread over threads
        #: (the spread search's splits read the pool, not these guesses).
        self._narrow = False
        # Compiled on first use (numba): imported here so that importing this module,
        # as the evolution's operators do, stays cheap.
        from evo.search import exact_kernel, memo_kernel, within_kernel

        self._score = exact_kernel.score
        self._mixed = exact_kernel.mixed
        self._split = exact_kernel.split
        self._three = exact_kernel.three_guess_bounds
        self._lb = self.lb.tolist()
        self._nf = game.num_feedbacks
        # The kernels' feedback source: the table as a plain (maybe read-only) view, also
        # of a memory-mapped file, or the packed codes when the game keeps no table.
        src = game.feedback_source
        self._source = np.asarray(src) if isinstance(src, np.ndarray) else src
        self._all = np.arange(game.num_guesses, dtype=np.int64)
        pegs = peg_game(game)
        # The codes as pegs, whose colors absent from a set are interchangeable; a game of
        # no known symmetry is one peg of one color (none ever absent).
        self._digits = np.ascontiguousarray(palette(game).digits, dtype=np.uint8)
        self._colors = 1 if pegs is None else pegs.colors
        self._key_type = np.uint16 if game.num_codes <= 1 << 16 else np.uint32
        self._wide = game.num_codes > 1 << 16
        self._memo = self._new_memo(memory)
        self._memo[4][memo_kernel.LIMIT] = 0 if max_memo is None else max(max_memo, 1)
        self._boxes: list[list] = []  # the spread search's threads' memos, one box each
        # The memo the threads of a spread search read besides their own (gathered from
        # theirs at pauses, :meth:`gather`), and an empty one where there is none.
        self._empty = memo_kernel.new_memo(1)
        self._shared: tuple | None = None
        self._base = self._empty
        self._gathered = (0, -1)  # the own memo's entries gathered, and its KEPT then
        self._watched: float | None = None  # the deadline a watch thread waits for
        self.last_spread: spreading.Spread | None = None
        self.wasted = 0  # nodes of spread leaves stopped before the end
        self.restarts = 0
        self.leaf_cpu = 0.0
        # What the compiled search reads and never changes.
        src, consistent = self._source, pool == "consistent"
        fixed = (self._all, self._digits, self._colors, self.lb, self._nf)
        self._kinds, self._common = code_kinds(game)
        kinds = (self._kinds, self._common)
        self._game: tuple = (src, src, *fixed, consistent, self.impossible, *kinds)
        self._identity = identity_palette(game)
        # The compiled recursion carries a node's symmetries as color bit masks (uint32).
        self._symmetric_kernel = self._colors <= 32
        self._search = exact_kernel.search
        self._lookup = memo_kernel.lookup_both
        self._search_within = within_kernel.search_within

    def narrowed(self, guesses: np.ndarray) -> Solver:
        """A solver like this one, its memo empty, whose every node tries only ``guesses``
        (the codes it is asked of must be among them), the game's rule not followed:
        compiled, and under
        a rule that narrows (:attr:`~evo.core.game.GuessRule.narrows`) whose legal guesses
        at a set's node are ``guesses``, its costs are floors of the set's cost under the
        rule (the strategies the rule allows below the node are among those it searches)."""
        from evo.search import memo_kernel

        if self.pool != "all" or self.fewest_last:
            raise ValueError("a narrowed solver needs the pool 'all' and no fewest_last")
        every = np.unique(np.asarray(guesses, dtype=np.int64))
        if len(every) and not 0 <= every[0] <= every[-1] < self.game.num_guesses:
            raise ValueError(f"guesses must be in 0 .. {self.game.num_guesses - 1}")
        out = copy.copy(self)
        out.policy = "path-independent"
        out._rule = False
        out._narrow = True
        out._all = every
        out._game = (self._game[0], self._game[1], every, *self._game[3:])
        out.exact, out.lower = {}, {}
        out._memo = out._new_memo(self.memory)
        out._memo[4][memo_kernel.LIMIT] = self._memo[4][memo_kernel.LIMIT]
        out._boxes, out._shared, out._base = [], None, self._empty
        out._gathered, out._watched, out._py_nodes = (0, -1), None, 0
        return out

    def relaxed(
        self, codes: np.ndarray, node: Node, bound: int, *, depth: int | None = None
    ) -> tuple[int, bool]:
        """Under a rule that narrows: ``(low, exact)``, the least total of ``codes``
        (sorted) at ``node`` when every guess below may be any guess legal at the node
        (:meth:`narrowed`), a floor of its total under the rule (``>= bound`` when it
        reaches ``bound``); ``exact`` when the least subtree found obeys the rule (its
        total is then the rule's least). ``depth``: within that many guesses."""
        rule = self.game.rule
        if rule is None or not rule.narrows:
            raise ValueError(f"{self.game.name} has no rule on guesses that narrows")
        state = rule_state(self.game, node.history, int(codes[0]))
        mask = np.asarray(rule.legal(state), dtype=bool)
        # The kernels read a set's codes as guesses among the given ones (the rule's
        # contract: a code still possible is legal).
        if not mask[codes].all():
            raise ValueError(f"{self.game.name}'s rule does not allow every code still possible")
        solver = self.narrowed(np.flatnonzero(mask))
        low = solver.solve(codes, Node(self.game), bound, depth=depth)
        return low, low < bound and solver._obeys(codes, state, depth)

    def _obeys(self, codes: np.ndarray, state: Hashable, depth: int | None) -> bool:
        """Whether the least subtree this (narrowed) solver found for ``codes`` (within
        ``depth`` guesses) plays only guesses the game's rule allows from ``state`` down
        (a set of one or two codes plays its own, which the rule allows)."""
        rule = self.game.rule
        assert rule is not None
        if len(codes) <= 2:
            return True
        guess = self.best_guess(codes, depth=depth)
        if not rule.legal(state)[guess]:
            return False
        fb = self.game.feedback_row(guess)[codes]
        below = None if depth is None else depth - 1
        for f in np.unique(fb).tolist():
            if f != self.game.win:
                if not self._obeys(codes[fb == f], rule.after(state, guess, f), below):
                    return False
        return True

    @property
    def nodes(self) -> int:
        """Code sets searched so far (scored, not found in the memo)."""
        from evo.search import memo_kernel as mk

        return self._py_nodes + sum(int(m[4][mk.NODES]) for m in self._memos())

    @property
    def memo_entries(self) -> int:
        """Code sets the memo holds (their costs or lower bounds)."""
        from evo.search import memo_kernel as mk

        return len(self.exact) + len(self.lower) + int(self._memo[4][mk.ENTRIES])

    @property
    def memo_bytes(self) -> int:
        """Bytes the compiled search's memos take (the threads' included)."""
        from evo.search import memo_kernel as mk

        return sum(mk.nbytes(m) for m in self._memos())

    def _memos(self) -> list[tuple]:
        shared = [] if self._shared is None else [self._shared]
        return [self._memo, *shared, *(box[0] for box in self._boxes if box[0] is not None)]

    # ------------------------------------------------------------------ for spread
    @property
    def memo(self) -> tuple:
        """The compiled search's memo (:mod:`evo.search.memo_kernel`)."""
        return self._memo

    @property
    def base(self) -> tuple:
        """The memo the compiled search reads besides its own (what the threads of a
        spread search gathered; empty before any)."""
        return self._base

    @property
    def game_args(self) -> tuple:
        """The game as the compiled search takes it (:func:`evo.search.exact_kernel.search`)."""
        return self._game

    def remember(self, codes: np.ndarray, cost: int, guess_or_lower: int) -> None:
        """Keep in the memo a set's exact ``cost`` and guess, or (cost -1) a lower bound."""
        from evo.search import memo_kernel as mk

        cost, guess, lower = (cost, guess_or_lower, 0) if cost >= 0 else (0, -1, guess_or_lower)
        while not mk.store(self._memo, codes, cost, guess, lower):
            self._memo[4][mk.STATUS] = 0
            self._memo = mk.make_room(self._memo, self._cap("main"))

    def known_sets(self, least: int) -> list[tuple[np.ndarray, int, int, int]]:
        """What the compiled search's memos (the threads' included) know of the sets of at
        least ``least`` codes: ``(codes, cost, guess, lower)`` each, guess -1 when only
        the lower bound is known (:func:`evo.search.memo_kernel.known_sets`); with a rule
        on guesses none (its memo is keyed by the rule's state too)."""
        from evo.search import memo_kernel as mk

        if self._rule:
            return []
        return [fact for memo in self._memos() for fact in mk.known_sets(memo, least)]

    def plant(self, codes: np.ndarray, guesses: np.ndarray, cost: int) -> bool:
        """Keep in the memo the subtree of ``codes`` whose guesses
        :func:`~evo.search.exact_kernel.harvest` wrote, each set with its cost; False (nothing
        trusted) when they do not make a subtree of ``codes`` of total ``cost``."""
        from evo.search import exact_kernel
        from evo.search import memo_kernel as mk

        guesses = np.asarray(guesses, dtype=np.int64)
        while True:
            got, end = exact_kernel.plant(
                codes, guesses, 0, self._memo, self._game[0], self._nf, self.game.num_codes
            )
            if got != -2:
                return bool(got == cost and end == len(guesses))
            self._memo[4][mk.STATUS] = 0
            self._memo = mk.make_room(self._memo, self._cap("main"))

    def _new_memo(self, cap: int | None) -> tuple:
        """An empty memo, small enough to double within ``cap`` bytes."""
        from evo.search import memo_kernel as mk

        entries = 1 << 12
        while cap is not None and entries > 64 and 3 * entries * 128 > cap:
            entries //= 2
        return mk.new_memo(entries, wide=self._wide)

    def _cap(self, kind: str) -> int | None:
        """Bytes a memo of ``kind`` may take: ``main`` the solver's own, the budget alone;
        with a spread search's threads, an eighth (it holds the answers and small parts),
        the ``shared`` memo five eighths (what every thread found before the last pause),
        and each ``thread``'s its share of the rest (what it found since)."""
        if self.memory is None:
            return None
        if not self._boxes:
            return self.memory
        eighth = self.memory // 8
        if kind == "main":
            return eighth
        if kind == "shared":
            return 5 * eighth
        return 2 * eighth // len(self._boxes)

    # ------------------------------------------------------------------ answers
    def total(
        self, codes: np.ndarray, node: Node | None = None, *, depth: int | None = None
    ) -> int:
        """The least total of a subtree for ``codes`` (with ``depth``: of one that solves
        every code within ``depth`` guesses; :data:`UNBOUNDED` when none does)."""
        cost = self.solve(_sorted(codes), node or Node(self.game), UNBOUNDED, depth=depth)
        return cost if cost >= UNBOUNDED else cost // self.scale

    def last(self, codes: np.ndarray, node: Node | None = None, *, depth: int) -> int:
        """With ``fewest_last``: how many codes the best subtree within ``depth`` guesses
        (:meth:`total`'s) solves at its ``depth``-th guess."""
        if not self.fewest_last:
            raise ValueError("last() needs a solver made with fewest_last=True")
        cost = self.solve(_sorted(codes), node or Node(self.game), UNBOUNDED, depth=depth)
        if cost >= UNBOUNDED:
            raise ValueError(f"no subtree solves these {len(codes)} codes within {depth} guesses")
        return cost % self.scale

    def best_guess(
        self,
        codes: np.ndarray,
        node: Node | None = None,
        *,
        depth: int | None = None,
        search: bool = True,
    ) -> int:
        """The root guess of an optimal subtree for ``codes`` (the lower code of two), with
        ``depth``: among subtrees that solve every code within ``depth`` guesses; not
        ``search``: only from the memos (:class:`LookupError` when they miss it)."""
        s = _sorted(codes)
        if len(s) <= 2:
            return int(s[0])
        node = node or Node(self.game)
        guess = self._memo_guess(s, depth, node)
        if guess < 0 and not search:
            raise LookupError(f"no choice known for a set of {len(s)} codes")
        if guess < 0:
            self.solve(s, node, UNBOUNDED, depth=depth)
            guess = self._memo_guess(s, depth, node)
        if guess < 0:
            raise ValueError(f"no subtree solves these {len(s)} codes within {depth} guesses")
        return guess

    def subtree(
        self, codes: np.ndarray, *, history: tuple[int, ...] = (), depth: int | None = None
    ) -> Tree:
        """An optimal subtree for ``codes``, reached by the guesses of ``history`` (which
        the ``symmetry`` policy needs; the path-independent one takes any); with
        ``depth``, the best that solves every code within ``depth`` guesses."""
        if depth is None:
            return build_tree(self.game, self.best_guess, codes=codes, history=history)
        top = len(history)

        def choose(s: np.ndarray, node: Node) -> int:
            return self.best_guess(s, node, depth=depth - (len(node.history) - top))

        return build_tree(self.game, choose, codes=codes, history=history)

    def feasible(self, n: int, depth: int | None) -> bool:
        """Whether ``n`` codes could be solved within ``depth`` guesses at all (each guess
        solves one code and splits the rest into at most ``P`` parts)."""
        return depth is None or n <= self._room[self._limited(depth)]

    def _key(self, codes: np.ndarray, depth: int | None, node: Node | None = None) -> Hashable:
        """The memo key of a sorted code set (its codes as 2- or 4-byte integers: a big
        search keeps millions), and of its depth limit when there is one; with a rule on
        guesses, and of the rule's state at ``node`` (the set's)."""
        key = codes.astype(self._key_type).tobytes()
        key = key if depth is None else key + bytes([min(depth, 255)])
        if self._rule:
            assert node is not None
            return (key, rule_state(self.game, node.history, int(codes[0])))
        return key

    # ------------------------------------------------------------------ search
    def solve(self, codes: np.ndarray, node: Node, bound: int, *, depth: int | None = None) -> int:
        """``cost(codes)`` (sorted int64 codes) when it is below ``bound``; else a lower
        bound ``>= bound``. ``depth``: every code solved within that many guesses."""
        n = len(codes)
        if self.fewest_last and depth is None:
            raise ValueError("a solver with fewest_last searches within a depth limit only")
        if not self.feasible(n, depth):
            return UNBOUNDED
        if n <= 2:  # the lower code, then the other: the last one at ``depth`` or not
            return (2 * n - 1) * self.scale + int(self.fewest_last and depth == n)
        if self._rule:
            if depth is not None and depth <= 2:
                return self._two_guesses(codes, node, bound)
            if depth == 3 and self.fewest_last:
                return self._three_guesses(codes, node, bound)
            return self._solve(codes, self._key(codes, depth, node), node, bound, depth)
        if depth is not None and self._compiled_within:
            return self._within(codes, bound, depth, node)
        if depth is not None and depth <= 2:
            return self._two_guesses(codes, node, bound)
        if depth == 3 and self.fewest_last:
            return self._three_guesses(codes, node, bound)
        if depth is None:
            if self.policy == "path-independent" or node.stabilizer.trivial:
                return self._compiled(codes, bound)
            if self._symmetric_kernel:
                return self._compiled(codes, bound, node)
        return self._solve(codes, self._key(codes, depth), node, bound, depth)

    def _compiled(self, codes: np.ndarray, bound: int, node: Node | None = None) -> int:
        """``solve`` by the compiled recursion, with the symmetries of ``node``'s history
        (None: none needed); spread over the threads from :data:`PARALLEL_CODES` codes."""
        group, symmetric = self._group(node)
        if len(codes) >= PARALLEL_CODES and threads() > 1 and not self._narrow:
            return self.spread(codes, bound, group, symmetric)
        return self.cost_here(codes, bound, group, symmetric)

    @property
    def _compiled_within(self) -> bool:
        """Whether searches with a depth limit run compiled (:mod:`evo.search.within_kernel`):
        not with ``fewest_last``, nor where the compiled search cannot carry the symmetries."""
        return not self.fewest_last and self._symmetric_kernel

    def _within(self, codes: np.ndarray, bound: int, depth: int, node: Node) -> int:
        """``solve`` with a depth limit by the compiled recursion, in the solver's memo."""
        group, symmetric = self._group(node)
        return self.cost_here(codes, bound, group, symmetric, depth=self._limited(depth))

    def _group(self, node: Node | None) -> tuple[Palette, bool]:
        """The symmetries the compiled search carries from ``node`` down, and whether any:
        none (the identity) without a node, with the path-independent policy, or where the
        node has none left."""
        if node is None or self.policy == "path-independent" or node.stabilizer.trivial:
            return self._identity, False
        return palette(self.game, node.history, symmetries=True), True

    def _limited(self, depth: int) -> int:
        """A depth limit within the room table: past its end, as many guesses as any tree
        needs (the compiled search reads the table unchecked)."""
        return min(max(depth, 0), len(self._room) - 1)

    def _run(
        self,
        codes: np.ndarray,
        bound: int,
        memo: tuple,
        group: Palette,
        symmetric: bool,
        *,
        main: bool = False,
        depth: int | None = None,
    ) -> tuple[int | None, tuple]:
        """``(cost, memo)``: the compiled search of ``codes`` in ``memo`` (within ``depth``
        guesses when given), which makes room when full (grown within the memory budget,
        else keeping its largest sets); with a deadline, stopped there (:meth:`_watch`;
        :class:`SearchTimeout`); cost None when another thread stopped it (``meta[STOP]``)."""
        from evo.search import memo_kernel as mk

        self._watch()
        while True:
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise SearchTimeout
            meta = memo[4]
            meta[mk.STATUS] = 0
            meta[mk.BUDGET] = 0 if self.deadline is None else meta[mk.NODES] + BUDGET_NODES
            if depth is None:
                cost = self._search(codes, bound, memo, self._base, self._game, group, symmetric)
            else:
                cost = self._search_within(
                    codes, bound, depth, self._room, memo, self._game, group, symmetric
                )
            status = meta[mk.STATUS]
            if status == 0:
                return int(cost), memo
            if status == mk.STOPPED:
                if self.deadline is not None and time.monotonic() > self.deadline:
                    raise SearchTimeout
                return None, memo
            if status == mk.FULL:
                memo = mk.make_room(memo, self._cap("main" if main else "thread"))

    def _watch(self) -> None:
        """With a deadline, a thread (one per deadline) that stops the compiled searches
        when it passes: it sets every memo's stop cell (:data:`~memo_kernel.STOP`), so the
        search needs no look at the clock of its own."""
        deadline = self.deadline
        if deadline is None or self._watched == deadline:
            return
        self._watched = deadline

        def watch() -> None:
            from evo.search import memo_kernel as mk

            while self.deadline == deadline and time.monotonic() < deadline:
                time.sleep(min(60.0, max(0.0, deadline - time.monotonic())))  # any deadline
            if self.deadline == deadline:
                for memo in self._memos():
                    memo[4][mk.STOP] = 1

        threading.Thread(target=watch, daemon=True, name="evo-deadline").start()

    def spread(
        self,
        codes: np.ndarray,
        bound: int,
        group: Palette,
        symmetric: bool,
        *,
        runner: spreading.Runner | spreading.Threads | None = None,
        results: spreading.Results | None = None,
        split: int | None = None,
        inline: int = spreading.INLINE,
        report: Callable[[spreading.Stats], None] | None = None,
        every: float = 60.0,
        improved: Callable[[int, int], None] | None = None,
        floors: dict[int, int] | None = None,
    ) -> int:
        """``solve`` spread over ``runner`` (default: :func:`threads` threads of this
        process), leaves found in and added to ``results``; sets of at least ``split``
        codes split here (default: the runner's ``share`` of the codes, at least
        :data:`SPLIT_CODES`), parts of fewer than ``inline`` searched in this thread;
        ``report`` called with the statistics every ``every`` seconds, ``improved`` with
        ``(guess, cost)`` when a first guess is decided at a new least cost; ``floors``:
        the first guesses' proved lower bounds, for the bounds reported. See
        :mod:`evo.search.spread`."""
        from evo.search import memo_kernel as mk

        own = runner is None
        full: Callable[[], bool] | None = None
        make_room: Callable[[], None] | None = None
        if runner is None:
            count = threads()
            while len(self._boxes) < count:  # kept for the next spread search
                self._boxes.append([None])
            for box in self._boxes:
                if box[0] is None:
                    box[0] = self._new_memo(self._cap("thread"))
            if self._shared is None:
                self._shared = self._new_memo(self._cap("shared"))
            self._shared[4][mk.OPEN] = 1  # the threads write it at once, see memo_kernel.publish
            self._base = self._shared
            runner = spreading.Threads(count, self._boxes, partial(self.leaf, symmetric=symmetric))
            full, make_room = self._shared_full, self._make_room_shared
        if split is None:
            split = max(SPLIT_CODES, int(len(codes) * runner.share))
        search = spreading.Spread(
            self,
            runner,
            split=split,
            inline=inline,
            symmetric=symmetric,
            results=results,
            deadline=self.deadline,
            report=report,
            every=every,
            improved=improved,
            floors=floors,
            full=full,
            make_room=make_room,
        )
        self.last_spread = search
        try:
            return search.run(codes, group, bound)
        except TimeoutError:
            raise SearchTimeout from None
        finally:
            if own:
                runner.close()
                assert self._shared is not None
                self._shared[4][mk.OPEN] = 0
                self.gather()

    def _shared_full(self) -> bool:
        """Whether the memo the threads share dropped a set for want of room."""
        from evo.search import memo_kernel as mk

        return self._shared is not None and int(self._shared[4][mk.STATUS]) == mk.FULL

    def _make_room_shared(self) -> None:
        """Give the memo the threads share room again (their searches stopped meanwhile:
        :meth:`evo.search.spread.Threads.pause`)."""
        from evo.search import memo_kernel as mk

        assert self._shared is not None
        self._shared = mk.settle(self._shared, self._cap("shared"))
        self._base = self._shared

    def gather(self) -> None:
        """Merge what the solver's own memo learned outside the compiled search since the
        last time (:meth:`plant`: its sets of :data:`GATHER_CODES` codes or more) into the
        memo the threads all read. The threads' memos are not merged: they published all
        they learned there at once, but the few sets the shared memo dropped while full
        (a cache's loss: a set not found is searched again)."""
        from evo.search import memo_kernel as mk

        if self._shared is None:
            return
        if self._shared_full():  # the threads filled it, stopped before it had room again
            self._make_room_shared()
        meta = self._memo[4]
        start, kept = self._gathered
        if kept != meta[mk.KEPT]:
            start = 0  # it made room in place since: its entries moved
        while not mk.merge(self._shared, self._memo, start, GATHER_CODES):
            self._shared[4][mk.STATUS] = 0
            self._shared = mk.make_room(self._shared, self._cap("shared"))
        self._gathered = (int(meta[mk.ENTRIES]), int(meta[mk.KEPT]))
        self._base = self._shared

    def cost_here(
        self,
        codes: np.ndarray,
        bound: int,
        group: Palette,
        symmetric: bool,
        *,
        depth: int | None = None,
    ) -> int:
        """``solve`` of ``codes`` (within ``depth`` guesses when given) by the compiled
        search in this thread and the solver's memo (also the spread search's small parts)."""
        from evo.search import memo_kernel as mk

        self._memo[4][mk.STOP] = 0  # left by a deadline passed before: a new search
        cost, self._memo = self._run(
            codes, bound, self._memo, group, symmetric, main=True, depth=depth
        )
        assert cost is not None  # only a deadline stops this memo's search
        return cost

    def leaf(
        self, x: spreading._Set, box: list, gate: spreading.Threads, *, symmetric: bool
    ) -> spreading.Outcome | None:
        """Search the leaf ``x`` of a spread search in the memo of ``box`` (a thread's),
        with the bound ``x.bound`` (and the symmetries of its palette when ``symmetric``),
        again with a lower one when the coordinator lowers it, waiting while ``gate`` is
        paused, until done; None when the leaf is no longer needed."""
        from evo.search import memo_kernel as mk

        start = time.perf_counter()
        cpu = time.thread_time()
        nodes = int(box[0][4][mk.NODES])
        runs = 0
        while True:
            runs += 1
            meta = box[0][4]
            meta[mk.STOP] = 0
            x.meta = meta
            if x.dead:
                self.wasted += int(box[0][4][mk.NODES]) - nodes
                return None
            if gate.paused:
                x.meta = None
                gate.park()
                continue
            bound = x.bound
            cost, box[0] = self._run(x.codes, bound, box[0], x.palette, symmetric)
            if cost is not None:
                break
        x.meta = None  # done: no stop is asked of this memo any more
        outcome, box[0] = self.outcome(x.codes, cost, bound, box[0])
        seconds = time.perf_counter() - start
        self.restarts += runs - 1
        self.leaf_cpu += time.thread_time() - cpu
        nodes = int(box[0][4][mk.NODES]) - nodes
        return spreading.Outcome(outcome.cost, outcome.exact, outcome.guesses, nodes, seconds)

    def outcome(
        self, codes: np.ndarray, cost: int, bound: int, memo: tuple
    ) -> tuple[spreading.Outcome, tuple]:
        """A leaf's answer from its search in ``memo`` (and the memo, grown if it had to):
        with its subtree's guesses when its cost is exact (below ``bound``)."""
        from evo.search import exact_kernel

        if cost >= bound:
            return spreading.Outcome(cost, False), memo
        out = np.empty(len(codes), dtype=np.int64)
        end = exact_kernel.harvest(codes, memo, self._base, self._game[0], self._nf, out, 0)
        if end < 0:  # the memo forgot a set below (to make room): find the guesses again
            guesses, memo = self._guesses(codes, memo)
            return spreading.Outcome(cost, True, guesses), memo
        return spreading.Outcome(cost, True, out[:end].copy()), memo

    def _guesses(self, codes: np.ndarray, memo: tuple) -> tuple[np.ndarray, tuple]:
        """The subtree's guesses of ``codes`` (as harvest writes them), searching the sets
        the memo lacks again (the guess does not depend on the symmetries used)."""
        from evo.search import exact_kernel
        from evo.search import memo_kernel as mk

        out: list[int] = []

        def walk(s: np.ndarray) -> None:
            nonlocal memo
            if len(s) <= 2:
                return
            _, guess, _ = mk.lookup_both(memo, self._base, s)
            if guess < 0:
                cost = None
                while cost is None:  # a stop asked for the leaf before it ended: ignored
                    memo[4][mk.STOP] = 0
                    cost, memo = self._run(s, UNBOUNDED, memo, self._identity, False)
                _, guess, _ = mk.lookup_both(memo, self._base, s)
                if guess < 0:
                    raise RuntimeError(f"the search of {len(s)} codes kept no guess")
            out.append(int(guess))
            grouped, sizes, _ = exact_kernel.split(self._game[0], guess, s, s, self._nf)
            pos = 0
            for size in sizes.tolist():
                walk(grouped[pos : pos + size])
                pos += size

        walk(codes)
        return np.asarray(out, dtype=np.int64), memo

    def _memo_guess(self, codes: np.ndarray, depth: int | None, node: Node) -> int:
        """The guess the memos (the Python recursion's, then the compiled one's) know for
        a sorted code set (of ``node``), or -1."""
        hit = self.exact.get(self._key(codes, depth, node))
        if hit is not None:
            return hit[1]
        if self._rule:
            return -1
        if depth is None:
            return int(self._lookup(self._memo, self._base, codes)[1])
        if not self._compiled_within:
            return -1
        from evo.search import memo_kernel

        key = memo_kernel.within_key(codes, self._limited(depth))
        return int(memo_kernel.lookup(self._memo, key)[1])

    def _two_guesses(self, codes: np.ndarray, node: Node, bound: int) -> int:
        """``solve`` within two guesses: a guess that leaves single codes, consistent first
        (``2n - 1``; else ``2n``), the lowest code among equals."""
        key = self._key(codes, 2, node)
        hit = self.exact.get(key)
        if hit is not None:
            return hit[0]
        cands = self._pool(codes, node)
        counts = partition_counts(self.game, codes, cands)
        win = self.game.win
        rest = np.delete(counts, win, axis=1)
        ok = rest.max(axis=1) <= 1
        consistent = ok & (counts[:, win] > 0)
        pick = consistent if consistent.any() else ok
        if not pick.any():
            return UNBOUNDED
        n, inside = len(codes), int(consistent.any())
        # All but the guess solved at the second guess: the last one, with fewest_last.
        cost = (2 * n - inside) * self.scale + (n - inside) * int(self.fewest_last)
        if cost < bound:
            self.exact[key] = (cost, int(cands[np.argmax(pick)]))
        return cost

    def _three_guesses(self, codes: np.ndarray, node: Node, bound: int) -> int:
        """``solve`` within three guesses with ``fewest_last``: every candidate whose parts
        all fit two guesses, by its least cost (each part ``s`` at ``(2s - 1) * scale + s -
        1``, exact when a guess of the part leaves single codes), the lowest code among
        equals; the parts of three codes or more searched (:meth:`_two_guesses`) while a
        candidate's least cost is below the best found. Here the kernel's shortcuts would
        take the first guess of least total, whatever the codes it leaves at the last guess.
        A mixed pool tries every guess here (its impossible ones are chosen by bound)."""
        key = self._key(codes, 3, node)
        hit = self.exact.get(key)
        if hit is not None:
            return hit[0]
        k_, n = self.scale, len(codes)
        low = max(self._lb[n] * k_, self.lower.get(key, 0))
        if low >= bound:
            return low
        cands = self._pool(codes, node)
        fit, least = self._three(self._source, cands, codes, self._nf, self._parts + 1, k_)
        order = np.argsort(least, kind="stable")
        best, best_g = bound, -1
        for j in order.tolist():
            if least[j] >= best:
                break
            g = int(cands[fit[j]])
            grouped, parts, _ = self._split(self._source, g, codes, codes, self._nf)
            if int(parts.max(initial=0)) <= 2:
                best, best_g = int(least[j]), g
                break
            below = node.then(g) if self.policy == "symmetry" or self._rule else node
            total, pos = n * k_, 0
            for s in parts.tolist():
                if s <= 2:
                    total += (2 * s - 1) * k_ + s - 1
                else:
                    total += self._two_guesses(grouped[pos : pos + s], below, UNBOUNDED)
                pos += s
                if total >= best:
                    break
            else:
                best, best_g = total, g
        low = UNBOUNDED if not len(order) else max(low, bound, int(least[order[0]]))
        return self._settle(key, best, best_g, low)

    def _settle(self, key: Hashable, best: int, guess: int, low: int) -> int:
        """A searched set's answer, kept in the memo: its cost and ``guess`` when one was
        found (``guess >= 0``), else the lower bound ``low`` its search proved."""
        if guess >= 0:
            self.exact[key] = (best, guess)
            return best
        self.lower[key] = low
        return low

    def _solve(
        self, codes: np.ndarray, key: Hashable, node: Node, bound: int, depth: int | None = None
    ) -> int:
        hit = self.exact.get(key)
        if hit is not None:
            return hit[0]
        n = len(codes)
        lb, k_ = self._lb, self.scale
        low = max(lb[n] * k_, self.lower.get(key, 0))
        if low >= bound:
            return low
        if depth is None and node.stabilizer.trivial and not self._rule:
            # No symmetry left (a node's symmetries only shrink below it): the compiled
            # recursion, whose candidates do not depend on the node, chooses the same.
            return self._compiled(codes, bound)
        if self.max_memo is not None and len(self.exact) + len(self.lower) > self.max_memo:
            self.exact.clear()
            self.lower.clear()
        self._py_nodes += 1
        if self.deadline is not None and (self._py_nodes & 63) == 0:
            if time.monotonic() > self.deadline:
                raise SearchTimeout
        cands = self._pool(codes, node)
        # The kernel bounds totals: in cost units, a total ``t`` costs at least ``t * k_``.
        kept, bounds, biggest, least = self._score(
            cands, codes, -(-bound // k_), low // k_, self._game, self._identity
        )
        if self.impossible:
            kept, bounds, biggest = self._mixed(
                kept, bounds, biggest, cands, codes, self.impossible
            )
        best, best_g = bound, -1
        below_depth = None if depth is None else depth - 1
        seen: set[bytes] = set()
        symmetry = self.policy == "symmetry"
        exact, lower = self.exact, self.lower
        for i, b, big in zip(kept.tolist(), bounds.tolist(), biggest.tolist()):
            b *= k_
            if b >= best:
                break
            g = int(cands[i])
            if big <= 2:
                # Parts of one or two codes cost exactly their bound, the least left (none
                # of their codes at the last guess: depth 3, where some would be, is
                # searched by ``_three_guesses`` with fewest_last).
                best, best_g = b, g
                break
            grouped, sizes, label = self._split(self._source, cands[i], codes, codes, self._nf)
            # A guess that splits the codes as one already tried costs the same (but under
            # a rule, which the guess itself changes).
            mark = label.tobytes()
            if mark in seen:
                continue
            if not self._rule:
                seen.add(mark)
            below = node.then(g) if symmetry or self._rule else node
            # The parts of three codes or more, with the best bound the memo knows.
            parts = []
            pos = 0
            total = n * k_
            for s in sizes.tolist():
                if s <= 2:
                    total += (2 * s - 1) * k_
                else:
                    part = grouped[pos : pos + s]
                    k = self._key(part, below_depth, below)
                    known = exact.get(k)
                    low_k = known[0] if known is not None else max(lb[s] * k_, lower.get(k, 0))
                    parts.append((part, k, low_k))
                pos += s
            rest = sum(p[2] for p in parts)
            if total + rest >= best:
                continue
            for part, k, low_k in parts:
                rest -= low_k
                if below_depth is None:
                    total += self._solve(part, k, below, best - total - rest)
                else:
                    total += self.solve(part, below, best - total - rest, depth=below_depth)
                if total + rest >= best:
                    break
            else:
                best, best_g = total, g
        return self._settle(key, best, best_g, max(low, bound, int(least) * k_))

    def _pool(self, codes: np.ndarray, node: Node) -> np.ndarray:
        """The candidate guesses at a node, ascending (one per orbit with ``symmetry``;
        only the legal ones under a rule)."""
        if self._rule and (self.pool == "all" or self.impossible):
            return candidates(self.game, codes, pool="all", history=node.history)
        if self.pool == "all" or self.impossible:
            if self.policy == "symmetry":
                return node.stabilizer.representatives()
            return self._all
        if self.policy == "symmetry":
            return node.stabilizer.representatives(codes)
        return codes


#: Above this many kinds of codes (color multisets), the search keeps no table of their
#: common colors (kinds squared bytes) and bounds other guesses by ``2n`` alone.
MAX_KINDS = 8192


@lru_cache(maxsize=8)
def code_kinds(game: Game) -> tuple[np.ndarray, np.ndarray]:
    """``(kind, common)``: each code's color multiset, numbered (codes of one kind have
    the same colors), and how many colors two kinds have in common, with repeats (empty
    above :data:`MAX_KINDS` kinds, and for a game not of the Mastermind family, every
    code then of kind 0). Computed once per game (0.4 s for (6,9)), shared by its
    solvers, which only read it. The floors it gives hold for black-peg Mastermind too:
    its parts are unions of Mastermind's, no more of them."""
    pegs = peg_game(game)
    if pegs is None:
        return np.zeros(game.num_guesses, dtype=np.int32), np.zeros((0, 0), dtype=np.uint8)
    ordered = np.sort(pegs.digits, axis=1).astype(np.int64)
    key = ordered @ (pegs.colors ** np.arange(pegs.pegs, dtype=np.int64))
    _, first, kind = np.unique(key, return_index=True, return_inverse=True)
    nk = len(first)
    if nk > MAX_KINDS:
        return np.zeros(game.num_codes, dtype=np.int32), np.zeros((0, 0), dtype=np.uint8)
    counts = np.zeros((nk, pegs.colors), dtype=np.uint8)
    for p in range(pegs.pegs):
        np.add.at(counts, (np.arange(nk), ordered[first, p]), 1)
    common = np.zeros((nk, nk), dtype=np.uint8)
    for a in range(0, nk, 256):
        common[a : a + 256] = np.minimum(counts[a : a + 256, None, :], counts[None]).sum(-1)
    return kind.astype(np.int32).ravel(), common


def _sorted(codes: np.ndarray) -> np.ndarray:
    return np.sort(np.asarray(codes, dtype=np.int64))


#: Each worker thread's solvers for the leaves of spread searches, by game and options.
_LEAF_SOLVERS = threading.local()


def solve_leaf(
    game: Game,
    options: tuple,
    codes: np.ndarray,
    played: np.uint32,
    pis: np.ndarray,
    luts: np.ndarray,
    bound: int,
) -> spreading.Outcome:
    """A leaf of a spread search, as a pure task (a Dask worker runs it): the compiled
    search of ``codes`` below ``bound``, with the symmetries ``(played, pis, luts)`` of its
    palette, by a solver of ``options`` ``(session, policy, pool, impossible, memory)``
    that the worker thread keeps for the tasks of one ``session`` (one search; its memo
    taking at most ``memory`` bytes; None: a share of the worker's own memory limit)."""
    from evo.search import memo_kernel as mk

    session, policy, pool, impossible, memory = options
    if memory is None:
        memory = _worker_memory()
    key = (session, game.key, policy, pool, impossible, memory)
    solver = getattr(_LEAF_SOLVERS, "solvers", {}).get(key)
    if solver is None:  # a new search: the memo of the one before is let go
        solver = Solver(game, policy=policy, pool=pool, impossible=impossible, memory=memory)
        _LEAF_SOLVERS.solvers = {key: solver}
    symmetric = policy == "symmetry"
    if symmetric:
        group = palette(game)._replace(played=np.uint32(played), pis=pis, luts=luts)
    else:
        group = solver._identity
    start = time.perf_counter()
    nodes = int(solver._memo[4][mk.NODES])
    cost, solver._memo = solver._run(codes, bound, solver._memo, group, symmetric, main=True)
    assert cost is not None
    out, solver._memo = solver.outcome(codes, cost, bound, solver._memo)
    seconds = time.perf_counter() - start
    return spreading.Outcome(
        out.cost, out.exact, out.guesses, int(solver._memo[4][mk.NODES]) - nodes, seconds
    )


def _worker_memory() -> int | None:
    """Bytes a Dask worker's leaves may keep in memos: half its memory limit (Dask pauses
    a worker at 80%), or None outside a worker or without a limit."""
    try:
        from distributed import get_worker

        limit = get_worker().memory_manager.memory_limit
    except (ImportError, ValueError, AttributeError):
        return None
    return int(limit) // 2 if limit else None


_SHARED: dict[tuple, Solver] = {}

#: Memo entries a shared solver keeps before it empties its memo: the exact search of the
#: largest part after Bulls and Cows' first guess (1440 codes) makes about two million
#: (about 0.5 GB); a memo emptied in the middle of a search makes it start again.
SHARED_MEMO = 3_000_000


def shared_solver(
    game: Game,
    *,
    pool: Pool = "all",
    policy: Policy = "path-independent",
    impossible: int = 0,
    fewest_last: bool = False,
) -> Solver:
    """The process's solver for a game, pool (with ``impossible`` guesses), policy and
    objective (``fewest_last``), its memo shared by all callers (the evolution's operators
    and reference totals); memo capped.

    Both policies choose the same guess for a code set: the first optimal guess in the
    search's order is the lowest code of its orbit, so the symmetry policy keeps it among
    its candidates; that one is much faster near the root, but needs each call's node."""
    key = (game.key, pool, policy, impossible if pool == "consistent" else 0, fewest_last)
    if key not in _SHARED or _SHARED[key].game is not game:
        _SHARED[key] = Solver(
            game,
            policy=policy,
            pool=pool,
            impossible=impossible,
            max_memo=SHARED_MEMO,
            fewest_last=fewest_last,
        )
    return _SHARED[key]
