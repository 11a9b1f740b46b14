"""The search primitives shared by baselines and operators: the exact branch and bound
against brute force under both candidate policies, its memo, its guess pools, and the
ranked guesses of one-step look-ahead."""

from __future__ import annotations

import functools
import itertools

import numpy as np
import pytest

from evo.baselines import lookahead
from evo.core.game import make_game
from evo.core.kinds import HEURISTICS
from evo.ea.mutation import greedy_subtree
from evo.games.pegs import PegGame
from evo.search.build import Node
from evo.search.exact import Solver, code_kinds, max_parts, perfect_split_bounds, shared_solver
from evo.search.lookahead import ranked_guesses
from evo.search.partition import candidates, feedback_block, perfect_consistent, split

GAMES = {
    "mastermind-2-3": (2, 3, "mastermind"),
    "mastermind-3-3": (3, 3, "mastermind"),
    "mastermind-3-4": (3, 4, "mastermind"),
    "bulls-cows-3-5": (3, 5, "bulls-cows"),
    "mastermind-4-6": (4, 6, "mastermind"),
    "bulls-cows-4-7": (4, 7, "bulls-cows"),
}


@functools.cache
def game(name):
    return make_game(*GAMES[name]).prepare()


def brute_force_total(g, codes: tuple[int, ...], memo: dict, pool: str = "all") -> int:
    """The least total of a subtree for ``codes``: every helpful guess of the pool, no
    pruning, no symmetry."""
    if len(codes) <= 2:
        return 2 * len(codes) - 1
    if codes in memo:
        return memo[codes]
    best = None
    s = np.array(codes)
    guesses = codes if pool == "consistent" else range(g.num_codes)
    for guess in guesses:
        fb = g.feedback(guess, s)
        if not (fb == g.win).any() and (fb == fb[0]).all():
            continue  # does not help
        total = len(codes) + sum(
            brute_force_total(g, tuple(s[fb == f].tolist()), memo, pool)
            for f in np.unique(fb)
            if f != g.win
        )
        best = total if best is None else min(best, total)
    memo[codes] = best
    return best


@pytest.mark.parametrize("name", ["mastermind-2-3", "mastermind-3-3", "bulls-cows-3-5"])
def test_exact_solver_matches_brute_force(name):
    """Any code set, whatever its history: the path-independent policy. (The symmetry
    policy is for code sets met below a history: see test_optimal.py.)"""
    g = game(name)
    rng = np.random.default_rng(0)
    solver = Solver(g, policy="path-independent")
    memo: dict = {}
    for size in [3, 4, 5, 6, 7, 8]:
        for _ in range(6):
            codes = np.sort(rng.choice(g.num_codes, size=min(size, g.num_codes), replace=False))
            expect = brute_force_total(g, tuple(codes.tolist()), memo)
            assert solver.total(codes) == expect
            sub = solver.subtree(codes)
            sub.validate()
            assert sub.total == expect
            assert sorted(sub.codes.tolist()) == codes.tolist()


@pytest.mark.parametrize("name", ["mastermind-3-3", "mastermind-3-4"])
def test_consistent_pool_solver_matches_brute_force(name):
    g = game(name)
    rng = np.random.default_rng(2)
    solver = shared_solver(g, pool="consistent")
    memo: dict = {}
    for size in [3, 5, 7, 9]:
        for _ in range(5):
            codes = np.sort(rng.choice(g.num_codes, size=size, replace=False))
            expect = brute_force_total(g, tuple(codes.tolist()), memo, pool="consistent")
            assert solver.total(codes) == expect
            assert solver.subtree(codes).terminal.all()


def test_consistent_pool_guesses_only_codes_of_the_set():
    """Somewhere in Knuth's (3,4) tree a guess outside the code set is strictly better:
    only the free pool may play it."""
    g = game("mastermind-3-4")
    knuth = lookahead(g, "knuth")
    free, kept = shared_solver(g, pool="all"), shared_solver(g, pool="consistent")
    found = 0
    for x in np.flatnonzero((knuth.count >= 3) & (knuth.count <= 20)):
        codes = knuth.code_set(x)
        a, c = free.subtree(codes), kept.subtree(codes)
        assert c.terminal.all()
        assert c.total >= a.total
        if not a.terminal.all() and c.total > a.total:
            found += 1
            assert free.best_guess(codes) not in codes
            assert kept.best_guess(codes) in codes
    assert found >= 1


def test_exact_solver_finds_the_3_3_optimum():
    g = game("mastermind-3-3")
    tree = shared_solver(g).subtree(g.all_codes())
    tree.validate()
    assert tree.total == 73  # average 2.704, the optimum of (3,3)
    assert Solver(g, policy="symmetry").total(g.all_codes()) == 73


def test_exact_choice_does_not_depend_on_the_memo():
    """Workers solve code sets in different orders: the subtree must be the same."""
    g = game("mastermind-3-4")
    rng = np.random.default_rng(3)
    sets = [np.sort(rng.choice(g.num_codes, size=9, replace=False)) for _ in range(6)]
    warm = Solver(g, policy="path-independent")
    for s in sets[::-1]:
        warm.subtree(s)
    for s in sets:
        cold = Solver(g, policy="path-independent").subtree(s)
        again = warm.subtree(s)
        assert np.array_equal(cold.guess, again.guess)


def test_memo_cap_empties_the_memo_without_changing_answers():
    g = game("mastermind-3-4")
    capped = Solver(g, policy="path-independent", max_memo=5)
    free = Solver(g, policy="path-independent")
    rng = np.random.default_rng(4)
    for _ in range(8):
        s = np.sort(rng.choice(g.num_codes, size=12, replace=False))
        assert capped.total(s) == free.total(s)
    assert free.memo_entries > capped.memo_entries  # the capped memo was emptied on the way


def test_shared_solver_is_one_per_game_and_pool():
    g = game("mastermind-3-3")
    assert shared_solver(g) is shared_solver(g, pool="all")
    assert shared_solver(g, pool="consistent") is not shared_solver(g)
    assert shared_solver(g).policy == "path-independent"
    with pytest.raises(ValueError, match="policy"):
        Solver(g, policy="greedy")


def test_max_parts_of_the_classic_game():
    assert max_parts(game("mastermind-4-6")) == 13  # DESIGN §5: P = 13 for (4,6)


def test_greedy_subtree_reproduces_the_classic_strategies():
    g = game("mastermind-4-6")
    # Kooi (most parts) 5668 and Knuth (largest part) 5801, as published.
    assert greedy_subtree(g, g.all_codes(), heuristic="kooi").total == 5668
    assert greedy_subtree(g, g.all_codes(), heuristic="knuth").total == 5801


# ----------------------------------------------------------------- look-ahead
@pytest.mark.parametrize("heuristic", HEURISTICS)
def test_ranked_guesses_of_the_consistent_pool_are_codes_of_the_set(heuristic):
    g = game("mastermind-3-4")
    knuth = lookahead(g, "knuth")
    outside = 0
    for x in np.flatnonzero(knuth.count >= 3):
        codes = knuth.code_set(x)
        kept, _ = ranked_guesses(g, codes, heuristic=heuristic, pool="consistent")
        assert len(kept) and np.isin(kept, codes).all()
        free, _ = ranked_guesses(g, codes, heuristic=heuristic, pool="all")
        outside += not np.isin(free[0], codes)
        assert set(kept.tolist()) <= set(free.tolist())
    assert outside >= 1  # somewhere the best guess of the free pool is not a code


def test_ranked_guesses_are_helpful_and_in_order():
    g = game("mastermind-3-4")
    codes = np.flatnonzero(g.feedback_row(g.parse_code("123")) == g.parse_feedback("1,1"))
    ranked, scores = ranked_guesses(g, codes, heuristic="irving")
    assert np.all(np.diff(scores) >= 0)
    for guess in ranked:
        assert g.helps(int(guess), codes)
    unhelpful = [c for c in range(g.num_codes) if not g.helps(c, codes)]
    assert unhelpful and not np.isin(unhelpful, ranked).any()
    # With a history, one guess per symmetry orbit: fewer candidates, the same best.
    node = Node(g).then(g.parse_code("123"))
    reduced, _ = ranked_guesses(g, codes, heuristic="irving", node=node)
    assert len(reduced) < len(ranked) and reduced[0] == ranked[0]


def test_partition_helpers():
    g = game("mastermind-3-3")
    codes = g.all_codes().astype(np.int64)
    parts = split(g, 0, codes)
    assert sum(len(p) for _, p in parts) == g.num_codes - 1  # all but the win
    assert [f for f, _ in parts] == sorted(f for f, _ in parts)
    for f, p in parts:
        assert (g.feedback_row(0, p) == f).all()
    assert np.array_equal(candidates(g, codes[:5], pool="consistent"), codes[:5])
    assert len(candidates(g, codes[:5], pool="all")) == g.num_codes
    with pytest.raises(ValueError, match="pool"):
        candidates(g, codes, pool="some")
    two = codes[[0, 13]]
    assert perfect_consistent(g, two) == 0
    assert perfect_consistent(g, codes) is None


def test_exact_solver_default_policy_is_right_for_any_code_set():
    """Without a policy, the solver must not assume a history: its totals on random code
    sets (not closed under the game's symmetries) equal brute force."""
    g = game("mastermind-3-3")
    rng = np.random.default_rng(3)
    solver = Solver(g)
    memo: dict = {}
    for _ in range(12):
        codes = np.sort(rng.choice(g.num_codes, size=7, replace=False))
        assert solver.total(codes) == brute_force_total(g, tuple(codes.tolist()), memo)


def _parts(g, guess: int, codes: np.ndarray) -> list[tuple[int, ...]]:
    fb = g.feedback(guess, codes)
    return [tuple(codes[fb == f].tolist()) for f in np.unique(fb) if f != g.win]


def _first_optimal(g, solver, codes: np.ndarray, memo: dict) -> tuple[int, int]:
    """``(cost, guess)``: brute force's total of ``codes`` and its first optimal guess in
    the order the search documents (bound, consistent first, code)."""
    size = len(codes)
    best = brute_force_total(g, tuple(codes.tolist()), memo)
    order = []
    for guess in range(g.num_codes):
        if not g.helps(guess, codes):
            continue
        parts = _parts(g, guess, codes)
        bound = size + sum(int(solver.lb[len(p)]) for p in parts)
        cost = size + sum(brute_force_total(g, p, memo) for p in parts)
        order.append((bound, guess not in codes, guess, cost))
    return best, min(o for o in order if o[3] == best)[2]


@pytest.mark.parametrize("name", ["mastermind-3-3", "mastermind-3-4", "bulls-cows-3-5"])
def test_exact_choice_is_the_first_optimal_guess_in_order(name):
    """The guess kept is the first optimal one by (bound, consistent first, code), the
    order the search documents, whatever shortcut settled it (perfect splits, the 2n
    bound, guesses with the same partition, colors absent from the set)."""
    g = game(name)
    rng = np.random.default_rng(7)
    solver = Solver(g)
    memo: dict = {}
    for size in [3, 4, 5, 6, 8, 10]:
        for _ in range(4):
            codes = np.sort(rng.choice(g.num_codes, size=size, replace=False))
            _, first = _first_optimal(g, solver, codes, memo)
            assert solver.best_guess(codes) == first


@pytest.mark.parametrize(
    "name", [pytest.param("mastermind-3-4", marks=pytest.mark.slow), "bulls-cows-3-5"]
)
def test_exact_solver_on_sets_missing_colors(name):
    """Code sets that leave two or more colors out (the search scores one guess per
    orbit of those colors): brute force totals, under both pools."""
    g = game(name)
    rng = np.random.default_rng(5)
    memo: dict = {}
    memo_c: dict = {}
    free, kept = Solver(g), Solver(g, pool="consistent")
    digits = g.digits
    checked = 0
    for colors in [(0, 1, 2), (1, 2, 3), (0, 2, 4), (1, 3, 4)]:
        inside = np.flatnonzero(np.isin(digits, colors).all(axis=1))
        if len(inside) < 3:
            continue
        for size in [3, 5, len(inside)]:
            codes = np.sort(rng.choice(inside, size=min(size, len(inside)), replace=False))
            assert free.total(codes) == brute_force_total(g, tuple(codes.tolist()), memo)
            expect = brute_force_total(g, tuple(codes.tolist()), memo_c, pool="consistent")
            assert kept.total(codes) == expect
            checked += 1
    assert checked >= 6


def test_feedback_block_reads_the_symmetric_table_either_way():
    """Few columns are read as rows of the table (it is symmetric): the same block as
    computing the feedbacks from the pegs."""
    g = game("bulls-cows-3-5")
    rng = np.random.default_rng(0)
    for a, b in [(5, 20), (20, 5), (7, 7)]:
        rows = rng.choice(g.num_codes, a, replace=False)
        cols = rng.choice(g.num_codes, b, replace=False)
        expect = g.compute_feedback(rows[:, None], cols[None, :])
        assert np.array_equal(feedback_block(g, rows, cols), expect)


def test_exact_solver_reads_a_read_only_table():
    """Big tables are memory-mapped read-only files: the search only reads them."""
    g = PegGame(3, 4)
    g.table.setflags(write=False)
    assert Solver(g).total(g.all_codes()) == 206  # Goddard's optimum of (3,4)


def _kind_sets(g, rng, count):
    """Code sets drawn from few kinds (color multisets), where the kinds' floors bite."""
    kind, _ = code_kinds(g)
    out = []
    for _ in range(count):
        picks = rng.choice(kind.max() + 1, size=rng.integers(1, 4), replace=False)
        inside = np.flatnonzero(np.isin(kind, picks))
        if len(inside) >= 3:
            size = int(rng.integers(3, min(len(inside), 16) + 1))
            out.append(np.sort(rng.choice(inside, size=size, replace=False)))
    return out


@pytest.mark.parametrize("name", ["mastermind-3-4", "bulls-cows-3-5", "mastermind-4-6"])
def test_kind_floors_bound_every_other_guess(name):
    """The floor of a kind is at most the bound (``n + sum lb``) of every guess of that
    kind outside the set, checked guess by guess; and above ``2n`` for some sets of few
    kinds (codes of one kind answer a guess in few ways), so the floors do prune."""
    from evo.search import exact_kernel

    g = game(name)
    solver = Solver(g)
    kind, common = code_kinds(g)
    rng = np.random.default_rng(3)
    above = 0
    for codes in _kind_sets(g, rng, 30):
        n = len(codes)
        floor = exact_kernel._kind_floors(codes, kind, common, g.pegs, max_parts(g), solver.lb)
        for guess in np.setdiff1d(np.arange(g.num_codes), codes):
            bound = n + sum(int(solver.lb[len(p)]) for p in _parts(g, guess, codes))
            assert bound >= floor[kind[guess]], (codes, guess)
        above += int(floor.min() > 2 * n)
    assert above >= 3


def test_split_bound_is_the_least_split():
    """The even split is the least ``sum lb`` over every way to split ``k`` codes into
    at most ``parts`` parts (``lb`` is convex)."""
    from evo.search import exact_kernel

    lb = perfect_split_bounds(40, 4)

    @functools.cache
    def least(k, parts):
        if k == 0:
            return 0
        if parts == 0:
            return 1 << 40
        return min(int(lb[s]) + least(k - s, parts - 1) for s in range(1, k + 1))

    for k in range(0, 30):
        for parts in range(1, 7):
            assert exact_kernel._split_bound(k, parts, lb) == least(k, parts), (k, parts)


def _path_sets(g, rng, count, most=24):
    """Code sets as the search meets them: the part of a random guess's random answer,
    again and again from every code, kept from ``most`` codes down to 3."""
    out = []
    for _ in range(count):
        codes = g.all_codes()
        while len(codes) >= 3:
            fb = g.feedback(int(rng.integers(g.num_codes)), codes)
            codes = codes[fb == rng.choice(fb)]
            if 3 <= len(codes) <= most:
                out.append(np.sort(codes))
    return out


@functools.cache
def _code_index(g) -> dict[tuple[int, ...], int]:
    """Each code of the game by its pegs."""
    return {tuple(d): i for i, d in enumerate(g.digits.tolist())}


def _lowest_of_absent_orbit(g, guess: int, codes: np.ndarray) -> bool:
    """Whether ``guess`` is the lowest code its image takes when the colors no code of
    ``codes`` has are permuted among themselves (every permutation tried)."""
    absent = sorted(set(range(g.colors)) - set(np.unique(g.digits[codes]).tolist()))
    digits = g.digits[guess]
    index = _code_index(g)
    for perm in itertools.permutations(absent):
        image = [perm[absent.index(c)] if c in absent else c for c in digits.tolist()]
        if index[tuple(image)] < guess:
            return False
    return True


@pytest.mark.parametrize("name", ["mastermind-3-4", "bulls-cows-3-5", "bulls-cows-4-7"])
def test_scores_keep_the_order_up_to_the_first_guess_of_known_cost(name):
    """On the code sets the optimal tree meets, and on sets of few kinds: the scored
    candidates in order, up to the first whose parts have two codes or less (of known
    cost: the search stops there), are those of the documented order (bound, consistent
    first, code) computed guess by guess, whatever the kinds' floors and the cap skipped
    after it."""
    from evo.baselines.optimal import optimal
    from evo.search import exact_kernel

    g = game(name)
    solver = Solver(g)
    tree = optimal(g, time_limit=None)
    sets = [tree.code_set(v) for v in range(tree.num_nodes) if len(tree.code_set(v)) >= 3]
    sets += _kind_sets(g, np.random.default_rng(17), 20)
    every = np.arange(g.num_codes, dtype=np.int64)
    lb = solver.lb
    for codes in sets:
        codes = np.sort(codes).astype(np.int64)
        n = len(codes)
        fb = g.compute_feedback(every[:, None], codes[None, :])
        counts = np.zeros((g.num_codes, g.num_feedbacks), dtype=np.int64)
        np.add.at(counts, (np.repeat(every, n), fb.ravel()), 1)
        rest = np.delete(counts, g.win, axis=1)
        helps = (counts[:, g.win] > 0) | (rest.max(axis=1) < n)
        bound = n + lb[rest].sum(axis=1)
        ranked = sorted(
            (int(bound[x]), counts[x, g.win] == 0, x, int(rest[x].max()))
            for x in np.flatnonzero(helps)
        )
        expect = []
        for _, _, x, big in ranked:
            if _lowest_of_absent_orbit(g, x, codes):
                expect.append(x)
                if big <= 2:
                    break
        kept, *_ = exact_kernel.score(
            every, codes, 1 << 40, int(lb[n]), solver._game, solver._identity
        )
        assert every[kept[: len(expect)]].tolist() == expect, codes.tolist()


@pytest.mark.parametrize("name", ["mastermind-3-4", "bulls-cows-3-5"])
def test_exact_choice_on_sets_of_few_kinds(name):
    """On sets of few kinds (the kinds' floors and the cap of a guess of known cost skip
    most guesses) the choice is still the first optimal guess in order, the total brute
    force's."""
    g = game(name)
    rng = np.random.default_rng(11)
    solver = Solver(g)
    memo: dict = {}
    for codes in _kind_sets(g, rng, 25):
        best, first = _first_optimal(g, solver, codes, memo)
        assert solver.total(codes) == best
        assert solver.best_guess(codes) == first


def test_too_many_kinds_to_tabulate_gives_the_same_tree(monkeypatch):
    """Above ``MAX_KINDS`` the search keeps no table of common colors and bounds other
    guesses by ``2n``: slower, the same tree."""
    import evo.search.exact as exact

    g = game("mastermind-3-4")
    codes = g.all_codes().astype(np.int64)
    expect = Solver(g, policy="symmetry").subtree(codes)
    monkeypatch.setattr(exact, "MAX_KINDS", 1)
    exact.code_kinds.cache_clear()  # computed once per game: again under the new limit
    try:
        solver = Solver(g, policy="symmetry")
        assert len(solver._common) == 0
        got = solver.subtree(codes)
    finally:
        exact.code_kinds.cache_clear()  # and not kept for the other tests
    assert got.total == expect.total == 206
    assert np.array_equal(got.guess, expect.guess)
