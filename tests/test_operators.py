"""Variation operators: every offspring is a valid, shrunk breaker whose cached total is
the one recomputed from scratch, and every parameter of every operator changes what it
does (each test below fails when its parameter is ignored)."""

from __future__ import annotations

import functools
import inspect
from typing import get_args

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.definitions import (
    all_code_tuples,
    assert_offspring_ok,
    first_difference,
    fresh_total,
    play_depths,
)

import evo.config
from evo.baselines import lookahead, optimal, random_consistent
from evo.config import BUILTIN_KINDS
from evo.core.game import make_game
from evo.core.growth import grow, random_breaker
from evo.core.kinds import HEURISTICS, NODE_WEIGHTS
from evo.ea import crossover, mutation
from evo.ea.crossover import aligned_node, divergence_points, exchange_crossover, graft_crossover
from evo.ea.mutation import (
    best_of_k_mutation,
    exhaustive_mutation,
    greedy_mutation,
    greedy_subtree,
    regrow_mutation,
)
from evo.ea.nodes import candidate_nodes, pick_node
from evo.ea.operators import OPERATORS
from evo.ea.variation import offer, splice
from evo.search.exact import shared_solver
from evo.search.lookahead import ranked_guesses
from evo.search.partition import split

GAMES = {
    "mastermind-2-3": (2, 3, "mastermind"),
    "mastermind-3-3": (3, 3, "mastermind"),
    "mastermind-3-4": (3, 4, "mastermind"),
    "mastermind-4-4": (4, 4, "mastermind"),
    "bulls-cows-3-5": (3, 5, "bulls-cows"),
    "mastermind-4-6": (4, 6, "mastermind"),
}

MUTATIONS = sorted(k for k, op in OPERATORS.items() if op.role == "mutation")
CROSSOVERS = sorted(k for k, op in OPERATORS.items() if op.role == "crossover")


@functools.cache
def game(name):
    return make_game(*GAMES[name]).prepare()


def parents(name: str, seed: int, pool: str = "all"):
    g = game(name)
    rng = np.random.default_rng(seed)
    return random_breaker(g, rng=rng, pool=pool), random_breaker(g, rng=rng, pool=pool), rng


def same_root_parents(name: str, seed: int):
    """Two parents with the same root guess, so with divergence points below the root."""
    a, b, rng = parents(name, seed)
    b = splice(b, 0, greedy_subtree(b.game, b.codes, root=int(a.guess[0])))
    return a, b, rng


def mutate(kind: str, tree, *, rng, **params):
    return OPERATORS[kind].function(tree, rng=rng, **params)


@pytest.fixture
def force_node(monkeypatch):
    """``force_node(x)``: the operators act on node ``x`` (when its code set is within
    their limits; else they find no node), so that what they do there can be checked."""

    def force(x: int) -> None:
        def pick(tree, **kw):
            limits = {k: kw[k] for k in ("min_codes", "max_codes", "max_depth") if k in kw}
            return x if x in candidate_nodes(tree, **limits) else None

        monkeypatch.setattr(mutation, "pick_node", pick)
        monkeypatch.setattr(crossover, "pick_node", pick)

    return force


@pytest.fixture
def picks(monkeypatch):
    """Every call of ``pick_node`` by an operator: ``(node picked, keyword arguments)``."""
    seen: list[tuple[int | None, dict]] = []

    def spy(tree, **kw):
        node = pick_node(tree, **kw)
        seen.append((node, kw))
        return node

    monkeypatch.setattr(mutation, "pick_node", spy)
    monkeypatch.setattr(crossover, "pick_node", spy)
    return seen


# ------------------------------------------------------------------ registry
def _union_models(union) -> list:
    inner = get_args(union)[0]  # Annotated[Annotated[A, Tag] | ..., Discriminator]
    return [get_args(tagged)[0] for tagged in get_args(inner)]


@pytest.mark.parametrize(
    "union, role", [(evo.config.CrossoverOp, "crossover"), (evo.config.MutationOp, "mutation")]
)
def test_every_config_kind_is_registered_with_its_parameters(union, role):
    models = _union_models(union)
    kinds = set()
    for model in models:
        literal = get_args(model.model_fields["kind"].annotation)
        if not literal:  # operators registered from Python: any name (tests/test_api.py)
            continue
        (kind,) = literal
        kinds.add(kind)
        op = OPERATORS[kind]
        assert op.role == role
        params = inspect.signature(op.function).parameters
        for field in set(model.model_fields) - {"kind", "weight"}:
            assert field in params, f"{kind}: {field} is not a parameter of {op.function}"
            assert params[field].kind is inspect.Parameter.KEYWORD_ONLY
        assert params["rng"].kind is inspect.Parameter.KEYWORD_ONLY
    assert kinds == {k for k, op in OPERATORS.items() if op.role == role and k in BUILTIN_KINDS}


# ------------------------------------------------------------ valid offspring
small_games = st.sampled_from(
    ["mastermind-2-3", "mastermind-3-3", "mastermind-3-4", "bulls-cows-3-5"]
)
seeds = st.integers(0, 2**32 - 1)
pools = st.sampled_from(["all", "consistent"])
weights = st.sampled_from(NODE_WEIGHTS)
prop = settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])


@prop
@given(small_games, seeds, pools, weights)
def test_graft_crossover_gives_valid_offspring(name, seed, pool, weight):
    a, b, rng = parents(name, seed, pool)
    for child in graft_crossover(a, b, rng=rng, pool=pool, node_weight=weight):
        assert_offspring_ok(child)
        if pool == "consistent":
            assert child.terminal.all()  # only the node's own codes were guessed


@prop
@given(small_games, seeds, st.floats(0, 1))
def test_exchange_crossover_gives_valid_offspring(name, seed, bias):
    a, b, rng = same_root_parents(name, seed)
    ca, cb = exchange_crossover(a, b, rng=rng, bias=bias)
    assert_offspring_ok(ca)
    assert_offspring_ok(cb)
    # Exchanging subtrees keeps the sum of the totals.
    assert ca.total + cb.total == a.total + b.total


@prop
@given(small_games, seeds, pools, weights, st.sampled_from(MUTATIONS))
def test_mutations_give_valid_offspring(name, seed, pool, weight, kind):
    a, _, rng = parents(name, seed, pool)
    child = a
    for _ in range(3):
        child = mutate(kind, child, rng=rng, pool=pool, node_weight=weight)
        assert_offspring_ok(child)
        if pool == "consistent":
            assert child.terminal.all()


@pytest.mark.parametrize("kind", MUTATIONS)
def test_mutations_on_mastermind_4_6(kind):
    a, _, rng = parents("mastermind-4-6", 7)
    params = {"max_codes": 8} if kind == "exhaustive" else {}
    child = a
    for _ in range(5):
        nxt = mutate(kind, child, rng=rng, **params)
        assert_offspring_ok(nxt, slow=False)
        child = nxt
    assert_offspring_ok(child)
    assert a.total == fresh_total(a)  # the parent is unchanged


def test_crossovers_on_mastermind_4_6():
    a, b, rng = same_root_parents("mastermind-4-6", 3)
    for _ in range(4):
        a, b = graft_crossover(a, b, rng=rng)
        assert_offspring_ok(a, slow=False)
        assert_offspring_ok(b, slow=False)
        a, b = exchange_crossover(a, b, rng=rng, bias=0.5)
        assert_offspring_ok(a, slow=False)
        assert_offspring_ok(b, slow=False)
    a.validate()
    b.validate()


@pytest.mark.parametrize("kind", MUTATIONS + CROSSOVERS)
def test_same_seed_same_offspring_and_parents_unchanged(kind):
    a, b, _ = same_root_parents("mastermind-3-4", 8)
    guesses = a.guess.copy(), b.guess.copy()
    op = OPERATORS[kind].function
    args = (a,) if OPERATORS[kind].role == "mutation" else (a, b)
    one = op(*args, rng=np.random.default_rng(1))
    two = op(*args, rng=np.random.default_rng(1))
    one, two = (one, two) if OPERATORS[kind].role == "crossover" else ((one,), (two,))
    for x, y in zip(one, two):
        assert np.array_equal(x.guess, y.guess) and np.array_equal(x.label, y.label)
    assert np.array_equal(a.guess, guesses[0]) and np.array_equal(b.guess, guesses[1])


def test_cached_total_matches_independent_play():
    a, b, rng = parents("mastermind-3-3", 11)
    child = regrow_mutation(a, rng=rng)
    child, _ = graft_crossover(child, b, rng=rng)
    codes = all_code_tuples(3, 3)
    assert child.total == sum(play_depths(child, codes))


# ------------------------------------------------------------ splice and offer
def test_splice_total_is_incremental():
    a, _, rng = parents("mastermind-3-4", 5)
    node = pick_node(a, rng=rng)
    sub = greedy_subtree(a.game, a.code_set(node))
    spliced = splice(a, node, sub)
    assert spliced.total == a.total - a.subtree_totals()[node] + sub.total
    assert spliced.total == fresh_total(spliced)


def test_offer_takes_a_different_subtree_of_equal_total(hand_tree, hand_tree_swapped):
    """Neutral moves: a subtree as good as the current one is taken, even when the
    operator keeps the current one against worse ones."""
    g = hand_tree.game
    node = hand_tree.children(0)[g.parse_feedback("1,0")]
    other = hand_tree_swapped.subtree(node)
    assert other.total == hand_tree.subtree(node).total == 3
    for keep_current in (False, True):
        new = offer(hand_tree, node, other, keep_current=keep_current)
        assert new is not hand_tree
        assert np.array_equal(new.guess, hand_tree_swapped.guess)
        assert new.total == 8


def test_offer_declines_the_same_subtree_and_with_keep_current_a_worse_one():
    a, _, _ = parents("mastermind-3-4", 2)
    node = int(np.flatnonzero(a.count >= 6)[1])
    assert offer(a, node, a.subtree(node)) is a
    assert offer(a, node, a.subtree(node), keep_current=True) is a
    codes = a.code_set(node)
    subs = [grow(a.game, codes, rng=np.random.default_rng(s)) for s in range(8)]
    worse = max(subs, key=lambda t: t.total)
    assert worse.total > a.subtree_totals()[node]
    assert offer(a, node, worse, keep_current=True) is a
    taken = offer(a, node, worse)
    assert taken.total == a.total - a.subtree_totals()[node] + worse.total


# ------------------------------------------------------------------ pick_node
def test_pick_node_respects_limits():
    a, _, rng = parents("mastermind-4-6", 1)
    picked = [pick_node(a, rng=rng, weight="size", min_codes=3, max_codes=20) for _ in range(200)]
    assert all(3 <= a.count[p] <= 20 for p in picked)
    assert len(set(picked)) > 10
    tiny = make_game(2, 2)
    assert pick_node(random_breaker(tiny, rng=rng), rng=rng, max_codes=2) is None
    with pytest.raises(ValueError, match="node weight"):
        pick_node(a, rng=rng, weight="heavy")


@pytest.mark.parametrize("weight", NODE_WEIGHTS)
def test_pick_node_draws_with_the_weight_it_is_given(weight):
    """The mean code-set size of picked nodes is the one the weight implies, and far
    from the ones of the other weights."""
    a, _, _ = parents("mastermind-4-6", 1)
    rng = np.random.default_rng(5)
    sizes = a.count[candidate_nodes(a)].astype(float)
    law = {"uniform": np.ones_like(sizes), "size": sizes, "sqrt": np.sqrt(sizes)}
    expected = {}
    for name, w in law.items():
        p = w / w.sum()
        mean = float(p @ sizes)
        expected[name] = (mean, float(np.sqrt(p @ (sizes - mean) ** 2)))
    n = 4000
    got = np.mean([a.count[pick_node(a, rng=rng, weight=weight)] for _ in range(n)])
    mean, sd = expected[weight]
    tolerance = 4 * sd / np.sqrt(n)
    assert abs(got - mean) < tolerance, (weight, got, expected)
    for other, (m, _) in expected.items():
        if other != weight:
            assert abs(got - m) > tolerance, (weight, other, got, expected)


@pytest.mark.parametrize(
    "kind",
    sorted(
        k
        for k, op in OPERATORS.items()
        if "node_weight" in inspect.signature(op.function).parameters
    ),
)
@pytest.mark.parametrize("weight", NODE_WEIGHTS)
def test_operators_pick_nodes_by_their_node_weight(picks, kind, weight):
    a, b, rng = same_root_parents("mastermind-3-4", 4)
    args = (a,) if OPERATORS[kind].role == "mutation" else (a, b)
    OPERATORS[kind].function(*args, rng=rng, node_weight=weight)
    assert picks and all(kw["weight"] == weight for _, kw in picks)


def test_aligned_node_follows_the_same_path():
    a, b, _ = parents("mastermind-3-3", 4)
    assert aligned_node(a, 0, b) == 0  # the root is reached by no guess at all
    b2 = splice(b, 0, a.subtree(0))  # b2 is a copy of a
    for x in range(len(a)):
        y = aligned_node(a, x, b2)
        assert np.array_equal(np.sort(a.code_set(x)), np.sort(b2.code_set(y)))


# ----------------------------------------------------------------- crossovers
def test_graft_takes_the_aligned_subtree_of_the_other_parent(force_node):
    a, b, rng = same_root_parents("mastermind-3-4", 6)
    for x in np.flatnonzero(a.count >= 3)[:8]:
        y = aligned_node(a, int(x), b)
        if y < 0:
            continue
        force_node(int(x))
        child, _ = graft_crossover(a, b, rng=rng)
        expect = b.subtree(y)
        got = child.subtree(int(x))
        assert np.array_equal(got.guess, expect.guess) and got.total == expect.total


@pytest.mark.parametrize("seed", range(4))
def test_exchange_bias_one_gives_the_first_offspring_every_better_subtree(seed):
    a, b, rng = same_root_parents("mastermind-4-4", seed)
    points = divergence_points(a, b)
    ta, tb = a.subtree_totals(), b.subtree_totals()
    gains = [int(ta[x] - tb[y]) for x, y in points]
    assert sum(g != 0 for g in gains) >= 3  # enough points for chance not to do the same
    ca, cb = exchange_crossover(a, b, rng=rng, bias=1.0)
    assert ca.total == a.total - sum(g for g in gains if g > 0)
    assert cb.total == b.total + sum(g for g in gains if g > 0)
    assert ca.total <= min(a.total, b.total)


def test_exchange_without_bias_swaps_at_random():
    a, b, _ = same_root_parents("mastermind-4-4", 0)
    outcomes = {
        exchange_crossover(a, b, rng=np.random.default_rng(s), bias=0.0)[0].total for s in range(12)
    }
    assert len(outcomes) > 3


# ------------------------------------------------------------------ mutations
@pytest.mark.parametrize("pool", ["all", "consistent"])
def test_regrow_puts_another_guess_of_the_pool_at_the_node(force_node, pool):
    a, _, rng = parents("mastermind-3-4", 3, pool)
    nodes = np.flatnonzero(a.count >= 3)
    assert len(nodes) >= 8
    for x in nodes:
        force_node(int(x))
        for _ in range(3):
            child = regrow_mutation(a, rng=rng, pool=pool)
            assert child.guess[x] != a.guess[x]
            assert np.array_equal(child.guess[:x], a.guess[:x])
            assert child.count[x] == a.count[x]
            if pool == "consistent":
                assert child.guess[x] in a.code_set(int(x))


def test_best_of_k_grows_k_subtrees_and_keeps_the_best(force_node, monkeypatch):
    a, _, rng = parents("mastermind-3-4", 1)
    grown = []

    def spy_grow(*args, **kwargs):
        sub = grow(*args, **kwargs)
        grown.append(sub.total)
        return sub

    force_node(0)
    monkeypatch.setattr(mutation, "grow", spy_grow)
    for k in (1, 3, 7):
        grown.clear()
        child = best_of_k_mutation(a, rng=rng, k=k, keep_current=False)
        assert len(grown) == k
        assert child.total == min(grown)


def test_best_of_k_keep_current(force_node):
    best = optimal(game("mastermind-3-4"), time_limit=None)  # 206: nothing grown beats it
    force_node(0)
    for seed in range(3):
        kept = best_of_k_mutation(best, rng=np.random.default_rng(seed), k=1, keep_current=True)
        assert kept is best
        taken = best_of_k_mutation(best, rng=np.random.default_rng(seed), k=1, keep_current=False)
        assert taken.total > best.total


@pytest.mark.parametrize("heuristic", HEURISTICS)
def test_greedy_builds_the_look_ahead_subtree_of_its_heuristic(force_node, heuristic):
    g = game("mastermind-4-4")
    a, _, rng = parents("mastermind-4-4", 0)
    force_node(0)
    child = greedy_mutation(a, rng=rng, heuristic=heuristic, tries=1, keep_current=False)
    expect = lookahead(g, heuristic)
    assert np.array_equal(child.guess, expect.guess) and child.total == expect.total
    # The heuristics build different trees here, so an ignored heuristic shows.
    assert len({lookahead(g, h).total for h in HEURISTICS}) == len(HEURISTICS)


def _root_totals(g, codes, heuristic, top):
    ranked, _ = ranked_guesses(g, codes, heuristic=heuristic)
    return [greedy_subtree(g, codes, heuristic=heuristic, root=int(r)).total for r in ranked[:top]]


def _node_where_roots_differ(tree, heuristic, top):
    """A node where the best of the ``top`` best-ranked root guesses is not the first,
    is the only best, and at least two beat the first."""
    for x in np.flatnonzero(tree.count >= 8):
        totals = _root_totals(tree.game, tree.code_set(x), heuristic, top)
        best = min(totals)
        if totals.count(best) == 1 and sum(t < totals[0] for t in totals) >= 2:
            return int(x), totals
    raise AssertionError("no node where the root guesses differ")


def test_greedy_tries_the_given_number_of_root_guesses(force_node):
    a, _, _ = parents("mastermind-4-4", 0)
    x, totals = _node_where_roots_differ(a, "knuth", 6)
    force_node(x)
    for seed in range(5):
        rng = np.random.default_rng(seed)
        child = greedy_mutation(a, rng=rng, heuristic="knuth", tries=6, top=6, keep_current=False)
        assert child.subtree_totals()[x] == min(totals)  # every one of the top 6 was tried
        child = greedy_mutation(a, rng=rng, heuristic="knuth", tries=1, keep_current=False)
        assert child.subtree_totals()[x] == totals[0]  # the best-ranked one alone


def test_greedy_draws_root_guesses_among_the_top_only(force_node):
    a, _, _ = parents("mastermind-4-4", 0)
    x, totals = _node_where_roots_differ(a, "knuth", 6)
    force_node(x)
    for seed in range(5):
        rng = np.random.default_rng(seed)
        child = greedy_mutation(a, rng=rng, heuristic="knuth", tries=5, top=1, keep_current=False)
        assert child.subtree_totals()[x] == totals[0]


def test_greedy_solves_code_sets_up_to_exact_below_exactly(force_node):
    g = game("mastermind-4-4")
    a, _, rng = parents("mastermind-4-4", 0)
    force_node(0)
    ranked, _ = ranked_guesses(g, g.all_codes(), heuristic="knuth")
    solver = shared_solver(g)
    parts = split(g, int(ranked[0]), g.all_codes())
    assert max(len(p) for _, p in parts) <= 300
    exact = g.num_codes + sum(solver.total(p) for _, p in parts)
    plain = lookahead(g, "knuth").total
    assert exact < plain
    child = greedy_mutation(
        a, rng=rng, heuristic="knuth", tries=1, exact_below=300, keep_current=False
    )
    assert child.guess[0] == ranked[0] and child.total == exact
    child = greedy_mutation(a, rng=rng, heuristic="knuth", tries=1, keep_current=False)
    assert child.total == plain


def test_greedy_keep_current(force_node):
    best = optimal(game("mastermind-3-4"), time_limit=None)  # 206; Kooi's 208
    force_node(0)
    rng = np.random.default_rng(0)
    assert greedy_mutation(best, rng=rng, tries=1, keep_current=True) is best
    worse = greedy_mutation(best, rng=rng, tries=1, keep_current=False)
    assert worse.total == lookahead(best.game, "kooi").total > best.total


@pytest.mark.parametrize("kind", ["greedy", "exhaustive"])
def test_max_codes_limits_the_nodes_rebuilt(kind):
    a, _, _ = parents("mastermind-3-4", 2)
    limit = 8
    changed = 0
    for seed in range(12):
        rng = np.random.default_rng(seed)
        params = {"keep_current": False} if kind == "greedy" else {}
        child = mutate(kind, a, rng=rng, max_codes=limit, **params)
        i = first_difference(a, child)
        if i is not None:
            changed += 1
            assert a.count[i] <= limit
    assert changed >= 4


def test_exhaustive_puts_an_optimal_subtree(force_node):
    a, _, rng = parents("mastermind-3-4", 9)
    solver = shared_solver(a.game)
    for x in np.flatnonzero((a.count >= 3) & (a.count <= 12))[:6]:
        force_node(int(x))
        child = exhaustive_mutation(a, rng=rng, max_codes=12)
        assert child.subtree_totals()[x] == solver.total(a.code_set(int(x)))


# --------------------------------------------------------------- guess pools
def _node_needing_another_guess(tree):
    """A node of ``tree`` whose optimal subtree (all guesses allowed) guesses a code that
    cannot be the secret: there the consistent pool makes a difference."""
    solver = shared_solver(tree.game)
    for x in np.flatnonzero((tree.count >= 3) & (tree.count <= 20)):
        if not solver.subtree(tree.code_set(x)).terminal.all():
            return int(x)
    raise AssertionError("no node where a guess outside the code set is better")


@pytest.mark.parametrize("kind", ["greedy", "exhaustive"])
def test_consistent_pool_keeps_rebuilt_subtrees_consistent(force_node, kind):
    knuth = lookahead(game("mastermind-3-4"), "knuth")
    x = _node_needing_another_guess(knuth)
    force_node(x)
    rng = np.random.default_rng(0)
    params = {"tries": 1, "keep_current": False} if kind == "greedy" else {"max_codes": 20}
    free = mutate(kind, knuth, rng=rng, pool="all", **params)
    assert not free.subtree(x).terminal.all()  # with every guess allowed, one is not a code
    kept = mutate(kind, knuth, rng=rng, pool="consistent", **params)
    assert kept.subtree(x).terminal.all()


@pytest.mark.parametrize("kind", MUTATIONS)
def test_consistent_pool_on_a_consistent_breaker(kind):
    rc = random_consistent(game("mastermind-4-4"), seed=1)
    for seed in range(4):
        child = mutate(kind, rc, rng=np.random.default_rng(seed), pool="consistent")
        assert child.terminal.all()
