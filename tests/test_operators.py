"""Variation operators: every offspring is a valid, shrunk breaker whose cached total is
the one recomputed from scratch; the exact search agrees with brute force."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from evo import operators as ops
from evo.game import make_game
from evo.growth import random_breaker
from evo.tree import Tree
from tests.helpers import all_code_tuples, play_depths

GAMES = {
    "mastermind-2-3": (2, 3, "mastermind"),
    "mastermind-3-3": (3, 3, "mastermind"),
    "mastermind-3-4": (3, 4, "mastermind"),
    "bulls-cows-3-5": (3, 5, "bulls-cows"),
    "mastermind-4-6": (4, 6, "mastermind"),
}


@functools.cache
def game(name):
    g = make_game(*GAMES[name])
    _ = g.table
    return g


def fresh_total(tree: Tree) -> int:
    """The total recomputed from the arrays alone (no cache)."""
    return Tree(
        tree.game,
        tree.guess,
        tree.label,
        tree.parent,
        tree.depth,
        tree.terminal,
        tree.start,
        tree.count,
        tree.codes,
    ).total


def assert_offspring_ok(tree: Tree, slow: bool = True) -> None:
    """Valid (every code wins, no guess repeated on a path), shrunk, triangle-optimized,
    and the cached total equals the one recomputed from scratch."""
    if slow:
        tree.validate()
    else:
        ops_check_no_repeats(tree)
    assert tree.num_codes == tree.game.num_codes
    assert sorted(tree.codes.tolist()) == list(range(tree.game.num_codes))
    nkids = np.bincount(tree.parent[1:], minlength=len(tree))
    leaf = nkids == 0
    inner = ~tree.terminal
    assert not np.any(inner & (nkids < 2)), "a non-terminal node with fewer than two children"
    both_leaves = np.zeros(len(tree), dtype=bool)
    for i in np.flatnonzero(inner & (nkids == 2)):
        kids = np.flatnonzero(tree.parent == i)
        both_leaves[i] = leaf[kids].all()
    assert not both_leaves.any(), "a triangle left: two leaves under a non-terminal node"
    assert tree.total == fresh_total(tree)


def ops_check_no_repeats(tree: Tree) -> None:
    from evo.growth import _check_no_repeats

    _check_no_repeats(tree)


def parents(name: str, seed: int, pool: str = "all"):
    g = game(name)
    rng = np.random.default_rng(seed)
    return random_breaker(g, rng, pool), random_breaker(g, rng, pool), rng


small_games = st.sampled_from(
    ["mastermind-2-3", "mastermind-3-3", "mastermind-3-4", "bulls-cows-3-5"]
)
seeds = st.integers(0, 2**32 - 1)
pools = st.sampled_from(["all", "consistent"])
weights = st.sampled_from(ops.NODE_WEIGHTS)
prop = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@prop
@given(small_games, seeds, pools, weights)
def test_graft_crossover_gives_valid_offspring(name, seed, pool, weight):
    a, b, rng = parents(name, seed, pool)
    for child in ops.graft_crossover(a, b, rng, pool=pool, node_weight=weight):
        assert_offspring_ok(child)


@prop
@given(small_games, seeds, st.floats(0, 1))
def test_exchange_crossover_gives_valid_offspring(name, seed, bias):
    a, b, rng = parents(name, seed)
    # Parents sharing their root guess have real divergence points below it.
    b = ops.splice(b, 0, ops.greedy_subtree(b.game, b.codes, root=int(a.guess[0])))
    ca, cb = ops.exchange_crossover(a, b, rng, bias=bias)
    assert_offspring_ok(ca)
    assert_offspring_ok(cb)
    # Exchanging subtrees keeps the sum of the totals.
    assert ca.total + cb.total == a.total + b.total


@prop
@given(small_games, seeds, pools, weights, st.sampled_from(sorted(ops.MUTATIONS)))
def test_mutations_give_valid_offspring(name, seed, pool, weight, kind):
    a, _, rng = parents(name, seed, pool)
    fn = ops.MUTATIONS[kind]
    child = a
    for _ in range(3):
        child = fn(child, rng, pool=pool, node_weight=weight)
        assert_offspring_ok(child)


@pytest.mark.parametrize("kind", sorted(ops.MUTATIONS))
def test_mutations_on_mastermind_4_6(kind):
    a, _, rng = parents("mastermind-4-6", 7)
    params = {"max_codes": 8} if kind == "exhaustive" else {}
    child = a
    for _ in range(5):
        child = ops.MUTATIONS[kind](child, rng, **params)
        assert_offspring_ok(child, slow=False)
    assert_offspring_ok(child)


def test_crossovers_on_mastermind_4_6():
    a, b, rng = parents("mastermind-4-6", 3)
    b = ops.splice(b, 0, ops.greedy_subtree(b.game, b.codes, root=int(a.guess[0])))
    for _ in range(4):
        a, b = ops.graft_crossover(a, b, rng)
        assert_offspring_ok(a, slow=False)
        assert_offspring_ok(b, slow=False)
        a, b = ops.exchange_crossover(a, b, rng, bias=0.5)
        assert_offspring_ok(a, slow=False)
        assert_offspring_ok(b, slow=False)
    a.validate()
    b.validate()


def test_cached_total_matches_independent_play():
    a, b, rng = parents("mastermind-3-3", 11)
    child = ops.regrow_mutation(a, rng)
    child, _ = ops.graft_crossover(child, b, rng)
    codes = all_code_tuples(3, 3)
    assert child.total == sum(play_depths(child, codes))


def test_splice_total_is_incremental():
    a, _, rng = parents("mastermind-3-4", 5)
    node = ops.pick_node(a, rng)
    sub = ops.greedy_subtree(a.game, a.code_set(node))
    spliced = ops.splice(a, node, sub)
    assert spliced._cache["total"] == a.total - a.subtree_totals()[node] + sub.total
    assert spliced.total == fresh_total(spliced)


def test_keep_current_mutations_never_worsen():
    a, _, rng = parents("mastermind-3-4", 2)
    for fn, params in [
        (ops.greedy_mutation, {}),
        (ops.exhaustive_mutation, {}),
        (ops.best_of_k_mutation, {"k": 3}),
    ]:
        child = a
        for _ in range(5):
            nxt = fn(child, rng, **params)
            assert nxt.total <= child.total
            child = nxt


def test_pick_node_respects_limits_and_weights():
    a, _, rng = parents("mastermind-4-6", 1)
    picks = [ops.pick_node(a, rng, "size", 3, 20) for _ in range(200)]
    assert all(3 <= a.count[p] <= 20 for p in picks)
    uniform = np.mean([a.count[ops.pick_node(a, rng, "uniform")] for _ in range(400)])
    sized = np.mean([a.count[ops.pick_node(a, rng, "size")] for _ in range(400)])
    assert sized > uniform
    tiny = make_game(2, 2)
    assert ops.pick_node(random_breaker(tiny, rng), rng, "size", 3, 2) is None


def test_aligned_node_follows_the_same_path():
    a, b, _ = parents("mastermind-3-3", 4)
    assert ops.aligned_node(a, 0, b) == 0
    b2 = ops.splice(b, 0, a.subtree(0))  # b2 is a copy of a
    for x in range(len(a)):
        y = ops.aligned_node(a, x, b2)
        assert np.array_equal(np.sort(a.code_set(x)), np.sort(b2.code_set(y)))


# ---------------------------------------------------------------- exact search
def brute_force_total(g, codes: tuple[int, ...], memo: dict) -> int:
    """The least total of a subtree for ``codes``: every helpful guess, no pruning."""
    if len(codes) <= 2:
        return 2 * len(codes) - 1
    if codes in memo:
        return memo[codes]
    best = None
    s = np.array(codes)
    for guess in range(g.num_codes):
        fb = g.feedback(guess, s)
        if not (fb == g.win).any() and (fb == fb[0]).all():
            continue  # does not help
        total = len(codes) + sum(
            brute_force_total(g, tuple(s[fb == f].tolist()), memo)
            for f in np.unique(fb)
            if f != g.win
        )
        best = total if best is None else min(best, total)
    memo[codes] = best
    return best


@pytest.mark.parametrize("name", ["mastermind-2-3", "mastermind-3-3", "bulls-cows-3-5"])
def test_exact_solver_matches_brute_force(name):
    g = game(name)
    rng = np.random.default_rng(0)
    solver = ops.ExactSolver(g)
    memo: dict = {}
    for size in [3, 4, 5, 6, 7, 8]:
        for _ in range(6):
            codes = np.sort(rng.choice(g.num_codes, size=min(size, g.num_codes), replace=False))
            expect = brute_force_total(g, tuple(codes.tolist()), memo)
            assert solver.total(codes) == expect
            sub = solver.subtree(codes)
            assert sub.total == expect
            assert sorted(sub.codes.tolist()) == codes.tolist()


def test_exact_solver_finds_the_3_3_optimum():
    g = game("mastermind-3-3")
    tree = ops.ExactSolver(g).subtree(g.all_codes())
    tree.validate()
    assert tree.total == 73  # average 2.704, the optimum of (3,3)


def test_exact_choice_does_not_depend_on_the_memo():
    """Workers solve code sets in different orders: the subtree must be the same."""
    g = game("mastermind-3-4")
    rng = np.random.default_rng(3)
    sets = [np.sort(rng.choice(g.num_codes, size=9, replace=False)) for _ in range(6)]
    warm = ops.ExactSolver(g)
    for s in sets[::-1]:
        warm.subtree(s)
    for s in sets:
        cold = ops.ExactSolver(g).subtree(s)
        again = warm.subtree(s)
        assert np.array_equal(cold.guess, again.guess)


def test_greedy_subtree_reproduces_the_classic_strategies():
    g = game("mastermind-4-6")
    # Kooi (most parts) 5668 and Knuth (largest part) 5801, as published.
    assert ops.greedy_subtree(g, g.all_codes(), heuristic="kooi").total == 5668
    assert ops.greedy_subtree(g, g.all_codes(), heuristic="knuth").total == 5801
