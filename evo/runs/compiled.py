"""The work that compiles evo's kernels: each family run once on tiny games, with every
kind of argument the real work gives them (a feedback table or packed codes, each pool,
heuristic and search policy, the threaded paths), in the fresh processes that
:func:`evo.search.kernels.ensure_compiled` starts.

``main(["warm", job, ...])`` compiles jobs side by side with other processes (numba's
index files under a lock); ``main(["finish", job, ...])``, in a process of its own once
they are done, runs every job again (loading what they compiled, compiling anything they
missed) and writes each job's marker.
"""

from __future__ import annotations

import contextlib
import sys
import time
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

from evo.core.game import Game
from evo.core.kinds import ExactGuesses, Pool
from evo.core.where import package_folder
from evo.search import kernels
from evo.search.exact import Policy
from evo.search.kernels import Family, Profile


def main(argv: Sequence[str]) -> None:
    """A compiling process: ``warm`` or ``finish`` (see the module), then the jobs."""
    kernels._COMPILING = True
    expected = package_folder()
    found = Path(str(sys.modules["evo"].__file__)).resolve().parent
    if found != expected:  # pragma: no cover - a broken path
        sys.exit(f"evo was imported from {found}, not from {expected}")
    step, *names = argv
    jobs = [kernels.parse_job(n) for n in names]
    if step == "warm":
        lock = kernels.locked_index() if kernels.can_share_cache() else contextlib.nullcontext()
        with lock:
            for kind, family in jobs:
                compile_family(kind, family)
    elif step == "finish":
        for kind, family in jobs:
            seconds = compile_family(kind, family)
            kernels.write_marker(kind, family, seconds)
    else:
        raise ValueError(f"unknown step {step!r}")


def compile_family(kind: Profile, family: Family) -> float:
    """Run every kernel of a family of a profile once on a tiny game; returns the seconds
    it took."""
    start = time.perf_counter()
    from evo.core.game import make_game

    source, big = kind
    # A table: the Mastermind family's paths (symmetries) and a feedback that is not
    # symmetric, with more guesses than secrets; both one numba type (compiled once).
    games = [make_game(3, 4, table=source == "table")]
    if source == "table":
        games.append(_pair_game())
    work: dict[Family, Callable[[Game], None]] = {
        "growth": _growth,
        "lookahead": _lookahead,
        "search": _search,
        "within": _within,
        "operators": _operators,
    }
    with _every_path(big):
        for game in games:
            work[family](game)
    return time.perf_counter() - start


def _pair_game() -> Game:
    """A tiny game whose feedback is not symmetric, with more guesses than secrets (the
    kernels then read a table and its transpose): the secrets are the words of 3 distinct
    letters of ``abcd``, the guesses every word of 3 letters, and a letter answers 2 in
    place, 1 elsewhere in the secret, 0 else."""
    import itertools

    from evo.games.custom import custom_game

    codes = ["".join(p) for p in itertools.permutations("abcd", 3)]
    guesses = list(dict.fromkeys(codes + ["".join(p) for p in itertools.product("abcd", repeat=3)]))

    def marks(guess: str, secret: str) -> str:
        return "".join(
            "2" if g == s else "1" if g in secret else "0" for g, s in zip(guess, secret)
        )

    return custom_game(codes, marks, guesses=guesses, name="evo-compile-pair")


@contextlib.contextmanager
def _every_path(big: bool) -> Iterator[None]:
    """Two threads, and with ``big`` thresholds at zero, so that tiny games take the paths
    of big ones (node by node, subtrees in one call, candidates scored on threads,
    symmetry classes compiled); without, look-ahead trees in one call."""
    from evo.core import engine
    from evo.search import lookahead, symmetry

    saved = (
        lookahead.WHOLE_TREE_CODES,
        lookahead.THREADED_WORK,
        symmetry._COMPILED_ROWS,
        engine.THREADS,
    )
    if big:
        lookahead.WHOLE_TREE_CODES, lookahead.THREADED_WORK = 0, 0
        symmetry._COMPILED_ROWS = 0
    else:
        lookahead.WHOLE_TREE_CODES = 10**9
    engine.set_threads(2)
    try:
        yield
    finally:
        (
            lookahead.WHOLE_TREE_CODES,
            lookahead.THREADED_WORK,
            symmetry._COMPILED_ROWS,
            engine.THREADS,
        ) = saved


#: The pools and policies every kernel is compiled for.
_POOLS: tuple[Pool, ...] = ("all", "consistent")
_POLICIES: tuple[Policy, ...] = ("symmetry", "path-independent")
_GUESSES: tuple[ExactGuesses, ...] = ("all", "consistent", "mixed")
#: The classes of the exact search: (pool, impossible codes allowed).
_CLASSES: tuple[tuple[Pool, int], ...] = (("all", 0), ("consistent", 0), ("consistent", 2))


def _growth(game: Game) -> None:
    """Random growth in each pool, and a big table's build (from packed codes)."""
    from evo.core.feedback_kernel import feedback_pairs
    from evo.core.population import random_population

    for pool in _POOLS:
        random_population(game, 2, seed=0, pool=pool)
    every = np.arange(game.num_codes, dtype=np.int64)
    feedback_pairs(game.feedback_source, every, every)  # feedbacks read both ways (tests)
    feedback_pairs(game.feedback_source, every, every, False)
    blocks = getattr(game, "_compiled_blocks", None)  # the Mastermind family's
    if blocks is not None:
        list(blocks(16))


def _lookahead(game: Game) -> None:
    """One-step trees of every heuristic and pool, and the greedy mutation's look-ahead
    (without its exact search: the search family's)."""
    from evo.core.kinds import HEURISTICS
    from evo.search.lookahead import lookahead_tree

    for heuristic in HEURISTICS:
        for pool in _POOLS:
            lookahead_tree(game, heuristic, pool=pool, engine="compiled")
    _greedy(game, exact_below=0)


def _search(game: Game) -> None:
    """The exact search without a depth limit: its policies and classes, the optimum, a
    memo outgrown, a big set spread over threads; and lower bounds."""
    from evo.baselines.optimal import optimal
    from evo.proofs.refine import lower_bound
    from evo.search.exact import UNBOUNDED, Solver, shared_solver
    from evo.search.memo_kernel import grown, new_memo
    from evo.search.palette import palette

    codes = game.all_codes().astype(np.int64)
    for policy in _POLICIES:
        for pool, impossible in _CLASSES:
            shared_solver(game, pool=pool, policy=policy, impossible=impossible).total(codes)
    optimal(game, time_limit=None)
    grown(new_memo(4))  # a memo outgrown: a big game's search
    group = palette(game, (), symmetries=True)
    for policy in _POLICIES:  # a big set's search spread over threads (tiny parts as tasks)
        for deadline in (None, time.monotonic() + 3600):
            solver = Solver(game, policy=policy, deadline=deadline)
            solver.spread(codes, UNBOUNDED, group, True, split=4, inline=2)
            solver.spread(codes, UNBOUNDED, solver._identity, False, split=4, inline=2)
    lower_bound(game, depth=1, workers=1)  # small parts solved exactly
    for depth in (0, 1, 2):  # sets above 4 codes bounded, not solved: the bound's kernels
        lower_bound(game, depth=depth, exact_below=4, workers=1)


def _within(game: Game) -> None:
    """The exact search within a depth limit: its policies and classes, the second
    objective's, and the mutations that keep a subtree's depth (a run asks for this family
    only when it may: evo.ea.engine.run_kernels)."""
    from evo.search.exact import Solver, shared_solver

    half = game.all_codes().astype(np.int64)[: game.num_codes // 2]
    for policy in _POLICIES:
        for pool, impossible in _CLASSES:
            shared_solver(game, pool=pool, policy=policy, impossible=impossible).total(
                half, depth=4
            )
        # The second objective's sets three guesses from the limit (its own kernel).
        Solver(game, policy=policy, fewest_last=True).total(half, depth=4)
    _greedy(game, exact_below=10, depths=(True,))
    _exhaustive(game, depths=(True,))


def _operators(game: Game) -> None:
    """The mutations as a run calls them (their look-ahead and exact search together),
    without a depth to keep (that calls the depth-limited search: the within family)."""
    _greedy(game, exact_below=10, depths=(False,))
    _exhaustive(game, depths=(False,))


def _greedy(game: Game, *, exact_below: int, depths: Sequence[bool] = (False, True)) -> None:
    """The greedy mutation, keeping each subtree's depth or not (``depths``)."""
    from evo.core.growth import random_breaker
    from evo.ea.mutation import greedy_mutation

    tree = random_breaker(game, rng=np.random.default_rng(0))
    for keep_depth in depths:
        greedy_mutation(
            tree,
            rng=np.random.default_rng(0),
            exact_below=exact_below,
            mixed_below=3 * exact_below,
            sweep=True,
            keep_depth=keep_depth,
        )


def _exhaustive(game: Game, *, depths: Sequence[bool] = (False, True)) -> None:
    """The exhaustive mutation of every guess set, keeping each subtree's depth or not
    (``depths``)."""
    from evo.core.growth import random_breaker
    from evo.ea.mutation import exhaustive_mutation

    tree = random_breaker(game, rng=np.random.default_rng(0))
    for keep_depth in depths:
        for guesses in _GUESSES:
            exhaustive_mutation(
                tree,
                rng=np.random.default_rng(0),
                max_codes=40,
                guesses=guesses,
                sweep=True,
                keep_depth=keep_depth,
            )
