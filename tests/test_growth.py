"""Random path completion: structure, fitness by independent play, and the same
distribution as the literal code-by-code procedure of DESIGN §3."""

import random

import numpy as np
import pytest
import support.reference_growth as reference
from support.definitions import all_code_tuples, play_depths
from support.reference_growth import depths, grow_reference

from evo.core import engine
from evo.core.game import make_game
from evo.core.growth import Template, grow, random_breaker, replay

GAMES = [
    (2, 3, "mastermind"),
    (3, 3, "mastermind"),
    (4, 4, "mastermind"),
    (4, 6, "mastermind"),
    (3, 6, "bulls-cows"),
    (4, 7, "bulls-cows"),
]


def assert_shrunk_and_triangled(tree):
    """No unary non-terminal node, no non-terminal node with two leaf children."""
    leaf = tree.is_leaf()
    for i in range(len(tree)):
        kids = list(tree.children(i).values())
        if not tree.terminal[i]:
            assert len(kids) != 1, f"unary non-terminal node {i}"
            assert not (len(kids) == 2 and all(leaf[k] for k in kids)), f"triangle at node {i}"
        else:
            assert tree.guess[i] in tree.code_set(i)


@pytest.mark.parametrize("pegs,colors,variant", GAMES)
@pytest.mark.parametrize("pool", ["all", "consistent"])
def test_grown_trees_are_valid_shrunk_and_fitness_matches_play(pegs, colors, variant, pool):
    game = make_game(pegs, colors, variant)
    codes = all_code_tuples(pegs, colors, variant)
    rng = np.random.default_rng(pegs * 100 + colors)
    for _ in range(3):
        tree = random_breaker(game, rng=rng, pool=pool)
        tree.validate()
        assert_shrunk_and_triangled(tree)
        played = play_depths(tree, codes)
        assert tree.total == sum(played)
        assert tree.worst == max(played)
        assert tree.histogram == {d: played.count(d) for d in set(played)}
        if pool == "consistent":
            assert tree.terminal.all()  # every consistent guess can win


def test_same_seed_same_tree():
    game = make_game(4, 6)
    a = random_breaker(game, rng=np.random.default_rng(42))
    b = random_breaker(game, rng=np.random.default_rng(42))
    assert np.array_equal(a.guess, b.guess) and np.array_equal(a.label, b.label)


@pytest.mark.parametrize(
    "pegs,colors,variant,pool",
    [
        pytest.param(3, 3, "mastermind", "all", marks=pytest.mark.slow),
        (3, 3, "mastermind", "consistent"),
        (2, 4, "mastermind", "all"),
        (3, 4, "bulls-cows", "all"),
    ],
)
def test_distribution_matches_the_code_by_code_procedure(pegs, colors, variant, pool):
    """Same mean and spread of the total, within statistical tolerance (fixed seeds)."""
    game = make_game(pegs, colors, variant)
    codes = all_code_tuples(pegs, colors, variant)
    samples = 1000
    py_rng = random.Random(1)
    ref = np.array(
        [
            sum(depths(grow_reference(codes, py_rng, pool), codes, pegs).values())
            for _ in range(samples)
        ],
        dtype=float,
    )
    rng = np.random.default_rng(1)
    fast = np.array(
        [random_breaker(game, rng=rng, pool=pool).total for _ in range(samples)], dtype=float
    )
    se = np.sqrt(ref.var() / samples + fast.var() / samples)
    assert abs(ref.mean() - fast.mean()) < 4 * se, (ref.mean(), fast.mean(), se)
    assert 0.85 < fast.std() / ref.std() < 1.15, (ref.std(), fast.std())
    # Same support: the extremes a few thousand draws see agree closely.
    assert abs(ref.min() - fast.min()) <= 2


def test_the_check_above_can_fail():
    """The tolerance rejects a procedure that differs only by skipping triangle optimization."""
    game = make_game(3, 3)
    rng = np.random.default_rng(5)
    fast = np.array([random_breaker(game, rng=rng).total for _ in range(1000)], dtype=float)
    # Without triangles every two-code node costs one more guess: totals shift up.
    codes = all_code_tuples(3, 3)
    py_rng = random.Random(5)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(reference, "triangle", lambda *a, **k: None)
        other = np.array(
            [sum(depths(grow_reference(codes, py_rng), codes, 3).values()) for _ in range(400)],
            dtype=float,
        )
    se = np.sqrt(other.var() / 400 + fast.var() / 1000)
    assert abs(other.mean() - fast.mean()) > 4 * se


def test_grow_on_a_code_set_with_a_root_guess():
    game = make_game(4, 6)
    rng = np.random.default_rng(0)
    codes = np.flatnonzero(game.feedback_row(game.parse_code("1122")) == game.parse_feedback("1,0"))
    sub = grow(game, codes, rng=rng, root_guess=game.parse_code("1344"))
    assert sub.guess[0] == game.parse_code("1344")
    assert sorted(sub.codes) == sorted(codes)
    whole = random_breaker(game, rng=rng)
    node = whole.children(0)[int(game.feedback(whole.guess[0], codes[0]))]
    # Grafting a subtree grown for another node's code set is refused.
    if whole.count[node] != len(codes):
        with pytest.raises(ValueError):
            whole.replace(node, sub)


def test_replay_on_the_same_code_set_reproduces_the_subtree():
    game = make_game(4, 6)
    rng = np.random.default_rng(9)
    tree = random_breaker(game, rng=rng)
    for node in rng.integers(0, len(tree), 25):
        again = replay(game, tree.code_set(node), Template.of(tree, node), rng=rng)
        sub = tree.subtree(node)
        assert np.array_equal(again.guess, sub.guess)
        assert again.total == sub.total


@pytest.mark.parametrize("pool", ["all", "consistent"])
def test_replay_onto_another_code_set_repairs_the_subtree(pool):
    game = make_game(4, 6)
    rng = np.random.default_rng(11)
    a, b = random_breaker(game, rng=rng, pool=pool), random_breaker(game, rng=rng, pool=pool)
    for _ in range(30):
        na, nb = int(rng.integers(0, len(a))), int(rng.integers(0, len(b)))
        sub = replay(game, a.code_set(na), Template.of(b, nb), rng=rng, pool=pool)
        child = a.replace(na, sub)
        child.validate()
        assert_shrunk_and_triangled(child)
        if pool == "consistent":
            assert child.terminal.all()


def _same_tree(a, b) -> bool:
    fields = ("guess", "label", "parent", "depth", "terminal", "start", "count", "codes")
    return all(np.array_equal(getattr(a, f), getattr(b, f)) for f in fields)


def _grow_both_engines(build):
    """``build(rng)`` with the compiled engine, then with the NumPy engine, from the same
    seed: the two results and the generators' next draws."""
    from evo.core import growth

    out = []
    for compiled in (True, False):
        with pytest.MonkeyPatch.context() as mp:
            mp.setattr(engine, "DEFAULT", "compiled" if compiled else "numpy")
            if compiled:  # the NumPy engine must not be the one answering here
                mp.setattr(growth, "_choose_guesses", _numpy_engine_called)
            rng = np.random.default_rng(2024)
            out.append((build(rng), rng.random()))
    return out


def _numpy_engine_called(*args, **kwargs):
    raise AssertionError("the NumPy engine grew a tree that the compiled engine should grow")


@pytest.mark.parametrize("pegs,colors,variant", GAMES)
@pytest.mark.parametrize("pool", ["all", "consistent"])
def test_compiled_and_numpy_engines_grow_the_same_trees(pegs, colors, variant, pool):
    """Same seed, same trees and same generator state with either engine: random breakers,
    replays onto another code set (templates skipped, cut and repaired), root guesses."""
    game = make_game(pegs, colors, variant)
    donor = random_breaker(game, rng=np.random.default_rng(3), pool=pool)

    def build(rng):
        trees = [random_breaker(game, rng=rng, pool=pool) for _ in range(4)]
        a = trees[0]
        for node in range(0, len(a), max(1, len(a) // 6)):
            codes = a.code_set(node)
            trees.append(replay(game, codes, Template.of(donor, 0), rng=rng, pool=pool))
            guess = int(rng.integers(0, game.num_codes))
            trees.append(grow(game, codes, rng=rng, pool=pool, root_guess=guess))
        return trees

    (compiled, after_c), (numpy_, after_n) = _grow_both_engines(build)
    assert after_c == after_n
    assert len(compiled) == len(numpy_)
    for x, y in zip(compiled, numpy_):
        x.validate()
        assert _same_tree(x, y)


def test_engines_agree_where_few_guesses_help():
    """A one-code set of (4,6): a random guess rarely helps, so growth reaches the exact
    draw among the helpful codes; both engines draw the same."""
    game = make_game(4, 6)

    def build(rng):
        return [grow(game, np.array([c], dtype=np.int32), rng=rng) for c in (0, 7, 1295)]

    (compiled, after_c), (numpy_, after_n) = _grow_both_engines(build)
    assert after_c == after_n
    for x, y, c in zip(compiled, numpy_, (0, 7, 1295)):
        assert _same_tree(x, y)
        assert x.guess[0] == c and x.total == 1
