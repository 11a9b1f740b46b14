"""How each baseline name becomes a tree: the player of :mod:`evo.search` (or the exact
search) it names, built without any cache; and about how long that takes."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import replace

import numpy as np

from evo.baselines.consistent import optimal_consistent
from evo.baselines.easy import advanced, easy
from evo.baselines.human import least_frequent, separating
from evo.baselines.limits import DEFAULT_TIME_LIMIT
from evo.baselines.optimal import Where, by_first_guesses, optimal
from evo.baselines.optimal import estimate_seconds as optimal_estimate
from evo.baselines.paper import TieOrder, extended, human_friendly
from evo.baselines.registry import HUMAN, PAPER_STABLE, one_step, parse_name
from evo.baselines.simple import lowest_consistent, random_consistent, with_opening
from evo.core.game import Game
from evo.core.kinds import Pool
from evo.core.tree import Tree
from evo.games.pegs import peg_game
from evo.search.build import Node, build_tree
from evo.search.kernels import Kernels
from evo.search.lookahead import estimate_seconds as lookahead_estimate
from evo.search.lookahead import lookahead_player, lookahead_tree


def lookahead(
    game: Game,
    heuristic: str,
    *,
    consistent: bool = False,
    opening: Sequence[int] = (),
    progress: Callable[[int, int], None] | None = None,
) -> Tree:
    """The tree of a one-step look-ahead strategy (``knuth``, ``irving``, ``kooi`` or
    ``entropy``); ``consistent`` restricts the guesses to the node's code set.
    ``opening``: guesses played first, as written (the first at the root, the second at
    every node below it, ...), the rule choosing from there (as a published result that
    fixes the first guess). ``progress(found, total)``: codes found so far."""
    pool: Pool = "consistent" if consistent else "all"
    # A one-step tree reads fewer feedbacks than a table holds: a table that is not at
    # hand would cost more to build than computing them (Knuth (5,8): 5 s against 0).
    work = game if game.table_at_hand else game.computing()
    if not opening:
        tree = lookahead_tree(work, heuristic, pool=pool, progress=progress)
    else:
        player = lookahead_player(work, heuristic, pool=pool)
        fixed = [int(g) for g in opening]

        def choose(codes: np.ndarray, node: Node) -> int:
            depth = len(node.history)
            return fixed[depth] if depth < len(fixed) else player(codes, node)

        tree = build_tree(work, choose, as_written=True, progress=progress)
    return tree if work is game else replace(tree, game=game, _cache={})


def kernels_needed(game: Game, name: str) -> Kernels | None:
    """The compiled kernels building baseline ``name`` calls (None: it runs in NumPy): a
    one-step rule's look-ahead when it runs compiled (:func:`evo.core.engine.compiled`,
    on the game it reads, see :func:`lookahead`), RC's growth, the optimum's exact
    search."""
    from evo.core.engine import compiled
    from evo.search.kernels import kernels_for

    name = parse_name(game, name)
    if one_step(name) is not None:
        work = game if game.table_at_hand else game.computing()
        return kernels_for(work, ("lookahead",)) if compiled(work) else None
    if name.startswith("optimal"):
        return kernels_for(game, ("search",))
    if name.rsplit("+", 1)[-1] == "rc":
        return kernels_for(game, ("growth",))
    return None


def reads_table(game: Game, names: Sequence[str]) -> bool:
    """Whether building the baselines ``names`` reads the game's feedback table: every one
    but a one-step rule does, and a one-step rule only when the table is at hand (see
    :func:`lookahead`)."""
    if not game.use_table:
        return False
    return game.table_at_hand or any(one_step(parse_name(game, n)) is None for n in names)


def estimate_seconds(game: Game, name: str, *, where: Where | None = None) -> float | None:
    """About how long baseline ``name`` takes to build on ``game`` here: for the one-step
    strategies (:func:`evo.search.lookahead.estimate_seconds`) and the optimum
    (:func:`evo.baselines.optimal.estimate_seconds`, on the threads or workers of
    ``where``); None for the others (quick)."""
    name = parse_name(game, name)
    rule = one_step(name)
    if rule is not None:
        _, heuristic, consistent = rule
        return lookahead_estimate(game, heuristic, pool="consistent" if consistent else "all")
    if name == "optimal":
        where = where or Where()
        return optimal_estimate(
            game, processes=where.processes, ranked=by_first_guesses(game, where)
        )
    return None


def build(
    game: Game,
    name: str,
    *,
    seed: int = 0,
    time_limit: float | None = DEFAULT_TIME_LIMIT,
    progress: Callable[[int, int], None] | None = None,
    where: Where | None = None,
) -> Tree:
    """The tree of baseline ``name`` (no cache). ``seed``: of RC forms; ``time_limit``:
    seconds the optimum may take (:class:`~evo.baselines.limits.BaselineRefused`
    beyond); ``progress``: of the one-step strategies (:func:`lookahead`); ``where``: how
    the optimum is searched."""
    name = parse_name(game, name)
    rule = one_step(name)
    if rule is not None:
        codes, heuristic, consistent = rule
        opening = [game.parse_code(c) for c in codes]
        return lookahead(game, heuristic, consistent=consistent, opening=opening, progress=progress)
    if name == "lc":
        return lowest_consistent(game)
    if name == "rc":
        return random_consistent(game, seed=seed)
    pegs = peg_game(game)  # the human players' (parse_name refused them elsewhere)
    if name in HUMAN[:2] + PAPER_STABLE and pegs is not None:
        tie_order: TieOrder = "stable" if name.endswith("-stable") else "v8"
        base = name.removesuffix("-stable")
        maker = human_friendly if base == "human-friendly" else extended
        return maker(pegs, tie_order=tie_order)
    if name == "least-frequent" and pegs is not None:
        return least_frequent(pegs)
    if name == "separating" and pegs is not None:
        return separating(pegs)
    if name == "easy" and pegs is not None:
        return easy(pegs)
    if name == "advanced" and pegs is not None:
        return advanced(pegs)
    if name == "optimal":
        return optimal(game, time_limit=time_limit, where=where)
    if name == "optimal-consistent":
        return optimal_consistent(game, time_limit=time_limit)
    *codes, then = name.split("+")
    return with_opening(game, [game.parse_code(c) for c in codes], then, seed=seed)
