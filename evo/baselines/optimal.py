"""The exact optimum baseline: the tree of least total for a whole game.

The search itself is :class:`evo.search.exact.Solver` with the ``symmetry`` policy (one
candidate per orbit of the symmetries fixing the history), spread over the threads of
this process or a Dask cluster (:mod:`evo.search.spread`), its memos within a memory
budget. This module decides whether to run it (an estimate from measured games, refused
beyond the time limit), gives up at the limit, and records the best-known optima with
their sources.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Literal

import numpy as np

from evo.baselines.limits import (
    DEFAULT_TIME_LIMIT,
    BaselineRefused,
    check_time_limit,
    duration_text,
    refuse_beyond,
)
from evo.core.engine import MAX_WORKERS, threads
from evo.core.game import Game, available_memory_bytes
from evo.core.kinds import WORDLE_KINDS
from evo.core.numbers import whole
from evo.core.tree import Tree
from evo.core.treeio import save_tree
from evo.games.pegs import count_codes, peg_game
from evo.proofs.floors import Floors, floors_at_depth, floors_of_certificate, plant
from evo.search import spread
from evo.search.build import Node, build_tree
from evo.search.exact import UNBOUNDED, SearchTimeout, Solver, solve_leaf
from evo.search.palette import palette

#: Seconds measured for the whole optimum (search and tree, with the first load of the
#: compiled kernels) of games, on the machine of benchmarks/RESULTS.md (2 cores; the
#: small games heavily shared at the time, the largest of each variant measured
#: again, whole processes, once the search was compiled whole); the refusal extrapolates
#: from them.
MEASURED_SECONDS: dict[tuple[str, int, int], float] = {
    ("mastermind", 3, 5): 1.9,
    ("mastermind", 5, 3): 2.5,
    ("mastermind", 3, 6): 1.4,
    ("mastermind", 4, 4): 1.6,
    ("mastermind", 3, 7): 1.4,
    ("mastermind", 7, 2): 3.3,
    ("mastermind", 4, 5): 3.1,
    ("mastermind", 3, 8): 2.4,
    ("mastermind", 5, 4): 3.8,
    ("mastermind", 4, 6): 0.54,
    ("mastermind", 3, 9): 5.1,
    ("mastermind", 4, 7): 4.9,
    ("mastermind", 4, 8): 22.7,
    ("mastermind", 4, 9): 330.0,  # CPU seconds of the proof on 2 threads (315 s wall)
    ("mastermind", 5, 6): 2565.0,  # CPU seconds of the proof on 2 threads (1616 s wall)
    ("mastermind", 5, 5): 2.4,
    ("bulls-cows", 3, 6): 2.3,
    ("bulls-cows", 3, 7): 1.7,
    ("bulls-cows", 3, 8): 2.4,
    ("bulls-cows", 4, 6): 1.9,
    ("bulls-cows", 3, 10): 1.7,
    ("bulls-cows", 4, 7): 2.4,
    ("bulls-cows", 4, 8): 0.8,
    ("bulls-cows", 4, 9): 1.3,
    ("bulls-cows", 4, 10): 26.3,
    ("bulls-cows", 5, 8): 889.0,  # CPU seconds of the proof on 2 threads (607 s wall)
}

#: One thread's seconds taken for hard-mode Wordle's optimum over every first guess, a
#: floor rather than a measure: Selby's solver, specialised to Wordle, takes "a day or two
#: on a single core" (its README; docs/WORDLE.md 4.4), and evo's search under a rule runs
#: in Python. So it is refused under 2 days.
WORDLE_OPTIMUM_SECONDS = 2 * 86400.0

#: One thread's seconds of Wordle's optimum decided first guess by first guess
#: (:func:`_by_first_guesses`): `evo rank --game wordle` took 956 s of CPU in all, 8 min
#: 10 s on 2 processes (benchmarks/RESULTS.md, Wordle), then SALET's tree about 10 s.
WORDLE_RANK_SECONDS = 970.0

#: The refusal of the optimum: a :class:`~evo.baselines.limits.BaselineRefused` (the
#: name it had when the optimum was the only baseline with a time limit).
OptimalRefused = BaselineRefused


#: Bytes a process of the search takes besides the game and its memos (Python, NumPy,
#: numba and the compiled kernels).
PROCESS_BYTES = 512 << 20

#: The least memory the memos are given, whatever the budget.
LEAST_MEMO_BYTES = 64 << 20


#: ``Where.floors``: ``auto``, ``none``, a depth, or a certificate's path.
FloorsOption = Literal["auto", "none"] | int | Path

#: With ``floors="auto"``, a game of this many codes or more has its first guesses'
#: parts bounded :data:`FLOOR_DEPTH` levels deep before the search. Below it they cost
#: more than they save: (4,8)'s optimum takes 18% less time without them, (4,9)'s 22%
#: more (benchmarks/RESULTS.md).
FLOOR_CODES = 5000

#: The depth of the automatic floors (as ``evo bound --depth`` counts: the first guess
#: and one level below it).
FLOOR_DEPTH = 2


class NoneBelow(BaselineRefused):
    """The optimum's search with an upper bound found nothing below it and has no
    breaker of that total to give: the optimum is at least ``lower`` (proved)."""

    def __init__(self, reason: str, *, lower: int):
        super().__init__(reason)
        self.lower = lower

    def __str__(self) -> str:
        return self.reason  # a proof, not a limit: no option raises it


@dataclass(frozen=True)
class Where:
    """Where and how the optimum is searched. ``memory``: bytes the search may use, the
    game and its memos (None: 80% of the memory available, as :func:`make_game`'s
    default); ``results``: a results file (:class:`evo.search.spread.Results`): the
    subproblems finished are appended to it, and those it holds are not searched again;
    ``scheduler``: the address of a Dask scheduler whose workers search the subproblems;
    ``workers``: else, a local Dask cluster of this many worker processes (0: the threads
    of this process, :func:`~evo.core.engine.threads`); ``report``: called with a line
    of progress every minute of a spread search; ``best``: a tree file where a spread
    search writes the best tree found so far, each time a first guess is decided at a new
    least cost (an upper bound of the optimum while the proof goes on); ``note``: told,
    progress or not, what the user must know (a results file's lines not used);
    ``upper``: an upper bound of the search: what costs ``upper`` or more is dropped
    (None: no bound); ``against``: a breaker of the game, whose total is the upper bound
    (the least of the two with ``upper``): when nothing costs less, the breaker is optimal
    and is the answer; ``floors``: what the first guesses' parts are proved to cost at
    least before the search, planted in its memo (:mod:`evo.proofs.floors`): ``auto``
    (bounded :data:`FLOOR_DEPTH` levels deep from :data:`FLOOR_CODES` codes on), a
    depth, the path of an ``evo bound`` certificate of the game, or ``none``."""

    memory: int | None = None
    results: str | Path | None = None
    scheduler: str | None = None
    workers: int = 0
    report: Callable[[str], None] | None = None
    best: str | Path | None = None
    note: Callable[[str], None] | None = None
    upper: int | None = None
    against: Tree | None = None
    floors: FloorsOption = "auto"

    def bound(self, game: Game) -> int:
        """The search's bound at the root: the least of ``upper`` and ``against``'s total
        (:data:`UNBOUNDED` without either); ValueError for a breaker of another game or
        an upper bound below 1."""
        bound = UNBOUNDED
        if self.upper is not None:
            if self.upper < 1:
                raise ValueError(f"the upper bound must be 1 or more, not {self.upper}")
            bound = self.upper
        if self.against is not None:
            if self.against.game.key != game.key:
                raise ValueError(f"the breaker is of {self.against.game.name}, not of {game.name}")
            bound = min(bound, self.against.total)
        return bound

    def __post_init__(self) -> None:
        whole(self.workers, what="workers", low=0, high=MAX_WORKERS)

    @property
    def coordinated(self) -> bool:
        """Whether the search runs through the spread search's coordinator from the root:
        for a results file, a best tree file or Dask workers (else the solver spreads a
        big search over its threads by itself)."""
        return (
            self.results is not None
            or self.best is not None
            or self.scheduler is not None
            or self.workers > 0
        )

    @property
    def processes(self) -> int:
        """The searches that run side by side: the local cluster's workers, or threads
        (a remote cluster's size is not known ahead)."""
        return self.workers if self.workers > 0 else threads()


def memo_budget(game: Game, memory: int | None) -> int:
    """Bytes the exact search's memos may take: ``memory`` (None: 80% of the memory
    available), less what the game and the process need."""
    total = int(available_memory_bytes() * 0.8) if memory is None else memory
    need, _ = game.memory_need(memory=memory)
    return max(LEAST_MEMO_BYTES, total - need - PROCESS_BYTES)


#: How much of a further thread or worker process the exact search puts to use: the
#: speed-up of ``n`` is taken as ``1 + (n - 1) * SPREAD_EFFICIENCY`` (measured on (4,8),
#: benchmarks/RESULTS.md).
SPREAD_EFFICIENCY = 0.8


def estimate_seconds(game: Game, *, processes: int = 1, ranked: bool = False) -> float | None:
    """Seconds the optimum is expected to take on ``processes`` threads or worker
    processes: the measured time of a game in :data:`MEASURED_SECONDS` (one thread),
    else an exponential in the number of codes fitted (least squares on the logarithm of
    the time) to the three largest measured games of the variant, divided by the
    speed-up of ``processes`` (:data:`SPREAD_EFFICIENCY`); None without two. ``ranked``:
    the optimum first guess by first guess (:func:`by_first_guesses`), Wordle's measured
    :data:`WORDLE_RANK_SECONDS`; else the whole search's (``evo polish`` of a band holding
    the root takes that one)."""
    one = _one_thread_seconds(game, ranked=ranked)
    if one is None:
        return None
    return one / (1 + (max(processes, 1) - 1) * SPREAD_EFFICIENCY)


def _one_thread_seconds(game: Game, *, ranked: bool = False) -> float | None:
    if game.kind in WORDLE_KINDS:  # other word lists (a key of two) are not timed ahead
        if len(game.key) != 1:
            return None
        return WORDLE_RANK_SECONDS if ranked and game.rule is None else WORDLE_OPTIMUM_SECONDS
    pegs = peg_game(game)
    if pegs is None:  # nothing measured: a custom game's optimum is not timed ahead
        return None
    key = (pegs.variant, pegs.pegs, pegs.colors)
    if key in MEASURED_SECONDS:
        return MEASURED_SECONDS[key]
    points = sorted(
        (count_codes(p, c, v), s) for (v, p, c), s in MEASURED_SECONDS.items() if v == pegs.variant
    )[-3:]
    if len(points) < 2:
        return None
    m = np.array([p[0] for p in points], dtype=float)
    t = np.log([max(p[1], 1e-3) for p in points])
    if np.ptp(m) == 0:
        return float(np.exp(t.max()))
    rate, intercept = np.polyfit(m, t, 1)
    return float(np.exp(intercept + max(float(rate), 0.0) * game.num_codes))


def optimal(
    game: Game, *, time_limit: float | None = DEFAULT_TIME_LIMIT, where: Where | None = None
) -> Tree:
    """The tree of smallest total, searched as ``where`` says (default: on this process's
    threads, within 80% of the memory available). Raises :class:`OptimalRefused` (with
    an estimate) when the estimate is beyond ``time_limit`` seconds, or when the limit
    is reached (a results file keeps what was finished). With an upper bound
    (``where.upper``, ``where.against``), what costs as much is dropped: the tree is the
    same when the optimum is below it; when nothing is, the breaker ``where.against`` is
    the answer (it is optimal), else :class:`NoneBelow` says the optimum is at least the
    bound."""
    where = where or Where()
    if game.rule is not None and where.coordinated:
        raise ValueError(
            f"the optimum of {game.name}, a game with a rule on guesses, is searched in "
            "this process only (no results file, workers or cluster)"
        )
    time_limit = check_time_limit(time_limit)
    bound = where.bound(game)
    ranked = by_first_guesses(game, where)
    refuse_optimum(
        game, time_limit, processes=where.processes, on=f"on {_on(where)}", ranked=ranked
    )
    from evo.search.kernels import ensure_compiled, kernels_for, tell

    ensure_compiled(kernels_for(game, ("search",)), say=where.report or tell)  # off the clock
    if ranked:
        return _by_first_guesses(game, where, bound, time_limit)
    start = time.monotonic()
    deadline = None if time_limit is None else start + time_limit
    per = where.workers if where.scheduler is None and where.workers > 0 else 1
    memory = memo_budget(game, where.memory)
    solver = Solver(game, policy="symmetry", deadline=deadline, memory=memory // per)
    codes = game.all_codes().astype(np.int64)
    floors = first_floors(game, where.floors, upper=bound)
    if floors is not None:
        plant(floors, solver)
        if where.report is not None:
            where.report(
                f"the first guesses' parts bounded ({floors.how}, {floors.seconds:.1f} s): "
                f"the optimum at least {floors.least:,}"
            )
    try:
        if not where.coordinated:
            cost = solver.solve(codes, Node(game), bound)  # spread on the threads when big
        else:
            cost = _spread(game, solver, codes, where, memory, bound, floors)
    except SearchTimeout:
        if time_limit is None:  # no deadline, so no timeout: not expected
            raise
        est = estimate_seconds(game, processes=where.processes)
        more = f"; estimated {duration_text(est)}" if est is not None and est > time_limit else ""
        kept = "" if where.results is None else f"; what was finished is in {where.results}"
        after = f", after {solver.nodes:,} searched nodes{more}{kept}"
        raise _gave_up(game, time_limit, est, after) from None
    if cost >= bound:
        return _none_below(game, where, bound, f"proved after {solver.nodes:,} searched nodes")
    return build_tree(game, solver.best_guess)


def _gave_up(game: Game, time_limit: float, est: float | None, tail: str) -> BaselineRefused:
    """The refusal of a search that reached its time limit (``tail``: what it did)."""
    return BaselineRefused(
        f"gave up: the exact optimum of {game.name} ({game.num_codes:,} codes) did not "
        f"finish in the {duration_text(time_limit)} allowed{tail}",
        estimate_seconds=est,
    )


def _none_below(game: Game, where: Where, bound: int, how: str) -> Tree:
    """Nothing costs less than ``bound``: the breaker ``where.against`` when it totals
    that (it is optimal), else :class:`NoneBelow` (``how``: how it was proved)."""
    if where.against is not None and where.against.total == bound:
        return where.against
    raise NoneBelow(
        f"no breaker of {game.name} totals less than {bound:,}: the optimum is at least "
        f"{bound:,} ({how})",
        lower=bound,
    )


def by_first_guesses(game: Game, where: Where) -> bool:
    """Whether the optimum is searched first guess by first guess (:mod:`evo.proofs.firsts`:
    cheap bounds rule out most at once, the exact search decides the rest), then the tree
    of the best: Wordle's normal mode on any lists, whose 12,972 first guesses the whole
    search would take each in turn; not with a results file or a best-tree file (the
    spread search's), nor a local Dask cluster (``workers``: the ranking runs its own
    processes)."""
    return (
        game.kind in WORDLE_KINDS
        and game.rule is None
        and where.results is None
        and where.best is None
        and where.workers == 0
    )


def _by_first_guesses(game: Game, where: Where, bound: int, time_limit: float | None) -> Tree:
    """The optimum first guess by first guess (:func:`by_first_guesses`): every first guess
    decided below ``bound`` (held to: none raised), then the tree of the best."""
    from evo.proofs.first_tree import opened_tree
    from evo.proofs.firsts import rank_first_guesses

    try:
        ranking = rank_first_guesses(
            game,
            cut=None if bound >= UNBOUNDED else bound,
            keep_cut=bound < UNBOUNDED,
            workers=1 if where.scheduler is not None else where.processes,
            scheduler=where.scheduler,
            seconds=time_limit,
        )
    except SearchTimeout:
        est = estimate_seconds(game, processes=where.processes, ranked=True)
        more = f"; estimated {duration_text(est)}" if est is not None else ""
        raise _gave_up(game, time_limit or 0, est, more) from None
    best = ranking.optimum
    if best is None or best.low >= bound:
        return _none_below(game, where, bound, "every first guess ruled out")
    return opened_tree(game, best.guess, total=best.low)


def refuse_optimum(
    game: Game,
    time_limit: float | None,
    *,
    processes: int = 1,
    on: str | None = None,
    ranked: bool = False,
) -> float | None:
    """The exact optimum's estimate on ``processes`` threads or worker processes
    (:func:`estimate_seconds`; None: none), refused (:class:`BaselineRefused`, with it)
    beyond ``time_limit`` seconds (None: no limit) before any work: the one refusal of
    the optimum's search, ``evo baselines --only optimal``'s and ``evo polish``'s of a
    band that holds the root. ``on``: where, as the message says (default the threads)."""
    est = estimate_seconds(game, processes=processes, ranked=ranked)
    where = on or f"on {processes} thread{'s' if processes > 1 else ''}"
    refuse_beyond(game, "optimal", est, time_limit, on=where)
    return est


def floors_apply(game: Game) -> bool:
    """Whether floors can bound ``game``'s first guesses: its guesses are its codes, with
    no rule on them (the floors bound the codes' first guesses, and a set's floor holds
    wherever it is met only when no rule makes its guesses depend on the path)."""
    return game.rule is None and game.num_guesses == game.num_codes


def check_floors(game: Game, option: FloorsOption) -> None:
    """ValueError when ``option`` asks for floors (a depth or a certificate, ``auto``
    skipping such a game) of a game they cannot bound (:func:`floors_apply`): said before
    any work, in one line by the command line (``--floors``)."""
    if option not in ("auto", "none") and not floors_apply(game):
        raise ValueError(
            f"floors bound the first guesses of a game whose guesses are its codes, with no "
            f"rule on them: not {game.name}"
        )


def first_floors(game: Game, option: FloorsOption, *, upper: int = UNBOUNDED) -> Floors | None:
    """The floors of the first guesses that ``option`` asks for (``Where.floors``), None
    for none; a class is bounded no further once it reaches ``upper``. Only a game whose
    guesses are its codes, with no rule on them (:func:`check_floors`)."""
    check_floors(game, option)
    if option == "none" or (
        option == "auto" and (game.num_codes < FLOOR_CODES or not floors_apply(game))
    ):
        return None
    if isinstance(option, Path):
        return floors_of_certificate(game, option)
    depth = FLOOR_DEPTH if option == "auto" else option
    if not isinstance(depth, int) or isinstance(depth, bool) or depth < 0:
        raise ValueError(
            f"floors must be auto, none, a depth of 0 or more or a path, not {option!r}"
        )
    return floors_at_depth(game, depth, below=None if upper >= UNBOUNDED else upper)


def _on(where: Where) -> str:
    if where.scheduler is not None:
        return "the Dask cluster at " + where.scheduler
    if where.workers > 0:
        return f"{where.workers} worker processes"
    n = threads()
    return f"{n} thread{'s' if n > 1 else ''}"


def progress_text(stats: spread.Stats) -> str:
    """How far a spread search's root is, in words: the bounds proved so far on the
    optimal total, and the first guesses decided."""
    if stats.upper >= 0:
        where = f"the optimum between {stats.lower:,} and {stats.upper:,}"
    else:
        where = f"the optimum at least {stats.lower:,}"
    text = f"{where} ({stats.decided} of {stats.candidates} first guesses decided"
    if stats.opened >= 0:
        text += f"; the first under search costs at least {stats.opened:,}"
    return text + ")"


def _write_best(
    game: Game,
    solver: Solver,
    path: Path,
    say: Callable[[str], None] | None,
    guess: int,
    cost: int,
) -> None:
    """Write the tree of first guess ``guess``, of total ``cost``, to ``path``: below it
    the choices of the solver's memos (nothing is searched; a choice dropped from them
    leaves the file as it was, until a later first guess or the end)."""

    def choose(codes: np.ndarray, node: Node) -> int:
        if len(codes) == game.num_codes:
            return guess
        return solver.best_guess(codes, node, search=False)

    try:
        tree = build_tree(game, choose)
    except LookupError:
        return
    if tree.total != cost:
        raise AssertionError(f"the tree of a first guess of cost {cost} totals {tree.total}")
    save_tree(tree, path, name="optimal", partial=True)
    if say is not None:
        say(f"the best tree so far, total {cost:,}, is in {path}")


def _results_game(game: Game) -> list:
    """The game as a results file names it: ``[variant, pegs, colors]`` for the
    Mastermind family, else ``[kind, name, digest]``."""
    pegs = peg_game(game)
    if pegs is not None:
        return [pegs.variant, pegs.pegs, pegs.colors]
    return [game.kind, game.name, game.spec.get("digest")]


def _spread(
    game: Game,
    solver: Solver,
    codes: np.ndarray,
    where: Where,
    memory: int,
    bound: int,
    planted: Floors | None,
) -> int:
    """The optimum's search below ``bound`` spread with a results file, or on a Dask
    cluster: as :meth:`Solver.solve` answers; ``planted``: the first guesses' floors in
    its memo (else, for the reports, those of the lower bound one level deep)."""
    from evo.proofs.refine import first_guess_floors

    results = None
    if where.results is not None:
        results = spread.Results(
            where.results,
            {"game": _results_game(game), "pool": "all", "policy": "symmetry"},
        )
        if results.unsealed and where.note is not None:
            n = results.unsealed
            where.note(
                f"{where.results}: {n:,} line{'s' if n > 1 else ''} not used: not written on "
                "this machine, or edited (the seal does not hold); searched again"
            )
    report = floors = None
    if where.report is not None:
        say = where.report
        if planted is not None:
            floors = planted.totals()
        else:
            floors = first_guess_floors(game)
            say(
                f"the first guesses bounded one level deep: the optimum at least "
                f"{min(floors.values()):,}"
            )

        def report(stats: spread.Stats) -> None:
            say(
                f"{stats.leaves:,} subproblems searched ({stats.nodes:,} nodes, "
                f"{stats.seconds:,.0f} s), {stats.reused:,} from the results file; "
                + progress_text(stats)
            )

    improved = None
    if where.best is not None:
        improved = partial(_write_best, game, solver, Path(where.best), where.report)
    group = palette(game, (), symmetries=True)
    try:
        if where.scheduler is None and where.workers <= 0:
            return solver.spread(
                codes,
                bound,
                group,
                True,
                results=results,
                report=report,
                improved=improved,
                floors=floors,
            )
        per = None if where.scheduler is not None else memory // where.workers
        session = f"{os.getpid()}-{time.time_ns()}"
        task = partial(solve_leaf, game, (session, "symmetry", "all", 0, per))
        from evo.search.kernels import kernels_for

        need = kernels_for(game, ("search",))
        with spread.dask_client(
            where.scheduler, workers=where.workers, memory=per, kernels=need
        ) as client:
            runner = spread.Cluster(client, task)
            return solver.spread(
                codes,
                bound,
                group,
                True,
                runner=runner,
                results=results,
                report=report,
                improved=improved,
                floors=floors,
            )
    finally:
        if results is not None:
            results.close()
