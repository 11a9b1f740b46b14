"""The exact optimum against an independent brute force, bounds and refusal."""

from __future__ import annotations

import functools
import importlib
import itertools
import time

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from evo.baselines import KNOWN_OPTIMA, OptimalRefused, build, optimal
from evo.core.game import make_game
from evo.search.build import Node
from evo.search.exact import Solver, perfect_split_bounds

optmod = importlib.import_module("evo.baselines.optimal")


def _feedback(a: tuple, b: tuple) -> tuple[int, int]:
    black = sum(x == y for x, y in zip(a, b))
    common = sum(min(a.count(c), b.count(c)) for c in set(a))
    return black, common - black


def brute_costs(pegs: int, colors: int, variant: str = "mastermind"):
    """``cost(S)``: the smallest total over every guess, by plain recursion on tuples of
    codes (as digit tuples, in the game's order), memoised; nothing shared with evo."""
    if variant == "mastermind":
        codes = list(itertools.product(range(colors), repeat=pegs))
    else:
        codes = list(itertools.permutations(range(colors), pegs))
    win = (pegs, 0)

    @functools.cache
    def cost(s: tuple) -> int:
        if len(s) == 1:
            return 1
        best = None
        for g in codes:
            parts: dict = {}
            for c in s:
                parts.setdefault(_feedback(g, c), []).append(c)
            if len(parts) == 1 and win not in parts:
                continue  # the guess tells nothing
            total = len(s) + sum(cost(tuple(p)) for f, p in parts.items() if f != win)
            best = total if best is None else min(best, total)
        return best

    return codes, cost


@pytest.mark.parametrize(
    "pegs, colors, variant",
    [
        (2, 2, "mastermind"),
        (2, 3, "mastermind"),
        (3, 2, "mastermind"),
        (2, 4, "mastermind"),
        (4, 2, "mastermind"),
        (3, 3, "mastermind"),
        (2, 3, "bulls-cows"),
        (3, 4, "bulls-cows"),
    ],
)
def test_optimum_equals_brute_force(pegs, colors, variant):
    game = make_game(pegs, colors, variant)
    codes, cost = brute_costs(pegs, colors, variant)
    tree = optimal(game, time_limit=None)
    tree.validate()
    assert tree.total == cost(tuple(codes))


def test_three_three_is_73():
    assert optimal(make_game(3, 3), time_limit=None).total == 73


@settings(max_examples=30, deadline=None)
@given(st.lists(st.integers(0, 10**6), min_size=1, max_size=2), st.integers(0, 10**6))
def test_subproblems_equal_brute_force(picks, secret):
    """Code sets reached after a history of guesses, solved with the symmetries of that
    history, cost what the brute force says."""
    game = make_game(3, 3)
    codes, cost = brute_costs(3, 3)
    secret %= game.num_codes
    s = game.all_codes().astype(np.int64)
    node = Node(game)
    for p in picks:
        g = p % game.num_codes
        if g in node.history:
            continue
        s = s[game.feedback_row(g, s) == game.feedback(g, secret)]
        node = node.then(g)
    solver = Solver(game, policy="symmetry")
    got = solver.solve(s, node, np.iinfo(np.int64).max)
    assert got == cost(tuple(codes[int(c)] for c in s))
    assert got >= solver.lb[len(s)]


def test_perfect_split_bounds():
    lb = perfect_split_bounds(10, 3)
    # 1 code at depth 1, 3 at depth 2, 6 at depth 3 for the remaining.
    assert lb[1] == 1 and lb[2] == 3 and lb[4] == 1 + 2 * 3 and lb[10] == 1 + 6 + 3 * 6
    assert np.all(np.diff(lb) > 0)


def test_optimum_beats_every_heuristic():
    game = make_game(3, 4)
    best = optimal(game, time_limit=60).total
    for name in ("knuth", "irving", "kooi", "entropy", "lc"):
        assert best <= build(game, name).total


def test_gives_up_when_the_time_limit_is_reached(monkeypatch):
    monkeypatch.setattr(optmod, "MEASURED_SECONDS", {})  # no estimate: the search starts
    with pytest.raises(OptimalRefused):  # the first may load (or compile) the kernels
        optimal(make_game(4, 7), time_limit=0.3)
    game = make_game(4, 7)
    t0 = time.monotonic()
    with pytest.raises(OptimalRefused) as e:
        optimal(game, time_limit=0.3)
    assert time.monotonic() - t0 < 30  # a hang; that it gave up at 0.3 s is said below
    assert "gave up" in str(e.value) and "time_limit=" in str(e.value)
    assert "--time-limit" in str(e.value.citing("--time-limit"))


def _no_search(monkeypatch) -> None:
    """A refusal at once is one before any search: the solver is never made."""

    def searched(*args, **kwargs):
        raise AssertionError("the search started")

    monkeypatch.setattr(optmod, "Solver", searched)


def test_refuses_four_pegs_seven_colors_at_once_under_two_seconds(monkeypatch):
    game = make_game(4, 7)
    _no_search(monkeypatch)
    t0 = time.monotonic()
    with pytest.raises(OptimalRefused) as e:
        optimal(game, time_limit=2)
    assert time.monotonic() - t0 < 10  # milliseconds; seconds on a loaded machine
    assert e.value.estimate_seconds > 2


def test_refuses_upfront_with_an_estimate(monkeypatch):
    monkeypatch.setattr(
        optmod, "MEASURED_SECONDS", {("mastermind", 3, 4): 0.1, ("mastermind", 4, 4): 1.0}
    )
    game = make_game(5, 5)
    _no_search(monkeypatch)
    t0 = time.monotonic()
    with pytest.raises(OptimalRefused) as e:
        optimal(game, time_limit=5)
    assert time.monotonic() - t0 < 10  # milliseconds; seconds on a loaded machine
    assert e.value.estimate_seconds > 5
    assert "refused" in str(e.value) and "about" in str(e.value)


def test_a_refused_optimum_says_the_recorded_one(monkeypatch):
    """Refused for its time, (5,7)'s optimum says the total recorded (proved by evo's
    exact search before), so that nobody waits weeks for it; (5,8)'s, not recorded,
    says none."""
    _no_search(monkeypatch)
    with pytest.raises(OptimalRefused) as e:
        optimal(make_game(5, 7, table=False), time_limit=60)
    assert "(16,807 codes; recorded: 85,645)" in str(e.value)
    with pytest.raises(OptimalRefused) as e:
        optimal(make_game(5, 8, table=False), time_limit=60)
    assert "recorded" not in str(e.value) and "(32,768 codes)" in str(e.value)


def test_known_optima():
    assert KNOWN_OPTIMA[(4, 6, "mastermind")] == 5625
    assert KNOWN_OPTIMA[(3, 3, "mastermind")] == 73
    assert KNOWN_OPTIMA[(4, 10, "bulls-cows")] == 26274


@pytest.mark.parametrize("pegs, colors", [(5, 2), (6, 2), (4, 3), (5, 3), (4, 4), (3, 5), (3, 6)])
def test_published_small_optima(pegs, colors):
    """Goddard's table of optimal averages (and our own figures beyond it)."""
    game = make_game(pegs, colors)
    assert optimal(game, time_limit=None).total == KNOWN_OPTIMA[(pegs, colors, "mastermind")]


def test_classic_game_optimum_is_5625():
    """Koyama and Lai's optimum of (4,6), found by the search (about a second)."""
    tree = optimal(make_game(4, 6), time_limit=None)
    tree.validate()
    assert tree.total == 5625


@pytest.mark.parametrize("variant", ["mastermind", "bulls-cows"])
def test_search_without_a_table_is_the_same(variant):
    """Games too big for a table compute their feedback blocks: the same optimum and the
    same guesses as with the table."""
    with_table = make_game(3, 4, variant, table=True)
    without = make_game(3, 4, variant, table=False)
    assert with_table.table is not None and without.table is None
    a, b = optimal(with_table, time_limit=None), optimal(without, time_limit=None)
    assert a.total == b.total
    assert np.array_equal(a.guess, b.guess)
