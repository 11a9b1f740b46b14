"""Every first guess decided (docs/DESIGN.md §5, "Every first guess"): its least total,
or a proved floor at or above a cut; the optimum over every first guess, and the ranked
list of the best ones.

A first guess ``g`` splits the codes into parts, and the breakers opening with it cost
``M + sum_f cost(S_f)`` at least, each part's cost bounded below by the engine of
:mod:`evo.proofs.bound` (:class:`~evo.proofs.bound.Bounder`). One first guess is decided
against a ``cut`` (:func:`decide`), its parts the largest first:

1. each part's perfect split, then its ``V_0`` (the best second guess's split, the small
   parts' floors), stopping as soon as the class total reaches the cut;
2. under a rule on guesses that narrows (Wordle's hard mode), each part's relaxed floor
   (:meth:`~evo.proofs.bound.Bounder.relaxed`: every guess below the part any guess legal
   at its node, a compiled search) with the budget that would lift the class to the cut;
   a part whose least subtree there the rule allows is solved by it;
3. if it is still below, each part's exact search with the budget that would lift the
   class to the cut: a search that reaches it rules the first guess out, and one that
   ends below it solves the part. Every part solved: the first guess's least total.

The cut is what a first guess must stay below to matter: the least total known (one
first guess's, solved, or a breaker's), or, for a ranked list of the best ``k``, a
total that at least ``k`` first guesses are found below (raised and tried again when
fewer are). Cheap bounds rule out most first guesses at once (Wordle: all but about 300
of 12,972 at 7,921), and the exact search, best first, the rest.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from functools import lru_cache
from typing import Any

import numpy as np

from evo.core.game import Game, game_from_spec, spec_key
from evo.proofs.bound import Bounder, first_guess_classes, perfect_split, warm_up
from evo.search.build import Node
from evo.search.exact import UNBOUNDED, SearchTimeout

#: The ranked list's format, written in it.
FORMAT = "evo-first-guesses/1"

#: The key of the list's seal (:mod:`evo.core.seal`): what this machine wrote.
SEAL_KEY = "seal"

#: First guesses per task: enough that a task's overhead is small beside its scans
#: (about 0.1 s each on Wordle), few enough that the workers end together.
CHUNK = 16

#: First guesses whose first step comes before any exact search: the least perfect-split
#: floors (Wordle's best, SALET, is among its first 512 of 12,972).
SCAN_FIRST = 512

#: Code sets whose ``V_0`` a scanning bounder keeps: the parts of one first guess are
#: seldom those of another, so a big memo would only hold megabytes of keys.
SCAN_MEMO = 4096


class RankingError(ValueError):
    """A ranked list that cannot be read or gone on from: not one, another game's, or
    not sealed by this machine."""


@dataclass
class FirstGuess:
    """What is proved of the breakers opening with ``guess``: they cost at least ``low``,
    and exactly that when ``exact`` (some breaker opening with it costs ``low``);
    ``cut``: the cut its floor was proved against (a floor at or above the cut is all that
    was sought; a floor below it means the guess is not decided yet)."""

    guess: int
    low: int
    exact: bool = False
    cut: int = 0
    seconds: float = 0.0
    #: Whether its parts' ``V_0`` were searched against its cut (the first step).
    scanned: bool = False

    def decided(self, cut: int) -> bool:
        """Whether nothing more is needed of it against ``cut``: solved, or ruled out."""
        return self.exact or self.low >= cut


@dataclass
class Ranking:
    """Every first guess of ``game`` with what is proved of it, against ``cut``: the
    first guesses solved are the best ``best`` (or more) once :attr:`complete`.

    >>> import evo
    >>> game = evo.make_game(3, 3)
    >>> ranking = evo.rank(game)
    >>> ranking.complete, ranking.optimum.low, ranking.cut, len(ranking.entries)
    (True, 73, 74, 3)
    """

    game: Game
    entries: dict[int, FirstGuess]
    best: int
    cut: int
    #: Only breakers that solve every code within this many guesses (None: no limit).
    max_guesses: int | None = None
    seconds: float = 0.0
    tasks: int = 0
    history: list[tuple[float, int, int]] = field(default_factory=list)

    @property
    def solved(self) -> list[FirstGuess]:
        """The first guesses whose least total is known, the least first."""
        return sorted((e for e in self.entries.values() if e.exact), key=_rank)

    @property
    def open(self) -> list[FirstGuess]:
        """The first guesses not decided against the cut, the least floor first."""
        return sorted((e for e in self.entries.values() if not e.decided(self.cut)), key=_rank)

    @property
    def complete(self) -> bool:
        """Whether every first guess is decided and at least ``best`` are solved below the
        cut: the solved ones below it are then the best, in order (any other costs at
        least the cut)."""
        if self.open:
            return False
        return len(self.below_cut) >= self.best or all(e.exact for e in self.entries.values())

    @property
    def below_cut(self) -> list[FirstGuess]:
        return [e for e in self.solved if e.low < self.cut]

    @property
    def optimum(self) -> FirstGuess | None:
        """The best first guess, when proved: solved, and no other can cost less."""
        solved = self.solved
        if not solved or not self.complete:
            return None
        return solved[0]

    def ranked(self) -> list[FirstGuess]:
        """Every first guess: those solved below the cut by total (the ranked ones), then
        the others by what is proved of them (a total or a floor, each at least the cut).

        >>> import evo
        >>> game = evo.make_game(3, 3)
        >>> [(game.format_code(e.guess), e.low, e.exact) for e in evo.rank(game).ranked()]
        [('112', 73, True), ('123', 75, False), ('111', 80, False)]
        """

        def key(e: FirstGuess) -> tuple[bool, int, bool, int]:
            return (not (e.exact and e.low < self.cut), e.low, not e.exact, e.guess)

        return sorted(self.entries.values(), key=key)

    def to_json(self) -> dict[str, Any]:
        """The list as written (:func:`write_ranking`), without its seal.

        >>> import evo
        >>> doc = evo.rank(evo.make_game(3, 3)).to_json()
        >>> doc["format"], doc["optimum"], doc["ranked"][0][:3]
        ('evo-first-guesses/1', 73, ['112', 73, True])
        """
        fmt = self.game.format_code
        return {
            "format": FORMAT,
            "game": self.game.spec,
            "best": self.best,
            "max_guesses": self.max_guesses,
            "cut": _cut_text(self.cut),
            "seconds": round(self.seconds, 1),
            "tasks": self.tasks,
            "first_guesses": len(self.entries),
            "optimum": None if self.optimum is None else self.optimum.low,
            # One row per first guess: word, total or floor, whether exact, the cut.
            "ranked": [
                [fmt(e.guess), e.low, e.exact, _cut_text(e.cut), round(e.seconds, 2), e.scanned]
                for e in self.ranked()
            ],
            "history": [[round(t, 1), d, b] for t, d, b in self.history],
        }


def _cut_text(cut: int) -> int | None:
    """A cut as written: None for none."""
    return None if cut >= UNBOUNDED else cut


def _cut_read(cut: Any) -> int:
    return UNBOUNDED if cut is None else int(cut)


def _rank(e: FirstGuess) -> tuple[int, int]:
    return (e.low, e.guess)


# --------------------------------------------------------------------- one first guess
@dataclass(frozen=True)
class Decision:
    """What a task proved of first guess ``guess`` against ``cut``: a floor, or (exact)
    its least total, and the seconds it took; ``solve``: whether the exact search was
    run (else only the first step)."""

    guess: int
    low: int
    exact: bool
    cut: int
    seconds: float
    solve: bool = True


def parts_of(game: Game, guess: int) -> list[np.ndarray]:
    """The parts of the codes that ``guess`` leaves unsolved, the largest first (ties: by
    feedback)."""
    fb = game.feedback_row(int(guess))
    sizes = np.bincount(fb, minlength=game.num_feedbacks)
    feedbacks = [int(f) for f in np.flatnonzero(sizes) if f != game.win]
    feedbacks.sort(key=lambda f: (-int(sizes[f]), f))
    return [np.flatnonzero(fb == f).astype(np.int64) for f in feedbacks]


def split_total(game: Game, guess: int) -> int:
    """The first guess's floor from its parts' perfect splits alone (no search)."""
    fb = game.feedback_row(int(guess))
    sizes = np.bincount(fb, minlength=game.num_feedbacks)
    sizes[game.win] = 0
    return game.num_codes + sum(perfect_split(game, int(s)) for s in sizes.tolist() if s)


def decide(
    game: Game,
    guess: int,
    *,
    cut: int = UNBOUNDED,
    exact_below: int = 20,
    solve: bool = True,
    max_guesses: int | None = None,
) -> Decision:
    """Decide first guess ``guess`` against ``cut`` (the module's steps): its least
    total when below the cut, else a floor of at least the cut. ``solve``: the relaxed
    floors (under a rule that narrows) and the exact search after the ``V_0`` step (else
    that step alone: a floor). ``max_guesses``: only
    the breakers that solve every code within that many guesses, the first included
    (the ``V_0`` floors hold all the same: a limit only raises the least total)."""
    start = time.monotonic()
    parts = parts_of(game, guess)
    node = Node.after(game, (int(guess),))
    lows = [perfect_split(game, len(p)) for p in parts]
    total = game.num_codes + sum(lows)
    scanner = _scanner(game)
    for i, codes in enumerate(parts):
        if total >= cut:
            return Decision(guess, total, False, cut, time.monotonic() - start, solve)
        if len(codes) <= 2:
            continue
        value = scanner.bound(codes, node, depth=0, budget=cut - (total - lows[i]))
        total += max(value, lows[i]) - lows[i]
        lows[i] = max(value, lows[i])
    if not solve:
        return Decision(guess, total, False, cut, time.monotonic() - start, solve)
    solver = _solver(game, exact_below)
    solved = [False] * len(parts)
    if game.rule is not None and game.rule.narrows:
        # A narrowing rule: each part's relaxation (every guess below it any guess legal
        # at the part's node), compiled, before the search that follows the rule.
        for i, codes in enumerate(parts):
            if total >= cut:
                return Decision(guess, total, False, cut, time.monotonic() - start)
            if len(codes) <= 2:
                continue
            budget = cut - (total - lows[i]) if cut < UNBOUNDED else UNBOUNDED
            limit = None if max_guesses is None else max_guesses - 1
            relaxed = solver.relaxed(codes, node, budget=budget, max_guesses=limit)
            total += max(relaxed.low, lows[i]) - lows[i]
            lows[i] = max(relaxed.low, lows[i])
            solved[i] = relaxed.exact  # a subtree of that least total the rule allows
    for i, codes in enumerate(parts):
        if total >= cut:
            return Decision(guess, total, False, cut, time.monotonic() - start)
        if solved[i] or (len(codes) <= 2 and max_guesses is None):
            continue
        budget = cut - (total - lows[i]) if cut < UNBOUNDED else UNBOUNDED
        if max_guesses is None:
            value = solver.exact(codes, node, budget=budget)
        else:
            value = solver.solver.solve(codes, node, budget, depth=max_guesses - 1)
        total += max(value, lows[i]) - lows[i]
        lows[i] = max(value, lows[i])
    exact = total < cut
    return Decision(guess, total, exact, cut, time.monotonic() - start)


def decide_many(
    game: Game,
    guesses: list[int],
    cut: int,
    exact_below: int,
    solve: bool,
    max_guesses: int | None = None,
) -> list[Decision]:
    """:func:`decide` of each guess in turn, for the mappers (positional arguments)."""
    return [
        decide(game, g, cut=cut, exact_below=exact_below, solve=solve, max_guesses=max_guesses)
        for g in guesses
    ]


@lru_cache(maxsize=2)
def _scanner(game: Game) -> Bounder:
    """The bounder a process scans with: ``V_0`` only, a small memo."""
    return Bounder(game, exact_below=0, max_memo=SCAN_MEMO)


@lru_cache(maxsize=2)
def _solver(game: Game, exact_below: int) -> Bounder:
    """The bounder whose exact search a process keeps from first guess to first guess: its
    memo holds only facts of code sets, true whatever the task."""
    return Bounder(game, exact_below=exact_below)


# --------------------------------------------------------------------- every first guess
def rank_first_guesses(
    game: Game,
    *,
    best: int = 1,
    upper: int | None = None,
    cut: int | None = None,
    exact_below: int = 20,
    workers: int = 1,
    scheduler: str | None = None,
    ranking: Ranking | None = None,
    progress: Callable[[Ranking], None] | None = None,
    step: int = 16,
    keep_cut: bool = False,
    seconds: float | None = None,
) -> Ranking:
    """Decide every first guess of ``game`` (each legal one under a rule; one per symmetry
    class otherwise): the least totals of the best ``best`` and a floor of every other at
    or above the cut, proving the optimum over every first guess (``best`` 1) or the
    ranked list of the best ``best``.

    The cut starts at ``cut``, else ``upper + 1`` (a breaker's total: every first guess
    that may tie it is solved), else one above the least total of the first guess whose
    parts' perfect splits are the least (solved first); with ``best`` above 1, while
    fewer than ``best`` are solved below it, it is raised by ``step`` and the first guesses
    it undecided tried again. Once ``best`` are solved below it, the cut falls to one
    above the ``best``-th least total. ``workers`` local processes (or the Dask
    ``scheduler``) decide the first guesses in tasks of :data:`CHUNK`, the least
    perfect-split floor first. ``ranking``: the ranking to go on from, and decide in
    place (:func:`new_ranking`, :func:`read_ranking`: its entries taken as proved; a
    caller that keeps it keeps what was proved when the search is stopped). ``progress``
    is told the ranking after every task. ``keep_cut``: the cut is never raised (an upper
    bound the caller holds to): when no first guess is below it, the ranking ends with
    none solved below it. ``seconds``: :class:`~evo.search.exact.SearchTimeout` once
    that many have passed (checked as each task ends; the ranking keeps what was proved).

    >>> import evo
    >>> game = evo.make_game(4, 6)
    >>> ranking = evo.rank(game, best=3)
    >>> [(game.format_code(e.guess), e.low) for e in ranking.below_cut]
    [('1123', 5625), ('1234', 5673), ('1122', 5702)]
    >>> ranking.optimum.low, ranking.complete
    (5625, True)
    """
    if best < 1:
        raise ValueError(f"best must be 1 or more, not {best}")
    from evo.search.kernels import kernels_for
    from evo.search.tasks import task_mapper

    began = time.monotonic()
    if ranking is None:
        ranking = new_ranking(game)
    elif ranking.game != game:
        raise ValueError(f"a ranking of {ranking.game.name}, not of {game.name}")
    ranking.best = best
    before = ranking.seconds
    if cut is not None:
        ranking.cut = cut
    elif upper is not None:
        ranking.cut = min(ranking.cut, upper + 1)
    need = kernels_for(game, ("search",))
    workers = max(1, min(workers, len(ranking.entries)))
    mapper_of = task_mapper(
        scheduler=scheduler, workers=workers, ordered=False, kernels=need, warm=(warm_up, (game,))
    )
    run = _Ranker(ranking, exact_below, progress, began - before, step, workers)
    run.keep_cut = keep_cut
    run.deadline = None if seconds is None else began + seconds
    with mapper_of as mapper:
        run.go(mapper)
    return ranking


def new_ranking(game: Game, *, best: int = 1, max_guesses: int | None = None) -> Ranking:
    """Every first guess at the floor of its parts' perfect splits, no cut yet;
    ``max_guesses``: of the breakers within that many guesses only."""
    if max_guesses is not None and max_guesses < 1:
        raise ValueError(f"max_guesses must be 1 or more, not {max_guesses}")
    entries = {g: FirstGuess(g, split_total(game, g)) for g, _ in first_guess_classes(game)}
    return Ranking(game, entries, best, UNBOUNDED, max_guesses)


class _Ranker:
    """A ranking being decided: its rounds of tasks and its clock."""

    def __init__(
        self,
        ranking: Ranking,
        exact_below: int,
        progress: Callable[[Ranking], None] | None,
        start: float,
        step: int,
        workers: int,
    ):
        self.ranking, self.exact_below, self.progress = ranking, exact_below, progress
        self.start, self.step, self.workers = start, step, workers
        self.keep_cut = False
        self.deadline: float | None = None

    def go(self, mapper: Callable) -> None:
        r = self.ranking
        while r.cut >= UNBOUNDED:
            # No cut yet: the first guess of least perfect-split floor solved outright (the
            # next, while those have no breaker within the limit on guesses).
            rest = [e for e in r.entries.values() if e.low < UNBOUNDED and not e.exact]
            if not rest:
                break
            first = min(rest, key=_rank)
            self.take(mapper(decide_many, [self.task([first.guess], UNBOUNDED, True)]))
            if first.low < UNBOUNDED:
                r.cut = first.low + 1
        rounds, batch = 0, SCAN_FIRST
        while True:
            self.lower_cut()
            todo = r.open
            if not todo:
                if r.complete or self.keep_cut:
                    self.note()
                    return
                # Too few solved below the cut: raised past the least floor left, and the
                # first guesses it leaves open tried again.
                rest = [e for e in r.entries.values() if not e.exact]
                r.cut = max(r.cut, min(e.low for e in rest)) + self.step
                for e in rest:
                    e.scanned = e.scanned and e.low < e.cut  # stopped at the old cut: again
                self.step *= 2  # the cut's raises double: few rounds however far it goes
                continue
            ready = [e for e in todo if e.scanned]
            if not ready:
                # The first step of the open first guesses of least perfect-split floor:
                # its floors order the exact searches far better. A few hundred first,
                # whose best, solved, bring the cut down; then all the others, each
                # stopped as soon as it reaches the cut.
                fresh = todo[:batch]
                batch = len(r.entries)
                args = [
                    self.task([e.guess for e in fresh[i : i + CHUNK]], r.cut, False)
                    for i in range(0, len(fresh), CHUNK)
                ]
                self.take(mapper(decide_many, args))
                rounds = 0
                continue
            # The exact searches, least floor first, in rounds that double from a first
            # guess per worker: one solved early lowers the cut of the rounds after it (a
            # round's tasks share its cut), and a loose cut costs exact searches.
            size = self.workers * 2**rounds
            chunk = max(1, min(CHUNK, size // (4 * self.workers)))
            ready = ready[:size]
            rounds += 1
            args = [
                self.task([e.guess for e in ready[i : i + chunk]], r.cut, True)
                for i in range(0, len(ready), chunk)
            ]
            self.take(mapper(decide_many, args))

    def task(self, guesses: list[int], cut: int, solve: bool) -> tuple:
        """The arguments of :func:`decide_many` on ``guesses``."""
        r = self.ranking
        return (r.game, guesses, cut, self.exact_below, solve, r.max_guesses)

    def take(self, results: Iterator) -> None:
        """Take each task's decisions as it ends."""
        r = self.ranking
        for _, decisions in results:
            for d in decisions:
                e = r.entries[d.guess]
                if d.exact or d.low >= e.low:
                    e.low, e.exact, e.cut = d.low, d.exact, d.cut
                e.scanned = True
                e.seconds += d.seconds
            r.tasks += 1
            self.note()
            if self.deadline is not None and time.monotonic() > self.deadline:
                raise SearchTimeout

    def lower_cut(self) -> None:
        """The cut once ``best`` first guesses are solved below it: one above the
        ``best``-th least total (nothing else matters to the list)."""
        r = self.ranking
        solved = r.below_cut
        if len(solved) >= r.best:
            r.cut = min(r.cut, solved[r.best - 1].low + 1)

    def note(self) -> None:
        r = self.ranking
        r.seconds = time.monotonic() - self.start
        solved = r.solved
        top = solved[0].low if solved else -1
        decided = sum(e.decided(r.cut) for e in r.entries.values())
        if not r.history or r.history[-1][1:] != (decided, top):
            r.history.append((r.seconds, decided, top))
        if self.progress is not None:
            self.progress(r)


# --------------------------------------------------------------------- the list's file
def ranking_document(ranking: Ranking) -> dict[str, Any]:
    """The list as written, sealed by this machine's key."""
    from evo.core.seal import seal

    body = ranking.to_json()
    return {**body, SEAL_KEY: seal(body)}


def write_ranking(ranking: Ranking, path: Any) -> None:
    """Write the list atomically (gzip-compressed when ``path`` ends in ``.gz``)."""
    from pathlib import Path

    from evo.core.files import atomic_write_json

    gz = Path(path).name.lower().endswith(".gz")
    atomic_write_json(path, ranking_document(ranking), indent=None, compress=gz)


def read_ranking(path: Any, *, game: Game | None = None, sealed: bool = True) -> Ranking:
    """A list written by :func:`write_ranking`; ``sealed``: refused unless this machine
    sealed it (its floors are then taken as proved, as :func:`rank_first_guesses`'s
    ``resume`` does). A one-line :class:`RankingError` otherwise."""
    from evo.core.files import decode_text, gunzip, parse_json, read_bytes
    from evo.core.seal import is_sealed

    what = "ranked list of first guesses"
    raw = read_bytes(path, what=what, error=RankingError)
    if raw[:2] == b"\x1f\x8b":
        raw = gunzip(raw, path=path, what=what, error=RankingError)
    data = parse_json(
        decode_text(raw, path=path, what=what, error=RankingError),
        where=str(path),
        error=RankingError,
    )
    if not isinstance(data, dict) or data.get("format") != FORMAT:
        raise RankingError(f"{path}: not a {what} (format {FORMAT!r})")
    body = {k: v for k, v in data.items() if k != SEAL_KEY}
    if sealed and not is_sealed(body, data.get(SEAL_KEY)):
        raise RankingError(
            f"{path}: not sealed by this machine: its floors are not taken as proved "
            "(prove a line again with evo bound --first WORD)"
        )
    try:
        mine = game_from_spec(data["game"])
    except (KeyError, TypeError, ValueError) as e:
        raise RankingError(f"{path}: its game: {e}") from None
    if game is not None and spec_key(game.spec) != spec_key(mine.spec):
        raise RankingError(f"{path}: a list of {mine.name}, not of {game.name}")
    game = game or mine
    entries: dict[int, FirstGuess] = {}
    try:
        for word, low, exact, cut, seconds, scanned in data["ranked"]:
            g = game.parse_code(word)
            entries[g] = FirstGuess(
                g, int(low), bool(exact), _cut_read(cut), float(seconds), bool(scanned)
            )
        history = [(float(t), int(d), int(b)) for t, d, b in data["history"]]
        limit = data["max_guesses"]
        ranking = Ranking(
            game,
            entries,
            int(data["best"]),
            _cut_read(data["cut"]),
            None if limit is None else int(limit),
            float(data["seconds"]),
            int(data["tasks"]),
            history,
        )
    except (KeyError, TypeError, ValueError) as e:
        raise RankingError(f"{path}: a malformed entry: {e}") from None
    return ranking
