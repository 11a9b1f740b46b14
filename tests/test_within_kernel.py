"""The compiled search within a depth limit (:mod:`evo.search.within_kernel`) against the
Python recursion it replaces, which it must match choice for choice."""

from __future__ import annotations

import time

import numpy as np
import pytest
from support.searches import PythonSolver, reached

from evo.core.game import make_game
from evo.search import memo_kernel as mk
from evo.search import within_kernel
from evo.search.build import Node
from evo.search.exact import UNBOUNDED, SearchTimeout, Solver, depth_room

POOLS = {"all": ("all", 0), "consistent": ("consistent", 0), "mixed": ("consistent", 2)}
GAMES = [make_game(3, 4), make_game(4, 4), make_game(3, 6, variant="bulls-cows")]


def _cases() -> list:
    """Every game, policy and pool; path-independent on the two bigger games, over all
    codes or a mixed class, takes 2.5 to 3 s here: slow (not in `make test-fast`)."""
    return [
        pytest.param(
            game, policy, *POOLS[pool], id=f"{pool}-{policy}-{game}",
            marks=[pytest.mark.slow]
            if policy == "path-independent" and pool != "consistent" and game != GAMES[0]
            else [],
        )
        for pool in POOLS
        for policy in ("symmetry", "path-independent")
        for game in GAMES
    ]  # fmt: skip


@pytest.mark.parametrize(("game", "policy", "pool", "impossible"), _cases())
def test_the_same_costs_and_subtrees_as_the_python_recursion(game, policy, pool, impossible):
    rng = np.random.default_rng(11)
    options = dict(policy=policy, pool=pool, impossible=impossible)
    fast, slow = Solver(game, **options), PythonSolver(game, **options)
    checked = none = 0
    cases = [((), game.all_codes().astype(np.int64))]
    cases += [reached(game, rng) for _ in range(12)]
    for history, codes in cases:
        if len(codes) < 3:
            continue
        node = Node.after(game, history)
        for depth in (2, 3, 4, 5, 6):
            want = slow.solve(codes, node, UNBOUNDED, depth=depth)
            assert fast.solve(codes, node, UNBOUNDED, depth=depth) == want, (history, depth)
            if want >= UNBOUNDED:
                none += 1
                continue
            a = fast.subtree(codes, history=history, depth=depth)
            b = slow.subtree(codes, history=history, depth=depth)
            assert a.total == want and a.worst - len(history) <= depth
            assert a.guess.tolist() == b.guess.tolist(), (history, depth)
            checked += 1
    assert checked >= 20 and none >= 1
    assert not fast.exact and not fast.lower  # none of it went through the Python recursion
    assert slow.exact


def test_a_bound_gives_the_cost_below_it_else_a_lower_bound_at_least_the_bound():
    game = make_game(4, 5)
    codes = game.all_codes().astype(np.int64)
    want = Solver(game, policy="symmetry").total(codes, depth=5)
    for bound in (want - 10, want, want + 1):
        got = Solver(game, policy="symmetry").solve(codes, Node(game), bound, depth=5)
        assert got == want if bound > want else want > got >= bound or got == want >= bound


def test_the_room_of_each_depth_is_what_a_perfect_split_solves():
    room = depth_room(1000, 3)
    assert room[:6].tolist() == [0, 1, 4, 13, 40, 121]
    assert room[7] == 1001 and room[255] == 1001  # capped past the codes there are


def _computed(codes: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """No table: the feedbacks computed as they are read."""
    return np.empty((0, 0), dtype=np.uint8), codes


def test_within_two_guesses_the_lowest_guess_that_leaves_single_codes():
    game = make_game(3, 4)
    table = np.asarray(game.table)
    rng = np.random.default_rng(4)
    for _ in range(60):
        codes = np.sort(rng.choice(game.num_codes, int(rng.integers(3, 7)), False)).astype(np.int64)

        def singles(g: int, codes: np.ndarray = codes) -> bool:
            rest = [table[g, c] for c in codes if c != g]
            return len(set(rest)) == len(rest)

        inside = [int(g) for g in codes if singles(int(g))]
        outside = [g for g in range(game.num_codes) if singles(g)]
        solver = Solver(game)
        cost, guess = within_kernel.two_guesses(codes, solver.game_args, *_computed(codes))
        if inside:
            assert (cost, guess) == (2 * len(codes) - 1, inside[0])
        elif outside:
            assert (cost, guess) == (2 * len(codes), outside[0])
        else:
            assert (cost, guess) == (UNBOUNDED, -1)


@pytest.mark.slow
def test_a_deadline_stops_it(monkeypatch):
    """One thread, so the compiled search starts at once (a spread one first splits in
    Python, which a loaded machine can keep past a short deadline)."""
    from evo.core import engine

    monkeypatch.setattr(engine, "THREADS", 1)
    game = make_game(5, 6)
    game.prepare()
    solver = Solver(game, policy="symmetry")
    solver.deadline = start = time.monotonic() + 2.0
    with pytest.raises(SearchTimeout):
        solver.total(game.all_codes(), depth=6)
    assert time.monotonic() - start < 30  # a loaded machine may delay the stop by seconds
    assert solver.memo[4][mk.NODES] > 0  # the compiled recursion was the one stopped


def test_two_guesses_read_from_a_table_as_computed():
    """A node three guesses from its limit reads its parts' feedbacks from a table of every
    code against its own codes: the same answers as computing them."""
    game = make_game(4, 5)
    solver = Solver(game)
    rng = np.random.default_rng(8)
    codes = np.sort(rng.choice(game.num_codes, 40, False)).astype(np.int64)
    table = within_kernel._feedbacks(solver.game_args[0], solver.game_args[2], codes)
    found = 0
    for _ in range(200):
        part = np.sort(rng.choice(codes, int(rng.integers(3, 9)), False))
        cols = np.searchsorted(codes, part)
        got = within_kernel.two_guesses(part, solver.game_args, table, cols)
        assert got == within_kernel.two_guesses(part, solver.game_args, *_computed(part))
        found += got[1] >= 0
    assert 20 < found < 200  # some parts split into single codes, some not


def test_a_limit_beyond_any_tree_is_no_limit():
    """A depth past the room table's end (a --max-guesses of thousands) is searched as its
    last entry, never read beyond the table (the kernel does not check its indices)."""
    game = make_game(3, 4)
    codes = game.all_codes()
    free = Solver(game, policy="symmetry").total(codes)
    solver = Solver(game, policy="symmetry")
    depths = []
    kernel = solver._search_within

    def watched(codes, bound, depth, room, *rest):
        depths.append(depth)
        return kernel(codes, bound, depth, room, *rest)

    solver._search_within = watched
    assert solver.total(codes, depth=10_000) == free
    assert depths and max(depths) == len(depth_room(10, 2)) - 1
