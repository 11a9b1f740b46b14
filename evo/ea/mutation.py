"""Mutations: one tree in, one out; each rebuilds the subtree of one picked node.

``regrow``      another helpful guess at a node, its subtree regrown at random.
``best-of-k``   ``k`` random regrows of a node's subtree, the best one kept.
``greedy``      a node's subtree rebuilt by one-step look-ahead (:mod:`evo.search.lookahead`),
                trying a few of the best root guesses; small code sets solved exactly.
``exhaustive``  a small code set's subtree replaced by an optimal one (:mod:`evo.search.exact`).
"""

from __future__ import annotations

import hashlib
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from evo.core.game import Game, helpful_rows
from evo.core.growth import grow
from evo.core.kinds import ExactGuesses, NodeWeight, Pool
from evo.core.tree import Tree
from evo.ea.deadline import TimeLimit
from evo.ea.nodes import MIN_CODES, outermost_nodes, pick_node
from evo.ea.variation import offer, splice, total_of
from evo.search.build import Node, build_tree, in_canonical_frame
from evo.search.exact import Policy, shared_solver
from evo.search.lookahead import lookahead_player, ranked_guesses
from evo.search.partition import candidates, feedback_block

#: Told after each node of a sweep: ``(nodes done, nodes in the sweep, the tree so far)``.
Progress = Callable[[int, int, Tree], None]

#: Random guesses tried before the helpful ones are listed (a random guess nearly always
#: helps on three codes or more).
_REJECTION_TRIES = 8


def helpful_guess(
    game: Game,
    codes: np.ndarray,
    *,
    rng: np.random.Generator,
    pool: Pool,
    avoid: int = -1,
    history: tuple[int, ...] = (),
) -> int:
    """A uniform draw among the pool's guesses that help on ``codes``, other than
    ``avoid`` when there is another (in a game with a rule, the legal ones after
    ``history``, the guesses above)."""
    for _ in range(_REJECTION_TRIES if game.rule is None else 0):
        g = int(
            codes[rng.integers(len(codes))]
            if pool == "consistent"
            else rng.integers(game.num_guesses)
        )
        if g != avoid and game.helps(g, codes):
            return g
    cand = candidates(game, codes, pool=pool, history=history)
    if game.symmetric_feedback:  # the codes' rows, read as the candidates' columns
        fb = feedback_block(game, codes, cand if pool == "consistent" else None).T
    else:
        fb = feedback_block(game, cand, codes)
    good = cand[helpful_rows(fb, game.win) & (cand != avoid)]
    if len(good) == 0:
        return avoid
    return int(good[rng.integers(len(good))])


def greedy_subtree(
    game: Game,
    codes: np.ndarray,
    *,
    pool: Pool = "all",
    heuristic: str = "kooi",
    root: int | None = None,
    exact_below: int = 0,
    history: tuple[int, ...] | None = None,
    depth: int | None = None,
    mixed_below: int = 0,
    impossible: int = 2,
) -> Tree:
    """The one-step look-ahead subtree of ``codes`` (``root``: its root guess, if given);
    code sets of at most ``exact_below`` codes get an optimal subtree instead (with
    ``depth``, the best one that keeps every code within ``depth`` guesses of the root
    when there is one), and larger ones of at most ``mixed_below`` codes the best subtree
    among the codes still possible and the ``impossible`` best others. With the
    ``history`` that led to ``codes``, candidates are reduced by its symmetries: the same
    subtree, built faster (much faster near the root of a big game)."""
    mixed = (mixed_below, impossible) if mixed_below > exact_below else ()
    key = (game.key, _digest(codes), pool, heuristic, root, exact_below, depth, *mixed)
    found = _GREEDY_CACHE.get(key)
    if found is not None:
        _GREEDY_CACHE.move_to_end(key)
        return found
    known = history is not None
    look = lookahead_player(game, heuristic, pool=pool, symmetry=known)
    policy: Policy = "symmetry" if known else "path-independent"
    solver = shared_solver(game, pool=pool, policy=policy) if exact_below >= 3 else None
    near = None
    if mixed_below > max(exact_below, 2):
        k = impossible if pool == "all" else 0
        near = shared_solver(game, pool="consistent", policy=policy, impossible=k)

    top = len(history or ())

    def choose(s: np.ndarray, node: Node) -> int:
        if root is not None and len(node.history) == top:
            return int(root)
        if solver is not None and len(s) <= exact_below:
            if depth is not None:
                try:
                    return solver.best_guess(s, node, depth=depth - (len(node.history) - top))
                except ValueError:
                    pass  # the guesses above went too deep already: the best there is
            return solver.best_guess(s, node)
        if near is not None and len(s) <= mixed_below:
            return near.best_guess(s, node)
        return look(s, node)

    tree = build_tree(game, choose, codes=codes, history=history or ())
    _remember(key, tree)
    return tree


#: Look-ahead subtrees kept per process, by code set and options, the least recently
#: used dropped past this many codes in all (~100 MB): a population shares most of its
#: nodes, so the same subtree is asked for again and again. The subtree is a function of
#: its code set and options alone, so the cache changes no result.
GREEDY_CACHE_CODES = 1_000_000
_GREEDY_CACHE: OrderedDict[tuple, Tree] = OrderedDict()
_CACHED_CODES = [0]  # codes held by the cache's trees


def clear_greedy_cache() -> None:
    """Empty the cache (benchmarks measure cold rebuilds; tests compare fresh ones)."""
    _GREEDY_CACHE.clear()
    _CACHED_CODES[0] = 0


def _remember(key: tuple, tree: Tree) -> None:
    """Cache ``tree`` under ``key``, dropping the least recently used past the bound."""
    _GREEDY_CACHE[key] = tree
    _CACHED_CODES[0] += tree.num_codes
    while _CACHED_CODES[0] > GREEDY_CACHE_CODES:
        _, old = _GREEDY_CACHE.popitem(last=False)
        _CACHED_CODES[0] -= old.num_codes


def _digest(codes: np.ndarray) -> bytes:
    """A key for a sorted code set."""
    return hashlib.blake2b(np.ascontiguousarray(codes, dtype=np.int64).tobytes()).digest()


def regrow_mutation(
    tree: Tree, *, rng: np.random.Generator, pool: Pool = "all", node_weight: NodeWeight = "size"
) -> Tree:
    """*Regrow*: a node takes another helpful guess from the pool and its subtree is
    regrown by random path completion."""
    node = pick_node(tree, rng=rng, weight=node_weight)
    if node is None:
        return tree
    codes = tree.code_set(node)
    history = _history(tree, node)
    g = helpful_guess(
        tree.game, codes, rng=rng, pool=pool, avoid=int(tree.guess[node]), history=history
    )
    sub = grow(tree.game, codes, rng=rng, pool=pool, root_guess=g, history=history)
    return splice(tree, node, sub)


def _history(tree: Tree, node: int) -> tuple[int, ...]:
    """The guesses above ``node``, where the game's rule needs them (else none: the
    random growth of the other games does not read them)."""
    return tuple(tree.used_guesses(node)) if tree.game.rule is not None else ()


def best_of_k_mutation(
    tree: Tree,
    *,
    rng: np.random.Generator,
    pool: Pool = "all",
    node_weight: NodeWeight = "size",
    k: int = 4,
    keep_current: bool = True,
) -> Tree:
    """*Best-of-k regrow*: ``k`` random regrows of a node's subtree; the one with the least
    total replaces it (unless it is worse than the current one, with ``keep_current``)."""
    node = pick_node(tree, rng=rng, weight=node_weight)
    if node is None:
        return tree
    codes = tree.code_set(node)
    history = _history(tree, node)
    subs = (grow(tree.game, codes, rng=rng, pool=pool, history=history) for _ in range(k))
    best = min(subs, key=total_of)
    return offer(tree, node, best, keep_current=keep_current)


def greedy_mutation(
    tree: Tree,
    *,
    rng: np.random.Generator,
    pool: Pool = "all",
    node_weight: NodeWeight = "size",
    heuristic: str = "kooi",
    tries: int = 2,
    top: int = 6,
    exact_below: int = 0,
    keep_current: bool = True,
    max_codes: int | None = None,
    min_codes: int = MIN_CODES,
    max_depth: int | None = None,
    keep_depth: bool = False,
    mixed_below: int = 0,
    impossible: int = 2,
    sweep: bool = False,
    time_limit: TimeLimit | None = None,
    max_guesses: int | None = None,
    on_node: Progress | None = None,
    strict: bool = False,
) -> Tree:
    """*Greedy subtree*: a node's subtree is rebuilt by one-step look-ahead with
    ``heuristic``. ``tries`` root guesses are drawn among the ``top`` best by the heuristic
    (the best one always among them), each completed by look-ahead below; the best result
    replaces the subtree (unless it is worse, with ``keep_current``). Code sets of at most
    ``exact_below`` codes are solved exactly (with ``keep_depth``, as well as possible
    without going deeper than the current subtree, so the worst case does not grow
    there), and larger ones of at most ``mixed_below`` codes among the possible codes
    and the ``impossible`` best others. Nodes of ``min_codes`` to ``max_codes`` codes (at
    most ``max_depth`` guesses from the root) are picked; with ``sweep``, every one of
    them that no other contains, not one at random.
    The ``time_limit`` is checked between the tries (a rebuild near the root of a big
    game takes seconds). With ``max_guesses`` (the run's limit on the worst case), the
    exact searches below keep every code within it when they can (:func:`depth_budget`).
    ``on_node(done, of, tree)``: told after each node of a sweep (a long one's progress).
    ``strict`` (polish): only a better subtree is taken (:func:`~evo.ea.variation.offer`).
    """
    game = tree.game

    def rebuild(tree: Tree, node: int) -> Tree:
        codes = tree.code_set(node)
        history = tuple(tree.used_guesses(node))
        ranked, _ = ranked_guesses(
            game, codes, heuristic=heuristic, pool=pool, node=Node.after(game, history)
        )
        n = min(top, len(ranked))
        picks = [0]
        if tries > 1 and n > 1:
            picks += (1 + rng.permutation(n - 1)[: tries - 1]).tolist()
        depth = depth_budget(tree, node, keep_depth=keep_depth, max_guesses=max_guesses)
        subs = []
        for p in picks:
            if time_limit is not None:
                time_limit.check()
            subs.append(
                greedy_subtree(
                    game,
                    codes,
                    pool=pool,
                    heuristic=heuristic,
                    root=int(ranked[p]),
                    exact_below=exact_below,
                    history=history,
                    depth=depth,
                    mixed_below=mixed_below,
                    impossible=impossible,
                )
            )
        return min(subs, key=total_of)

    return _rebuild_nodes(
        tree,
        rebuild,
        rng=rng,
        node_weight=node_weight,
        min_codes=min_codes,
        max_codes=max_codes,
        max_depth=max_depth,
        sweep=sweep,
        keep_current=keep_current,
        time_limit=time_limit,
        on_node=on_node,
        strict=strict,
    )


def exhaustive_mutation(
    tree: Tree,
    *,
    rng: np.random.Generator,
    pool: Pool = "all",
    node_weight: NodeWeight = "size",
    max_codes: int = 10,
    min_codes: int = MIN_CODES,
    max_depth: int | None = None,
    keep_depth: bool = False,
    guesses: ExactGuesses = "all",
    impossible: int = 2,
    sweep: bool = False,
    shallower: bool = False,
    time_limit: TimeLimit | None = None,
    max_guesses: int | None = None,
    fewest_last: bool = False,
    on_node: Progress | None = None,
) -> Tree:
    """*Exhaustive subtree*: a node of ``min_codes`` to ``max_codes`` codes, at most
    ``max_depth`` guesses from the root (with ``sweep``, every one that no other
    contains), gets the best subtree the exact search finds among its ``guesses``
    (``all``: an optimal one; ``consistent``: the best that guesses codes still possible;
    ``mixed``: those and the ``impossible`` best others), the first in the search's
    order, so a subtree as good of another shape may be replaced by it. A worse one
    (``consistent`` or ``mixed`` can be worse than the current subtree) is declined.
    With ``keep_depth``, the best subtree no deeper than the current one (the worst case
    kept, for NSGA-II); with ``shallower``, a node under which some code needs the tree's
    worst case gets the best subtree one guess shorter than its own, when there is one
    (fewer codes at the worst case: NSGA-II's third objective). With ``max_guesses`` (the
    run's limit on the worst case), the best subtree that keeps every code within it
    (:func:`depth_budget`; the node stays when there is none). The search runs where
    the node's first guess is the lowest of its orbit, so that nodes below symmetric
    first guesses (in Bulls and Cows, every first guess) share the search's memo.
    ``fewest_last`` with ``max_guesses``: of the subtrees of least total within that
    limit, one with the fewest codes at its last guess (fewer codes at the worst case, the
    total kept), declined when it has more than the current subtree at an equal total.
    ``on_node(done, of, tree)``: told after each node of a sweep."""
    game = tree.game
    feasible = exact_solver(game, pool=pool, guesses=guesses, impossible=impossible).feasible

    def rebuild(tree: Tree, node: int) -> Tree:
        job = exact_rebuild(
            tree,
            node,
            feasible=feasible,
            keep_depth=keep_depth,
            shallower=shallower,
            max_guesses=max_guesses,
            fewest_last=fewest_last,
        )
        if job is None:
            return tree.subtree(node)  # no such subtree: the node stays as it is
        sub = search_rebuild(game, job, pool=pool, guesses=guesses, impossible=impossible)
        return settle_rebuild(tree, node, job, sub)

    return _rebuild_nodes(
        tree,
        rebuild,
        rng=rng,
        node_weight=node_weight,
        min_codes=min_codes,
        max_codes=max_codes,
        max_depth=max_depth,
        sweep=sweep,
        keep_current=guesses != "all" and not shallower,
        time_limit=time_limit,
        at_worst=shallower,
        on_node=on_node,
    )


def depth_budget(
    tree: Tree, node: int, *, keep_depth: bool = False, max_guesses: int | None = None
) -> int | None:
    """How many guesses a rebuilt subtree of ``node`` may take, counting its root: no
    more than the current subtree's (``keep_depth``), and no more than the run's limit
    on the worst case leaves below the guesses above it (``max_guesses``); None: any."""
    limits = []
    if keep_depth:
        limits.append(int(tree.height(node)))
    if max_guesses is not None:
        limits.append(max_guesses - int(tree.depth[node]) + 1)
    return min(limits) if limits else None


@dataclass(frozen=True)
class ExactRebuild:
    """What the exact search of one node needs apart from its tree: the node's code set,
    the guesses above it, how many guesses its subtree may take (None: any), and whether
    the second objective applies (``lexical``: fewest codes at that last guess)."""

    codes: np.ndarray
    history: tuple[int, ...]
    depth: int | None
    lexical: bool


def exact_rebuild(
    tree: Tree,
    node: int,
    *,
    feasible: Callable[[int, int], bool],
    keep_depth: bool = False,
    shallower: bool = False,
    max_guesses: int | None = None,
    fewest_last: bool = False,
) -> ExactRebuild | None:
    """The exact rebuild of ``node`` that :func:`exhaustive_mutation` searches (see its
    options), or None when no subtree fits the depth allowed (``feasible(codes, depth)``:
    the solver's test)."""
    depth = depth_budget(tree, node, keep_depth=keep_depth or shallower, max_guesses=max_guesses)
    if depth is not None and shallower:
        depth = min(depth, tree.height(node) - 1)
    if depth is not None and not feasible(int(tree.count[node]), depth):
        return None
    # The second objective counts the codes at the run's limit, so only where the
    # subtree's budget is what that limit leaves.
    lexical = (
        fewest_last
        and depth is not None
        and depth == depth_budget(tree, node, max_guesses=max_guesses)
    )
    return ExactRebuild(tree.code_set(node), tuple(tree.used_guesses(node)), depth, lexical)


def search_rebuild(
    game: Game, job: ExactRebuild, *, pool: Pool, guesses: ExactGuesses, impossible: int = 2
) -> Tree | None:
    """The subtree the process's exact search of ``guesses`` finds for ``job`` (searched
    where its first guess is the lowest of its orbit), or None when it proves that none
    is that short. The same subtree in any process: a plain function of its arguments,
    so that a sweep's nodes can be searched side by side."""
    by = exact_solver(
        game, pool=pool, guesses=guesses, impossible=impossible, fewest_last=job.lexical
    )
    try:
        return in_canonical_frame(
            game,
            job.codes,
            job.history,
            lambda codes, history: by.subtree(codes, history=history, depth=job.depth),
        )
    except ValueError:
        return None


def settle_rebuild(tree: Tree, node: int, job: ExactRebuild, sub: Tree | None) -> Tree:
    """What :func:`search_rebuild` offers ``node``: ``sub``, or the current subtree when
    there is none, or when (``lexical``) a pool that misses the current subtree found
    one with more codes at the last guess at a total no lower."""
    if sub is None:
        return tree.subtree(node)
    if job.lexical and job.depth is not None:
        now = tree.subtree(node)
        if (sub.total, sub.solved_at(job.depth)) > (now.total, now.solved_at(job.depth)):
            return now
    return sub


def _rebuild_nodes(
    tree: Tree,
    rebuild: Callable[[Tree, int], Tree],
    *,
    rng: np.random.Generator,
    node_weight: NodeWeight,
    min_codes: int,
    max_codes: int | None,
    max_depth: int | None,
    sweep: bool,
    keep_current: bool,
    time_limit: TimeLimit | None,
    at_worst: bool = False,
    on_node: Progress | None = None,
    strict: bool = False,
) -> Tree:
    """``rebuild(tree, node)`` offered at one node of ``min_codes`` to ``max_codes`` codes
    picked at random, or, with ``sweep``, at every such node that no other contains
    (right to left, so the nodes left to do keep their numbers; a worse subtree is then
    always declined, and the time limit checked between nodes). ``strict``: only a better
    one is taken (:func:`~evo.ea.variation.offer`)."""
    if not sweep:
        node = pick_node(
            tree,
            rng=rng,
            weight=node_weight,
            min_codes=min_codes,
            max_codes=max_codes,
            max_depth=max_depth,
            at_worst=at_worst,
        )
        return (
            tree
            if node is None
            else offer(tree, node, rebuild(tree, node), keep_current=keep_current, strict=strict)
        )
    band = outermost_nodes(
        tree, min_codes=min_codes, max_codes=max_codes, max_depth=max_depth, at_worst=at_worst
    )
    for done, node in enumerate(band[::-1], start=1):
        if time_limit is not None:
            time_limit.check()
        tree = offer(tree, int(node), rebuild(tree, int(node)), keep_current=True, strict=strict)
        if on_node is not None:
            on_node(done, len(band), tree)
    return tree


def exact_solver(
    game: Game,
    *,
    pool: Pool,
    guesses: ExactGuesses,
    impossible: int = 2,
    fewest_last: bool = False,
):
    """The process's exact search (symmetry policy) of a run's ``pool`` for ``guesses``
    (``fewest_last``: :class:`~evo.search.exact.Solver`'s second objective)."""
    if guesses == "all":
        return shared_solver(game, pool=pool, policy="symmetry", fewest_last=fewest_last)
    k = impossible if guesses == "mixed" and pool == "all" else 0
    return shared_solver(
        game, pool="consistent", policy="symmetry", impossible=k, fewest_last=fewest_last
    )
