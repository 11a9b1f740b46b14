"""Polishing a breaker: every node of a size band rebuilt by a search, the better subtree
kept (a local search, as the operators' ``sweep`` does, applied to one tree on purpose).

A band names its nodes by size (``min_codes`` to ``max_codes`` codes, the outermost of
them) and its search: ``all`` (the exact optimum), ``consistent`` or ``mixed`` (the exact
search among the possible codes, and with the ``impossible`` best others), or ``greedy``
(``tries`` root guesses among the ``top`` by look-ahead, completed by look-ahead with
exact search up to ``exact_below`` and mixed search up to ``mixed_below`` codes). Bands
run in order; a subtree is replaced only by a better one (:func:`~evo.ea.variation.improves`:
a lower total, or an equal total with, under ``fewest_last``, fewer codes at the last
guess, then a lower worst case), so the total never grows, nor the worst case at an
equal total. Evolution's operators take equal subtrees too (neutral moves); a polish,
which makes one tree better, does not.

A band's nodes are disjoint, so the exact bands search them side by side on worker
processes (each node's subtree is a function of its code set and the guesses above it,
the same in any process), each result used as it comes (a node's number moves by what
the rebuilt nodes before it grew), and a polish stopped can start again from its last
:class:`Checkpoint`, which lists the nodes done.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from functools import partial
from typing import cast

import numpy as np

from evo.baselines.limits import DEFAULT_TIME_LIMIT, check_time_limit
from evo.core.engine import MAX_WORKERS, set_threads, threads
from evo.core.game import Game
from evo.core.kinds import MAX_IMPOSSIBLE, ExactGuesses
from evo.core.numbers import whole
from evo.core.rng import generator
from evo.core.tree import Tree
from evo.ea.mutation import (
    ExactRebuild,
    depth_budget,
    exact_rebuild,
    exact_solver,
    greedy_mutation,
    search_rebuild,
    settle_rebuild,
)
from evo.ea.nodes import outermost_nodes
from evo.ea.variation import offer, splice
from evo.search.build import Node, in_canonical_frame, in_canonical_frame_args
from evo.search.exact import UNBOUNDED, Solver
from evo.search.tasks import task_mapper

#: What a band can search with.
SEARCHES = ("all", "consistent", "mixed", "greedy")


class TooShortError(ValueError):
    """No breaker of the game solves every code within the worst case asked for."""


@dataclass(frozen=True)
class Band:
    """Nodes of ``min_codes`` to ``max_codes`` codes, rebuilt by ``search``."""

    min_codes: int
    max_codes: int
    search: str = "all"

    def __str__(self) -> str:
        return f"{self.min_codes}:{self.max_codes}:{self.search}"

    @classmethod
    def parse(cls, text: str) -> Band:
        """``MIN:MAX:SEARCH`` (``81:400:mixed``); ValueError saying what is wrong."""
        m = re.fullmatch(r"\s*(\d+)\s*:\s*(\d+)\s*(?::\s*([a-z]+)\s*)?", text)
        if m is None:
            raise ValueError(f"band {text!r} should read MIN:MAX:SEARCH, such as 81:400:mixed")
        low, high, search = int(m[1]), int(m[2]), m[3] or "all"
        if search not in SEARCHES:
            raise ValueError(
                f"band {text!r}: search {search!r} is not one of {', '.join(SEARCHES)}"
            )
        if not 3 <= low <= high:
            raise ValueError(f"band {text!r}: sizes should satisfy 3 <= MIN <= MAX")
        return cls(low, high, search)


@dataclass(frozen=True)
class Checkpoint:
    """How far a polish went: ``band`` bands finished (counting from 0 in the order
    given), and of the next one, the nodes rebuilt: their places in the band's order,
    right to left (0: its last node in preorder), in the order they were done."""

    band: int = 0
    done: tuple[int, ...] = ()


@dataclass
class Polished:
    """A band's outcome (``band`` None: the tree brought within ``max_guesses``): the
    totals before and after, the seconds it took, and with ``max_guesses`` the codes
    solved at that guess before and after."""

    band: Band | None
    before: int
    after: int
    seconds: float
    last_before: int | None = None
    last_after: int | None = None
    processes: int = 1


def polish(
    tree: Tree,
    bands: Sequence[Band],
    *,
    impossible: int = 2,
    tries: int = 4,
    top: int = 8,
    exact_below: int = 80,
    mixed_below: int = 400,
    seed: int = 0,
    max_guesses: int | None = None,
    climb: int = 0,
    fit: ExactGuesses = "all",
    fewest_last: bool = False,
    workers: int = 1,
    scheduler: str | None = None,
    start: Checkpoint | None = None,
    on_band: Callable[[Polished], None] | None = None,
    on_node: Callable[[Checkpoint, int, Tree], None] | None = None,
    on_fix: Callable[[Tree], None] | None = None,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    on_root: Callable[[Band, float | None], None] | None = None,
) -> tuple[Tree, list[Polished]]:
    """``tree`` with every band's nodes rebuilt (see the module); ``seed``: the draws of
    the greedy band's tries; ``max_guesses``: a worst case to keep (the tree brought
    within it first, :func:`within_worst_case` with ``climb`` and ``fit``; every rebuild's exact
    searches keep it); ``fewest_last`` with it: the exact bands' subtrees of least total
    are those with the fewest codes at ``max_guesses`` (the total first, then those).
    ``workers``: processes that search an exact band's nodes side by side (the same
    tree as one); ``scheduler``: the address of a Dask scheduler whose workers search
    them instead. ``start``: where a polish stopped before went (``tree`` the tree it
    had then): the bands and nodes done are skipped (a greedy band, whose draws depend
    on every node before, starts again). ``on_node(at, of, tree)`` is told after each
    node a band rebuilds, how far the polish is (a checkpoint to start from), of how many
    nodes in the band; ``on_fix(tree)``, after each rebuild that brings codes within
    ``max_guesses``. A band that holds the root (:func:`holds_root`) searches the whole
    game: refused beyond ``time_limit`` seconds (:func:`root_estimate`), before any work,
    else ``on_root(band, estimate)`` is told as it starts. Returns the polished tree and
    each band's outcome (also passed to ``on_band`` as each band ends)."""
    if fewest_last and max_guesses is None:
        raise ValueError("fewest_last counts the codes at max_guesses: give max_guesses")
    whole(impossible, what="impossible", low=1, high=MAX_IMPOSSIBLE)
    whole(workers, what="workers", low=1, high=MAX_WORKERS)
    start = start or Checkpoint()
    # The root's searches estimated, and refused beyond the limit, before any band runs.
    estimates = root_estimates(
        tree.game, bands, time_limit=time_limit, workers=workers, start=start
    )
    from evo.search.kernels import ensure_compiled, kernels_for, tell

    ensure_compiled(kernels_for(tree.game), say=tell)  # before the bands' clocks

    def last(tree: Tree) -> int | None:
        return None if max_guesses is None else tree.solved_at(max_guesses)

    out = []
    if max_guesses is not None and tree.worst > max_guesses:
        began, before, last_before = time.perf_counter(), tree.total, last(tree)
        tree = within_worst_case(
            tree, max_guesses, climb=climb, fit=fit, impossible=impossible, on_fix=on_fix
        )
        seconds = time.perf_counter() - began
        done = Polished(None, before, tree.total, seconds, last_before, last(tree))
        out.append(done)
        if on_band is not None:
            on_band(done)
    for index, band in enumerate(bands):
        if index < start.band:
            continue
        if index in estimates and on_root is not None:
            on_root(band, estimates[index])
        began, before, last_before = time.perf_counter(), tree.total, last(tree)
        skip = start.done if index == start.band else ()

        def told(done: int, of: int, tree: Tree, index: int = index) -> None:
            _tell(on_node, index, tuple(range(done)), of, tree)  # a greedy band, right to left

        processes = 1
        if band.search == "greedy":
            tree = greedy_mutation(
                tree,
                rng=generator(seed),
                tries=tries,
                top=top,
                exact_below=exact_below,
                mixed_below=mixed_below,
                impossible=impossible,
                min_codes=band.min_codes,
                max_codes=band.max_codes,
                sweep=True,
                strict=True,
                max_guesses=max_guesses,
                on_node=told,
            )
        else:
            tree, processes = _exact_band(
                tree,
                band,
                impossible=impossible,
                max_guesses=max_guesses,
                fewest_last=fewest_last,
                workers=workers,
                scheduler=scheduler,
                skip=skip,
                on_node=partial(_tell, on_node, index),
            )
        seconds = time.perf_counter() - began
        done = Polished(band, before, tree.total, seconds, last_before, last(tree), processes)
        out.append(done)
        if on_band is not None:
            on_band(done)
    return tree, out


def holds_root(game: Game, band: Band) -> bool:
    """Whether an exact band rebuilds the root: its sizes hold the game's every code, so
    its one node is the whole game and its search the whole game's (over every first
    guess, where ``evo baselines --only optimal`` gives an estimate and a refusal)."""
    return band.search != "greedy" and band.min_codes <= game.num_codes <= band.max_codes


def root_estimates(
    game: Game,
    bands: Sequence[Band],
    *,
    time_limit: float | None,
    workers: int = 1,
    start: Checkpoint | None = None,
) -> dict[int, float | None]:
    """``{band index: estimate}`` of the bands still to run from ``start`` that hold the
    root (:func:`root_estimate`, which refuses one beyond ``time_limit``): a band holding
    the root has no other node, so it is done once one is."""
    time_limit = check_time_limit(time_limit)
    start = start or Checkpoint()
    return {
        index: root_estimate(game, band, time_limit=time_limit, workers=workers)
        for index, band in enumerate(bands)
        if holds_root(game, band)
        and index >= start.band
        and not (index == start.band and start.done)
    }


def root_estimate(
    game: Game, band: Band, *, time_limit: float | None, workers: int = 1
) -> float | None:
    """The estimate of a band's search of the root (:func:`holds_root`): for ``all``, the
    exact optimum's on the threads the search gets, refused beyond ``time_limit`` seconds
    as ``evo baselines --only optimal`` refuses it (the same definition,
    :func:`evo.baselines.optimal.refuse_optimum`; :class:`BaselineRefused` naming the
    band); None for a narrower search, which has none."""
    from evo.baselines.limits import BaselineRefused
    from evo.baselines.optimal import refuse_optimum

    if band.search != "all":
        return None
    # As _exact_band runs it: the one node on this process's threads, or their share.
    processes = threads() if workers == 1 else max(1, threads() // workers)
    try:
        return refuse_optimum(game, time_limit, processes=processes)
    except BaselineRefused as e:
        raise BaselineRefused(
            f"refused: band {band} holds the root, the whole game: "
            + e.reason.removeprefix("refused: "),
            name=e.name,
            estimate_seconds=e.estimate_seconds,
        ) from None


def _tell(
    on_node: Callable[[Checkpoint, int, Tree], None] | None,
    band: int,
    done: tuple[int, ...],
    of: int,
    tree: Tree,
) -> None:
    """Tell ``on_node`` how far the polish is, in band ``band``."""
    if on_node is not None:
        on_node(Checkpoint(band, done), of, tree)


def _exact_band(
    tree: Tree,
    band: Band,
    *,
    impossible: int,
    max_guesses: int | None,
    fewest_last: bool,
    workers: int,
    scheduler: str | None,
    skip: tuple[int, ...],
    on_node: Callable[[tuple[int, ...], int, Tree], None],
) -> tuple[Tree, int]:
    """``tree`` with the nodes of an exact band rebuilt, as
    :func:`~evo.ea.mutation.exhaustive_mutation`'s sweep does (those at the places in
    ``skip`` taken as done), their searches on ``workers`` processes, each result used as
    it comes (on the Dask scheduler at ``scheduler`` when given); and how many processes
    searched. ``on_node(done, of, tree)`` after each."""
    game = tree.game
    guesses = cast(ExactGuesses, band.search)
    feasible = exact_solver(game, pool="all", guesses=guesses, impossible=impossible).feasible
    nodes = outermost_nodes(tree, min_codes=band.min_codes, max_codes=band.max_codes)[::-1]
    done_before = set(skip)
    todo = [k for k in range(len(nodes)) if k not in done_before]
    jobs = [
        exact_rebuild(
            tree, int(nodes[k]), feasible=feasible, max_guesses=max_guesses, fewest_last=fewest_last
        )
        for k in todo
    ]
    done = list(skip)
    grown: dict[int, int] = {}  # node (as first numbered) -> nodes its new subtree added
    pids = set()
    local = min(workers, max(len(jobs), 1))
    from evo.search.kernels import kernels_for

    need = kernels_for(game, ("search", "within"))
    with task_mapper(scheduler=scheduler, workers=local, ordered=False, kernels=need) as mapper:
        # The processes share the cores: a big node's search spread over its share.
        share = max(1, threads() // workers) if workers > 1 and scheduler is None else None
        found = mapper(_rebuild_task, [(game, job, guesses, impossible, share) for job in jobs])
        for i, (pid, sub) in found:
            pids.add(pid)
            k, job = todo[i], jobs[i]
            first = int(nodes[k])
            if job is not None:
                # The band's nodes are disjoint: one moves by what those before it grew.
                node = first + sum(d for x, d in grown.items() if x < first)
                better = settle_rebuild(tree, node, job, sub)
                size = tree.num_nodes
                last = job.depth if job.lexical else None
                tree = offer(tree, node, better, strict=True, last=last)
                grown[first] = tree.num_nodes - size
            done.append(k)
            on_node(tuple(done), len(nodes), tree)
    return tree, max(len(pids), 1)


def _rebuild_task(
    game: Game, job: ExactRebuild | None, guesses: ExactGuesses, impossible: int, share: int | None
) -> tuple[int, Tree | None]:
    """One node's search (none when ``job`` is None), in whichever process runs it (a
    worker's on ``share`` threads): the process's id and the subtree found."""
    if share is not None:
        set_threads(share)
    if job is None:
        return os.getpid(), None
    sub = search_rebuild(game, job, pool="all", guesses=guesses, impossible=impossible)
    return os.getpid(), sub


def within_worst_case(
    tree: Tree,
    max_guesses: int,
    *,
    climb: int = 0,
    fit: ExactGuesses = "all",
    impossible: int = 2,
    on_fix: Callable[[Tree], None] | None = None,
) -> Tree:
    """``tree`` with every code solved within ``max_guesses`` guesses: for each code
    deeper, the deepest node above it whose code set fits a subtree within the node's
    depth budget gets the best such subtree (the exact search; a node nearer the root
    when none fits). ``climb``: when that subtree costs more than the one it replaces, the
    nodes above it of at most ``climb`` codes are searched too, and the one whose best
    subtree costs the least more is rebuilt (the deepest of equal cost): a lower total,
    for more search. ``fit``: the class of guesses those subtrees are searched in (see
    :func:`~evo.ea.mutation.exact_solver`; ``mixed`` with ``impossible``): ``all`` the
    best, the narrower ones far faster on big games, where proving that a small node has
    no subtree of every guess within a budget of two or three reads every code of the
    game at each of its candidates. ``on_fix(tree)`` is told the tree after each rebuild
    (a fix near the root can take an hour). :class:`TooShortError` when no breaker of the
    game is that short, or none of the class at any node above a code."""
    game = tree.game
    solver = exact_solver(game, pool="all", guesses=fit, impossible=impossible)
    if not solver.feasible(game.num_codes, max_guesses):
        raise TooShortError(f"no breaker of {game.name} solves every code within {max_guesses}")
    while tree.worst > max_guesses:
        leaf = int(np.flatnonzero(tree.terminal & (tree.depth > max_guesses))[0])
        node = _cheapest_fix(tree, leaf, solver, max_guesses, climb=climb)
        if node is None:  # the root itself has no breaker that short
            raise TooShortError(
                f"no breaker of {game.name} solves every code within {max_guesses}"
                if fit == "all"
                else f"no subtree of the {fit} class brings every code of {game.name} within "
                f"{max_guesses} guesses: fit a wider class"
            )
        budget = depth_budget(tree, node, max_guesses=max_guesses)

        def solve(codes: np.ndarray, history: tuple[int, ...], d: int | None = budget) -> Tree:
            return solver.subtree(codes, history=history, depth=d)

        sub = in_canonical_frame(game, tree.code_set(node), tuple(tree.used_guesses(node)), solve)
        tree = splice(tree, node, sub)
        if on_fix is not None:
            on_fix(tree)
    return tree


def _cheapest_fix(
    tree: Tree, leaf: int, solver: Solver, max_guesses: int, *, climb: int
) -> int | None:
    """The ancestor of ``leaf`` that :func:`within_worst_case` rebuilds: the one whose best
    subtree within budget costs the least more than its current one (by ``solver``); None
    when none has a subtree within budget."""
    game = tree.game
    totals = tree.subtree_totals()
    best: tuple[int, int] | None = None
    node = leaf
    while node != 0 and (best is None or best[1] > 0):
        node = int(tree.parent[node])
        size = int(tree.count[node])
        if best is not None and size > climb:
            break
        budget = depth_budget(tree, node, max_guesses=max_guesses)
        if budget is None or not solver.feasible(size, budget):
            continue
        before = int(totals[node])
        bound = UNBOUNDED if best is None else before + best[1]  # only a cheaper fix counts
        # searched in the frame the rebuild uses, so that it finds this search in the memo
        codes, history = in_canonical_frame_args(
            game, tree.code_set(node), tuple(tree.used_guesses(node))
        )
        cost = solver.solve(codes.astype(np.int64), Node.after(game, history), bound, depth=budget)
        if cost < bound:
            best = (node, cost - before)
    return None if best is None else best[0]
