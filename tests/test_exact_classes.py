"""The exact search among restricted classes of guesses (the possible codes; those and the
few best impossible ones), checked against a brute force of the class written from its
definition, and the operators that use it (exhaustive and greedy options, sweeps)."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from support.definitions import all_code_tuples, assert_offspring_ok
from support.reference_growth import brute_feedback

from evo.core.game import make_game
from evo.core.growth import random_breaker
from evo.ea.mutation import exhaustive_mutation, greedy_mutation, greedy_subtree
from evo.ea.nodes import outermost_nodes
from evo.search.build import Node, in_canonical_frame
from evo.search.exact import Solver

GAMES = [(2, 4, "mastermind"), (3, 3, "mastermind"), (3, 5, "bulls-cows")]


def brute_class_total(pegs: int, colors: int, variant: str, impossible: int | None) -> int:
    """The least total over the whole game of strategies whose guesses at a set ``S`` are
    the codes of ``S`` and (``impossible`` = k) the helpful other codes whose bound
    ``|S| + sum LB(part)`` is among the k smallest bounds of the other codes; None: every
    code. ``LB(n)``: the least total of n codes when each guess solves one code and
    splits the rest into at most P parts (P: the most non-win parts of a guess)."""
    codes = all_code_tuples(pegs, colors, variant)
    win = (pegs, 0)
    fb = {(g, s): brute_feedback(g, s) for g in codes for s in codes}
    parts_max = max(len({fb[g, s] for s in codes} - {win}) for g in codes)

    @functools.cache
    def lb(n: int) -> int:
        total, depth, width, left = 0, 1, 1, n
        while left:
            k = min(left, width)
            total, left, depth, width = total + depth * k, left - k, depth + 1, width * parts_max
        return total

    def parts(g, s: frozenset) -> list[frozenset]:
        out: dict = {}
        for c in s:
            if fb[g, c] != win:
                out.setdefault(fb[g, c], set()).add(c)
        return [frozenset(p) for p in out.values()]

    @functools.cache
    def cost(s: frozenset) -> int:
        if len(s) <= 2:
            return 2 * len(s) - 1
        split = {g: parts(g, s) for g in codes}  # each guess's parts of s, made once
        helpful = [g for g in codes if g in s or len(split[g]) > 1]
        inside = [g for g in helpful if g in s]
        outside = [g for g in helpful if g not in s]
        if impossible is not None:
            bound = {g: len(s) + sum(lb(len(p)) for p in split[g]) for g in outside}
            kept = sorted(set(bound.values()))[:impossible]
            outside = [g for g in outside if kept and bound[g] <= kept[-1]]
        return len(s) + min(sum(cost(p) for p in split[g]) for g in inside + outside)

    return cost(frozenset(codes))


@pytest.mark.parametrize("pegs, colors, variant", GAMES)
@pytest.mark.parametrize("impossible", [0, 1, 3])
@pytest.mark.slow
def test_the_mixed_class_is_searched_exactly(pegs, colors, variant, impossible):
    game = make_game(pegs, colors, variant)
    expect = brute_class_total(pegs, colors, variant, impossible)
    for policy in ("symmetry", "path-independent"):
        solver = Solver(game, pool="consistent", impossible=impossible, policy=policy)
        assert solver.total(game.all_codes(), Node(game)) == expect, policy


@pytest.mark.parametrize(
    "pegs, colors, variant",
    [pytest.param(*g, marks=pytest.mark.slow) if g == (3, 5, "bulls-cows") else g for g in GAMES],
)
def test_the_classes_are_nested(pegs, colors, variant):
    game = make_game(pegs, colors, variant)
    everything = brute_class_total(pegs, colors, variant, None)
    totals = [
        Solver(game, pool="consistent", impossible=k).total(game.all_codes()) for k in (0, 1, 3)
    ]
    assert totals == sorted(totals, reverse=True)
    assert Solver(game).total(game.all_codes()) == everything <= totals[-1]
    assert Solver(game, pool="consistent", impossible=1000).total(game.all_codes()) == everything


def test_the_mixed_search_chooses_alike_whatever_the_path():
    """The class of a set does not depend on the symmetries of the path to it: both
    policies choose the same guess on random nodes (so runs with any number of workers,
    whose memos differ, build the same subtrees)."""
    game = make_game(4, 6)
    tree = random_breaker(game, rng=np.random.default_rng(5))
    nodes = np.flatnonzero((tree.count >= 8) & (tree.count <= 120))[:12]
    sym = Solver(game, pool="consistent", impossible=2, policy="symmetry")
    free = Solver(game, pool="consistent", impossible=2, policy="path-independent")
    for x in nodes.tolist():
        codes, history = tree.code_set(x), tuple(tree.used_guesses(x))
        node = Node.after(game, history)
        assert sym.best_guess(codes, node) == free.best_guess(codes), x
        assert sym.total(codes, node) == free.total(codes)


# ------------------------------------------------------------------ operators
def _rng(seed: int = 0) -> np.random.Generator:
    return np.random.default_rng(seed)


def test_exhaustive_guesses_choose_the_class():
    game = make_game(4, 6).prepare()
    tree = random_breaker(game, rng=_rng(1))
    sweep = dict(min_codes=10, max_codes=60, sweep=True)
    free = exhaustive_mutation(tree, rng=_rng(), guesses="all", **sweep)
    kept = exhaustive_mutation(tree, rng=_rng(), guesses="consistent", **sweep)
    mixed = exhaustive_mutation(tree, rng=_rng(), guesses="mixed", impossible=2, **sweep)
    for child in (free, kept, mixed):
        assert_offspring_ok(child, slow=False)
    assert free.total <= mixed.total <= kept.total < tree.total
    assert free.total < kept.total  # the classes differ here
    for x in outermost_nodes(kept, min_codes=10, max_codes=60):
        assert kept.subtree(int(x)).terminal.all() or (
            kept.subtree_totals()[x] == tree.subtree_totals()[x]  # declined: worse there
        )


def test_exhaustive_impossible_widens_the_mixed_class():
    game = make_game(4, 6).prepare()
    tree = random_breaker(game, rng=_rng(3))
    totals = [
        exhaustive_mutation(
            tree, rng=_rng(), guesses="mixed", impossible=k, min_codes=20, max_codes=200, sweep=True
        ).total
        for k in (1, 8)
    ]
    assert totals[1] < totals[0]


@pytest.mark.parametrize("op", [exhaustive_mutation, greedy_mutation])
def test_min_codes_picks_only_big_enough_nodes(op, monkeypatch):
    from evo.ea import mutation

    picked = []

    def spy(tree, **kw):
        node = mutation_pick(tree, **kw)
        picked.append(None if node is None else int(tree.count[node]))
        return node

    mutation_pick = mutation.pick_node
    monkeypatch.setattr(mutation, "pick_node", spy)
    game = make_game(4, 6).prepare()
    tree = random_breaker(game, rng=_rng(2))
    params = {"max_codes": 120} if op is exhaustive_mutation else {"tries": 1}
    for seed in range(20):
        op(tree, rng=_rng(seed), min_codes=40, **params)
    assert len(picked) == 20 and min(picked) >= 40
    picked.clear()
    for seed in range(20):
        op(tree, rng=_rng(seed), **params)
    assert min(picked) < 40  # without it, small nodes are picked too


def test_a_sweep_rebuilds_every_outermost_node_of_the_band():
    game = make_game(4, 6).prepare()
    tree = random_breaker(game, rng=_rng(4))
    band = outermost_nodes(tree, min_codes=5, max_codes=40)
    assert len(band) > 10
    # none inside another, and every node of the band is inside one of them
    ends = band + tree.nsub[band]
    assert np.all(band[1:] >= ends[:-1])
    solver = Solver(game, policy="symmetry")
    swept = exhaustive_mutation(tree, rng=_rng(), min_codes=5, max_codes=40, sweep=True)
    expect = tree.total - sum(
        int(tree.subtree_totals()[x])
        - solver.total(tree.code_set(int(x)), Node.after(game, tuple(tree.used_guesses(int(x)))))
        for x in band
    )
    assert swept.total == expect
    one = exhaustive_mutation(tree, rng=_rng(), min_codes=5, max_codes=40)
    assert swept.total < one.total  # one node at random, without the sweep


def test_greedy_mixed_below_solves_the_middle_sizes_in_the_mixed_class():
    game = make_game(4, 6).prepare()
    codes = game.all_codes()
    plain = greedy_subtree(game, codes, exact_below=20, history=())
    mixed = greedy_subtree(game, codes, exact_below=20, mixed_below=300, impossible=2, history=())
    assert mixed.total < plain.total
    solver = Solver(game, pool="consistent", impossible=2, policy="symmetry")
    for f, child in mixed.children(0).items():
        s = mixed.code_set(child)
        if 20 < len(s) <= 300:
            node = Node.after(game, (int(mixed.guess[0]),))
            assert mixed.subtree_totals()[child] == solver.total(s, node), f


def test_greedy_impossible_widens_the_mixed_class():
    game = make_game(4, 6).prepare()
    codes = game.all_codes()
    totals = [
        greedy_subtree(game, codes, mixed_below=400, impossible=k, history=()).total for k in (1, 8)
    ]
    assert totals[1] < totals[0]


def test_a_greedy_sweep_rebuilds_every_outermost_node():
    game = make_game(4, 6).prepare()
    tree = random_breaker(game, rng=_rng(6))
    band = outermost_nodes(tree, min_codes=30, max_codes=200)
    swept = greedy_mutation(tree, rng=_rng(), tries=1, min_codes=30, max_codes=200, sweep=True)
    rebuilt = 0
    for x in band.tolist():
        history = tuple(tree.used_guesses(x))
        sub = greedy_subtree(game, tree.code_set(x), history=history)
        rebuilt += min(0, sub.total - int(tree.subtree_totals()[x]))
    assert rebuilt < 0 and swept.total == tree.total + rebuilt
    one = greedy_mutation(tree, rng=_rng(), tries=1, min_codes=30, max_codes=200)
    assert swept.total < one.total


# ----------------------------------------------------- the canonical frame
@pytest.mark.parametrize("pegs, colors, variant", [(4, 6, "mastermind"), (4, 10, "bulls-cows")])
def test_the_canonical_frame_keeps_feedbacks_and_maps_to_the_lowest_of_the_orbit(
    pegs, colors, variant
):
    from evo.search.symmetry import Stabilizer, canonical_frame

    game = make_game(pegs, colors, variant)
    rng = _rng(7)
    secrets = rng.choice(game.num_codes, 300)
    for g in rng.choice(game.num_codes, 20).tolist():
        phi = canonical_frame(game, g)
        (image,) = phi.apply(game, [g])
        assert image == Stabilizer.root(game).canonical(np.array([g]))[0]
        assert np.array_equal(phi.inverse().apply(game, phi.apply(game, secrets)), secrets)
        assert np.array_equal(
            game.feedback(g, secrets), game.feedback(int(image), phi.apply(game, secrets))
        )


def test_symmetric_first_guesses_share_the_exact_search():
    """Bulls and Cows: every first guess is alike. The part below 5103 is solved where the
    first guess is 0123, so after the part below 0123 it costs no search at all."""
    from evo.search.exact import shared_solver

    game = make_game(4, 10, "bulls-cows").prepare()
    a = game.parse_code("0123")
    b = game.parse_code("5103")
    solver = shared_solver(game, policy="symmetry")
    trees, nodes = [], []
    parts = []
    for root in (a, b):
        part = [
            s for s in game.all_codes() if game.format_feedback(game.feedback(root, s)) == "2B 0C"
        ]
        codes = np.array(part)
        sub = in_canonical_frame(game, codes, (root,), lambda c, h: solver.subtree(c, history=h))
        nodes.append(solver.nodes)
        trees.append(sub)
        parts.append(codes)
    for root, codes, sub in zip((a, b), parts, trees):
        assert np.array_equal(np.sort(sub.codes), codes)
        assert sub.total == Solver(game, policy="symmetry").total(codes, Node.after(game, (root,)))
    assert trees[0].total == trees[1].total
    assert not np.array_equal(trees[0].guess, trees[1].guess)  # relabelled for 5103
    assert nodes[1] == nodes[0]  # the second part came from the memo


@pytest.mark.parametrize("op", [exhaustive_mutation, greedy_mutation])
def test_max_depth_picks_only_nodes_near_the_root(op, monkeypatch):
    from evo.ea import mutation

    picked = []

    def spy(tree, **kw):
        node = real(tree, **kw)
        picked.append(None if node is None else int(tree.depth[node]))
        return node

    real = mutation.pick_node
    monkeypatch.setattr(mutation, "pick_node", spy)
    tree = random_breaker(make_game(4, 6).prepare(), rng=_rng(2))
    params = {"max_codes": 60} if op is exhaustive_mutation else {"tries": 1}
    for seed in range(20):
        op(tree, rng=_rng(seed), max_depth=2, **params)
    assert max(picked) <= 2
    picked.clear()
    for seed in range(20):
        op(tree, rng=_rng(seed), **params)
    assert max(picked) > 2


# ------------------------------------------------- codes at the worst case
def test_deepest_and_codes_at_the_worst_case(hand_tree):
    assert hand_tree.at_worst == 1 and hand_tree.deepest()[0] == hand_tree.worst == 3
    game = make_game(4, 6).prepare()
    tree = random_breaker(game, rng=_rng(5))
    depths = tree.terminal_depths
    assert tree.at_worst == int((depths == depths.max()).sum())
    for x in range(0, len(tree), 97):
        below = tree.depth[x : x + int(tree.nsub[x])][tree.terminal[x : x + int(tree.nsub[x])]]
        assert tree.deepest()[x] == below.max()


def test_shallower_takes_codes_off_the_worst_case():
    game = make_game(4, 6).prepare()
    tree = random_breaker(game, rng=_rng(8))
    kids = [exhaustive_mutation(tree, rng=_rng(s), max_codes=40, shallower=True) for s in range(12)]
    changed = [k for k in kids if k is not tree]
    assert changed
    for kid in changed:
        assert (kid.worst, kid.at_worst) < (tree.worst, tree.at_worst)
        assert_offspring_ok(kid, slow=False)
    plain = [exhaustive_mutation(tree, rng=_rng(s), max_codes=40) for s in range(12)]
    assert any((k.worst, k.at_worst) == (tree.worst, tree.at_worst) for k in plain)
