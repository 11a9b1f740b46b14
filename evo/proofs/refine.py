"""The game's lower bound refined part by part (``evo bound``): the schedule of the tasks
of :mod:`evo.proofs.bound` (docs/DESIGN.md §5, "Lower bounds").

The game's bound is the least class, a class ``M + sum`` of its parts' bounds. The classes
are refined best first: the parts of the class whose bound is the least go one level
deeper, until the depth asked, the time, or (with neither) every part of the least class
is solved exactly, which is then the optimum. With upper bounds per part (a breaker's
subtrees, :class:`~evo.proofs.bound.Uppers`) the time goes to the gaps instead, one part
per worker at a time; and with a time limit each such part first tries the exact search
itself, its budget what would lift the class to the least upper bound known: a search
that ends below the budget solves the part, one that reaches it proves the part costs at
least the budget (depth :data:`~evo.proofs.bound.BUDGET`), and with it the class no
better than the upper. On parts of a thousand codes the exact search, pruned by its best
subtree found, ends in seconds where a third level of ``V`` takes a minute. The
certificate holds after every task, so a search can go on from it (``resume``): a
stopped one loses only its running tasks.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from evo.core.game import Game
from evo.proofs.bound import (
    BUDGET,
    EXACT_BELOW,
    Bound,
    ClassBound,
    PartBound,
    PartResult,
    Uppers,
    _certificate_run,
    _initial_classes,
    _kept_bounder,
    certificate_classes,
    certificate_parts,
    certificate_sealed,
    check_certificate,
    part_bound,
    warm_up,
)
from evo.search.exact import UNBOUNDED, Solver
from evo.search.tasks import task_mapper

if TYPE_CHECKING:
    from evo.proofs.memo_file import KeptMemo

#: Seconds a task is taken to cost at least, in :func:`_gap_order`: a part never searched
#: (0 seconds) is not infinitely cheap.
TASK_SECONDS = 0.01

#: Seconds a part's first task is given in a bound with uppers and a time limit (at least
#: twice what its last task took); doubled each time a task of the part runs out.
EXACT_SECONDS = 1.0

#: ``(seconds, lower bound, upper bound or None)``: the history of a bound.
History = list[tuple[float, int, int | None]]


def lower_bound(
    game: Game,
    *,
    depth: int | None = None,
    seconds: float | None = None,
    exact_below: int = EXACT_BELOW,
    scheduler: str | None = None,
    workers: int = 1,
    progress: Callable[[Bound], None] | None = None,
    resume: dict[str, Any] | None = None,
    uppers: Uppers | None = None,
    first: int | None = None,
    memo: KeptMemo | None = None,
) -> Bound:
    """A proved lower bound of ``game``'s least total.

    ``depth``: levels of guesses tried exhaustively, the first guess's level included
    (0: the first guess scored with the perfect-split bounds of its parts). ``seconds``:
    refine, best first, until then (with ``depth``: whichever comes first). Neither: the
    optimum itself (every part of the least class solved exactly; big games take
    forever). ``exact_below``: sets of at most this many codes are solved exactly.
    ``scheduler``: a Dask scheduler's address to run the tasks on; else ``workers``
    local processes (1: this one, the smallest parts first). ``progress`` is told the
    bound proved so far after every task (a whole :class:`Bound`, whose certificate
    holds). ``resume``: a certificate of the game (:func:`read_certificate`) to go on
    from, its parts' bounds and depths taken as proved when its seal holds
    (:func:`certificate_sealed`: written on this machine), its time, tasks and history
    carried on; else every part is proved again first (:func:`check_certificate`) and
    nothing of its run is carried on. ``seconds`` counts this call's time only.

    ``uppers`` (:func:`tree_uppers`, :func:`lookahead_uppers`): upper bounds of parts,
    which direct the time to the gaps: in the least class, when each of its parts has an
    upper, the part whose last task took the least seconds per unit of its gap (upper
    less bound; the widest gap first among parts not searched yet) goes one level deeper
    (one part per worker at a time, whatever its depth; a part whose bound reaches its
    upper is closed), and a task is given at most half the time left while other parts
    wait (one that runs out is set aside until they are done). A class without uppers is
    refined as without them (every part one level deeper). The bound reports the least
    class upper (or ``uppers.total``) and the gap. With ``seconds`` too (not ``depth``),
    a part's task is the exact search first, its budget :func:`_budget` (at most a rise
    above the part's bound: its share of the class's gap, :func:`_share`, doubled when
    reached, halved when it runs out), turn about with a level deeper, each part's
    allowance doubled when its task runs out; the bound is
    the optimum once the least class total reaches the least upper.

    ``first``: only the breakers that open with this guess (its symmetry class): a bound
    of their least total (the optimum with that first guess when solved), with no
    certificate to resume from (a certificate holds every class).

    ``memo`` (:func:`evo.proofs.memo_file.open_memo`): a memo file whose facts the exact
    search starts with, written again from its memo as the bound goes on and at its end
    or stop; used when the tasks run in this process (one worker), the others keeping
    their memos in their own processes.
    """
    if first is not None and resume is not None:
        raise ValueError("a bound with a fixed first guess does not resume a certificate")
    if depth is not None and depth < 0:
        raise ValueError(f"depth must be 0 or more, not {depth}")
    if seconds is not None and seconds <= 0:
        raise ValueError(f"seconds must be positive, not {seconds}")
    from evo.search.kernels import kernels_for

    # The kernels compiled where the tasks run (here, or a Dask worker's machine) first:
    # not on the clock.
    need = kernels_for(game, ("search",))
    # The local workers started and warmed up first too: the time is the tasks'. No more
    # of them than a round's tasks can be: the parts of one first guess, one per feedback.
    workers = min(workers, game.num_feedbacks - 1)
    tasks_run = task_mapper(
        scheduler=scheduler, workers=workers, ordered=False, kernels=need, warm=(warm_up, (game,))
    )
    searcher = None  # the exact search whose memo the file keeps
    if memo is not None and tasks_run.one_by_one:
        searcher = _kept_bounder(game, exact_below).solver
        memo.plant(searcher)
    with tasks_run as mapper, _memo_saved(memo, searcher):
        began = time.monotonic()
        classes, before, tasks, history = _start(game, first, resume, exact_below)
        run = _Refinement(
            game,
            classes,
            exact_below=exact_below,
            target=None if depth is None else depth - 1,  # the parts' depth
            seconds=seconds,
            workers=workers,
            one_by_one=tasks_run.one_by_one,
            uppers=uppers,
            first=first,
            progress=progress,
            saved=None if memo is None or searcher is None else (memo, searcher),
            began=began,
            start=began - before,  # the time reported: the certificate's and this call's
            tasks=tasks,
            history=history,
        )
        return run.run(mapper)


def first_guess_floors(game: Game, *, depth: int = 1) -> dict[int, int]:
    """What each first guess (the lowest code of its class) costs at least: its class's
    total in the lower bound searched ``depth`` levels deep."""
    return {c.guess: c.total for c in lower_bound(game, depth=depth).classes}


def _start(
    game: Game, first: int | None, resume: dict[str, Any] | None, exact_below: int
) -> tuple[list[ClassBound], float, int, History]:
    """The classes a bound starts from, and the seconds, tasks and history of the run it
    goes on: every class at its perfect split, or a certificate's (see
    :func:`lower_bound`'s ``resume``)."""
    if resume is None:
        classes = _initial_classes(game, first)
        if first is not None and not classes:
            raise ValueError(f"the first guess {game.format_code(first)} tells nothing")
        return classes, 0.0, 0, []
    classes = certificate_classes(resume, game, exact_below=exact_below)
    if certificate_sealed(resume):
        return (classes, *_certificate_run(resume))
    # Not written here (edited, or another machine's): nothing of it is taken as proved
    # before each part is proved again (CertificateError if not), and each part goes on
    # from what was proved, not from what it claims (a lowered bound claimed exact would
    # otherwise end as a false optimum).
    _certificate_run(resume)  # its run is checked all the same, and not carried on
    checked = check_certificate(resume, game=game)
    flat = certificate_parts(resume)
    for k, got in zip(checked.proved, checked.results):
        ci, pi, _ = flat[k]
        p = classes[ci].parts[pi]
        assert got.bound is not None  # no time limit: proved
        p.bound, p.depth = got.bound, got.depth
    return classes, 0.0, 0, []


@dataclass
class _Orders:
    """A round's tasks: their parts, their arguments for :func:`_task`, the level each
    goes to (None: the exact search) and the seconds each is given (None: no limit)."""

    parts: list[PartBound] = field(default_factory=list)
    args: list[tuple] = field(default_factory=list)
    levels: list[int | None] = field(default_factory=list)
    shares: list[float | None] = field(default_factory=list)


class _Refinement:
    """A bound being refined (:func:`lower_bound`): its classes, the run's clock, tasks
    and history, and what the gap-directed search keeps per part (by ``id``): the parts
    set aside, their allowances, whose turn is a level deeper, and their exact search's
    aimed rise."""

    def __init__(
        self,
        game: Game,
        classes: list[ClassBound],
        *,
        exact_below: int,
        target: int | None,
        seconds: float | None,
        workers: int,
        one_by_one: bool,
        uppers: Uppers | None,
        first: int | None,
        progress: Callable[[Bound], None] | None,
        saved: tuple[KeptMemo, Solver] | None,
        began: float,
        start: float,
        tasks: int,
        history: History,
    ):
        self.game, self.classes, self.exact_below = game, classes, exact_below
        self.target, self.seconds, self.workers = target, seconds, workers
        self.one_by_one, self.uppers, self.first = one_by_one, uppers, first
        self.progress, self.saved = progress, saved
        self.began, self.start, self.tasks, self.history = began, start, tasks, history
        if uppers is not None:
            for c in classes:
                mine = uppers.parts.get(c.guess, {})
                for p in c.parts:
                    _close(p, mine.get(p.feedback))
        # With uppers and a time limit, a part of the least class tries the exact search
        # first, its budget what would lift the class to the upper bound: on parts of a
        # thousand codes it ends in seconds where a third level takes a minute. One that
        # runs out of its allowance goes a level deeper next, then tries the exact search
        # again, and so on, the allowance doubled after each task that runs out of it: a
        # part's tasks cost at most a few times the one that ends.
        # The exact search aims at a rise (``step``) of the part's bound: first the part's
        # share of its class's gap (:func:`_share`), doubled after each search that
        # reaches it, halved after each that runs out.
        self.searching = uppers is not None and target is None and seconds is not None
        self.stalled: set[int] = set()  # parts whose task ran out of its share of time
        self.allowance: dict[int, float] = {}  # parts: their next task's allowance
        self.deeper: set[int] = set()  # parts whose next task is a level deeper
        self.step: dict[int, int] = {}  # parts: the rise their next exact search aims at

    def run(self, mapper: Callable) -> Bound:
        """Refine until the least class is solved or reaches the upper bound (the
        optimum), or no part is left to refine, or the time is out; the bound proved."""
        self.record()
        while True:
            top = self.least()
            if self.solved(top):
                return self.snapshot(optimal=True)
            left = None if self.seconds is None else self.seconds - (time.monotonic() - self.began)
            orders = self.orders(top, left)
            if orders is None:
                return self.snapshot()
            progressed = False
            for i, got in mapper(_task, orders.args):  # as each task ends
                progressed |= self.take(orders.parts[i], got, orders.levels[i])
            if not progressed and all(given == left for given in orders.shares):
                return self.snapshot()  # every task ran out of the whole time left

    def least(self) -> ClassBound:
        """The class whose bound is the least: the game's bound."""
        return min(self.classes, key=lambda c: (c.total, c.guess))

    def upper(self) -> int | None:
        """The least upper bound known: a class's upper, or the breaker's total."""
        known = [c.upper for c in self.classes if c.upper is not None]
        if self.uppers is not None and self.uppers.total is not None and self.first is None:
            # A breaker's total (with --first, its first guess may be another's).
            known.append(self.uppers.total)
        return min(known) if known else None

    def solved(self, top: ClassBound) -> bool:
        """Whether the least class is the optimum: its parts all closed, or its bound at
        the least upper (no first guess does better than a breaker)."""
        if all(p.closed for p in top.parts):
            return True
        up = self.upper()
        return up is not None and top.total >= up

    def snapshot(self, optimal: bool = False) -> Bound:
        """The bound proved so far, whose certificate holds."""
        top = self.least()
        d = top.depth
        return Bound(
            self.game,
            top.total,
            self.classes,
            self.exact_below,
            time.monotonic() - self.start,
            optimal,
            None if d is None else d + 1,
            self.tasks,
            self.history,
            self.upper(),
        )

    def record(self) -> None:
        """Note a change of the bounds in the history, keep the memo file and tell
        ``progress``: after every task."""
        value, up = self.least().total, self.upper()
        if not self.history or self.history[-1][1:] != (value, up):
            self.history.append((time.monotonic() - self.start, value, up))
        if self.saved is not None:
            memo, searcher = self.saved
            memo.save(searcher)  # with the certificate, at most every memo.every seconds
        if self.progress is not None:
            self.progress(self.snapshot())  # after every task: a bound proved so far

    def orders(self, top: ClassBound, left: float | None) -> _Orders | None:
        """The next round's tasks on the least class's parts (None: nothing left to do,
        or no time)."""
        # A part proved by the budget alone is searched again by the gap-directed search,
        # and, in a run with neither a depth nor a time limit (it must reach the optimum),
        # by the exact search.
        unlimited = self.target is None and self.seconds is None
        todo = [
            p
            for p in top.parts
            if not p.exact
            and (
                ((self.searching or unlimited) and p.depth == BUDGET)
                or _deeper(p.reached, self.target, self.seconds)
            )
        ]
        if not todo or (left is not None and left <= 0):
            return None
        share = left
        if self.uppers is not None and top.upper is not None:
            # The largest gaps first, one part per worker, whatever their depths; a part
            # set aside (its task ran out of its share) waits until the others are done,
            # then has the time left.
            todo = [p for p in todo if not p.closed]
            fresh = [p for p in todo if id(p) not in self.stalled]
            pool = fresh or todo
            pool.sort(key=_gap_order)
            todo = pool[: max(1, self.workers)]
            if left is not None and fresh and len(fresh) > len(todo):
                share = left / 2
            if not todo:
                return None
        else:
            # Several workers: the longest first, so that they end together. One: the
            # shortest first, so that the certificate holds the most tasks soonest.
            todo.sort(key=lambda p: p.size if self.one_by_one else -p.size)
        orders = _Orders()
        now = time.time()
        up = self.upper()
        for p in todo:
            level = _next_depth(p.level, self.target, self.seconds)
            given = share
            aim = None
            if self.searching:
                if id(p) not in self.deeper:
                    level = None
                allowed = self.allowance.setdefault(id(p), max(EXACT_SECONDS, 2 * p.seconds))
                given = allowed if share is None else min(share, allowed)
                aim = self.step.setdefault(id(p), _share(top, p, up))
            budget = _budget(top, p, up, step=aim) if level is None else UNBOUNDED
            until = None if given is None else now + given
            # The gap-directed search keeps the cheaper leaves (Bounder.floors).
            orders.parts.append(p)
            orders.args.append(
                (
                    self.game,
                    top.guess,
                    p.feedback,
                    level,
                    self.exact_below,
                    until,
                    budget,
                    not self.searching,
                )
            )
            orders.levels.append(level)
            orders.shares.append(given)
        return orders

    def take(self, p: PartBound, got: PartResult, level: int | None) -> bool:
        """Take a task's result on part ``p`` (sent to ``level``, None: the exact search);
        whether it proved a bound (else it ran out of time)."""
        self.tasks += 1
        if self.searching:
            self._turn(p, got, level)
        if got.bound is None:
            if not self.searching:
                self.stalled.add(id(p))
            # Out of time: the part keeps the bound it had, and the time spent orders it
            # (:func:`_gap_order`): else a part whose searches run out keeps the cost of
            # its last cheap task and comes first every time.
            p.seconds = max(p.seconds, got.seconds)
            return False
        # The depth that proves the bound: a level below a bound proved by the budget
        # leaves it so proved, and is the part's level all the same.
        if got.depth is not None and got.depth >= 0:
            p.level = max(p.level, got.depth)
        if got.bound >= p.bound:
            p.bound, p.depth = got.bound, got.depth
        p.seconds = got.seconds
        if self.uppers is not None:
            _close(p, p.upper)
        self.record()
        return True

    def _turn(self, p: PartBound, got: PartResult, level: int | None) -> None:
        """The gap-directed search's next task on ``p``: turn about, the exact search
        after a level deeper (ended or not), and a level deeper after an exact search
        that ran out; its aimed rise and allowance."""
        key = id(p)
        if level is not None:
            self.deeper.discard(key)
        elif got.bound is None:
            self.deeper.add(key)
            self.step[key] = max(1, self.step[key] // 2)
        elif got.depth == BUDGET:
            self.step[key] *= 2
        if got.bound is None:
            self.allowance[key] *= 2


@contextmanager
def _memo_saved(memo: KeptMemo | None, solver: Solver | None) -> Iterator[None]:
    """A bound's run, after which (ended or stopped) ``solver``'s memo is written to the
    ``memo`` file."""
    try:
        yield
    finally:
        if memo is not None and solver is not None:
            memo.save(solver, now=True)


def _budget(c: ClassBound, p: PartBound, upper: int | None, *, step: int | None = None) -> int:
    """The exact search's budget on part ``p`` of class ``c``: one above the part's upper
    (so that it returns the least total), or less, what lifts the class to ``upper``
    (the least known of the game): a search that reaches it proves the class no better;
    and at most ``step`` above the part's bound (None: no such limit)."""
    budget = UNBOUNDED if p.upper is None else p.upper + 1
    if upper is not None:
        budget = min(budget, upper - (c.total - p.bound))
    if step is not None:
        budget = min(budget, p.bound + step)
    return max(budget, p.bound + 1)


def _share(c: ClassBound, p: PartBound, upper: int | None) -> int:
    """The first rise the exact search aims at on part ``p``: the class's gap to ``upper``
    shared among its open parts by their gaps (at least one; the part's whole gap when
    there is no upper or no gaps to share by)."""
    mine = p.gap
    if mine is None:
        return 1
    gaps = sum(q.gap for q in c.parts if q.gap is not None and not q.closed)
    if upper is None or not gaps:
        return max(1, mine)
    return max(1, -(-(upper - c.total) * mine // gaps))


def _gap_order(p: PartBound) -> tuple[float, int]:
    """The order of the parts with uppers: the least seconds per unit of gap first, the
    seconds those of the part's last task (its next is dearer, by a factor alike across
    parts): the widest gap first among parts never searched, and a cheap part with a small
    gap before a part that took a minute for a wide one. Ties: the smaller part."""
    return (p.seconds + TASK_SECONDS) / max(p.gap or 0, 1), p.size


def _close(p: PartBound, upper: int | None) -> None:
    """Give a part its upper bound: ``upper``, or the bound itself once exact (its least
    total, which some subtree reaches)."""
    if p.exact:
        upper = p.bound if upper is None else min(upper, p.bound)
    p.upper = upper


def _task(
    game: Game,
    guess: int,
    feedback: int,
    depth: int | None,
    exact_below: int,
    until: float | None,
    budget: int = UNBOUNDED,
    floors: bool = True,
) -> PartResult:
    """:func:`part_bound` with positional arguments, for the mappers; ``until``: the
    wall-clock time (``time.time()``) by which it gives up."""
    seconds = None if until is None else until - time.time()
    if seconds is not None and seconds <= 0:
        return PartResult(None, depth, 0.0)  # its turn came after the time allowed
    return part_bound(
        game,
        guess,
        feedback,
        depth,
        exact_below=exact_below,
        seconds=seconds,
        budget=budget,
        floors=floors,
    )


def _next_depth(depth: int | None, target: int | None, seconds: float | None) -> int | None:
    """The depth a part goes to next: one level deeper, up to the target; straight to
    the exact search when there is neither a depth nor a time limit."""
    if target is None and seconds is None:
        return None
    assert depth is not None
    return depth + 1 if target is None else min(depth + 1, target)


def _deeper(depth: int | None, target: int | None, seconds: float | None) -> bool:
    """Whether a part at ``depth`` is to be refined further (not once solved, nor once the
    exact search proved its class no better than the upper bound)."""
    if depth is None or depth == BUDGET:
        return False
    return target is None or depth < target
