"""Bounds that prune the exact search: the parts' raise where their own codes split
them into fewer parts than the perfect split counts (exact_kernel.fewer_parts), and the
first guesses' floors planted in its memo (evo.proofs.floors); checked against an
independent brute force and the exact costs, and the trees unchanged."""

from __future__ import annotations

import importlib
import itertools
import json

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from evo.baselines import Where, optimal
from evo.cli import main
from evo.core.game import make_game
from evo.proofs.bound import CertificateError, write_certificate
from evo.proofs.floors import floors_at_depth, floors_of_certificate, plant
from evo.proofs.refine import lower_bound
from evo.search import exact_kernel
from evo.search.build import Node
from evo.search.exact import UNBOUNDED, Solver
from tests.test_optimal import brute_costs
from tests.test_trust import assert_one_line_error

optmod = importlib.import_module("evo.baselines.optimal")


def _arrays(tree) -> tuple:
    return tuple(a.tolist() for a in (tree.guess, tree.label, tree.parent, tree.codes))


def _raised(game, solver, codes) -> int:
    """The bound ``fewer_parts`` gives a set of codes (alone, as one part)."""
    codes = np.asarray(codes, dtype=np.int64)
    s = len(codes)
    lows = np.array([solver.lb[s]], dtype=np.int64)
    small = exact_kernel.perfect_codes(solver.lb, game.num_feedbacks)
    zero, size = np.zeros(1, dtype=np.int64), np.array([s], dtype=np.int64)
    raised = exact_kernel.fewer_parts(solver._source, codes, solver.lb, small, 1, zero, size, lows)
    assert raised == lows[0] - solver.lb[s] >= 0
    return int(lows[0])


_GAMES = {key: make_game(*key) for key in [(3, 3, "mastermind"), (2, 4, "mastermind")]}
_BRUTE = {key: brute_costs(*key) for key in _GAMES}


@settings(max_examples=60, deadline=None)
@given(st.sampled_from(sorted(_GAMES)), st.lists(st.integers(0, 10**6), min_size=3, max_size=9))
def test_the_raised_bound_is_below_the_brute_force_cost(key, picks):
    """Any code set of (3,3) or (2,4): the raised bound never exceeds its least total by a
    plain recursive minimum over every guess (nothing shared with evo)."""
    game = _GAMES[key]
    codes, cost = _BRUTE[key]
    s = sorted({p % game.num_codes for p in picks})
    if len(s) < 3:
        return
    solver = Solver(game)
    got = _raised(game, solver, s)
    assert solver.lb[len(s)] <= got <= cost(tuple(codes[c] for c in s))


def test_the_bound_rises_where_no_code_tells_the_others_apart():
    """Hand-worked, (3,3): 111, 112, 113 and 222. Against 111, 112 and 113 both answer
    2B; against 112, 111 and 113 answer 2B; against 113, 111 and 112; against 222, 111
    and 113 answer nothing. Each code leaves a pair, so no guess solves the set in
    2s - 1 = 7: at least 8, its cost by the brute force. With 121 for 222, 121 tells the
    others apart (2B, 1B 2W, 1B 1W): 7 stays."""
    game = _GAMES[(3, 3, "mastermind")]
    codes, cost = _BRUTE[(3, 3, "mastermind")]
    s = sorted(game.parse_code(c) for c in ("111", "112", "113", "222"))
    solver = Solver(game)
    assert solver.lb[4] == 7
    assert _raised(game, solver, s) == 8 == cost(tuple(codes[c] for c in s))
    s = sorted(game.parse_code(c) for c in ("111", "112", "113", "121"))
    assert _raised(game, solver, s) == 7 == cost(tuple(codes[c] for c in s))


def test_the_search_visits_fewer_nodes_and_builds_the_same_trees():
    """The (4,6) optimum's search meets 9,223 sets without the raise; with it, fewer
    than half (3,715 when measured); on games whose path-independent search takes well
    under a second, the same tree as that search (the (4,6) one: below, heavy)."""
    game = make_game(4, 6)
    solver = Solver(game, policy="symmetry")
    tree = solver.subtree(game.all_codes())
    assert tree.total == 5625 and solver.nodes < 9223 // 2
    for small in (make_game(4, 4), make_game(5, 3), make_game(3, 6, "bulls-cows")):
        mine = Solver(small, policy="symmetry").subtree(small.all_codes())
        other = Solver(small, policy="path-independent").subtree(small.all_codes())
        assert _arrays(other) == _arrays(mine)


@pytest.mark.heavy  # the path-independent search of (4,6): about 290 CPU-seconds here
def test_the_4_6_tree_is_the_path_independent_searchs():
    game = make_game(4, 6)
    tree = Solver(game, policy="symmetry").subtree(game.all_codes())
    other = Solver(game, policy="path-independent").subtree(game.all_codes())
    assert _arrays(other) == _arrays(tree)


@pytest.mark.parametrize("pegs, colors, variant", [(4, 5, "mastermind"), (3, 6, "bulls-cows")])
@pytest.mark.parametrize("depth", [1, 2])
def test_the_floors_are_below_each_first_guess_part_cost(pegs, colors, variant, depth):
    """Each part's floor is at most its exact least total, deeper floors are at least the
    shallower ones, and the least class at most the optimum."""
    game = make_game(pegs, colors, variant)
    floors = floors_at_depth(game, depth)
    solver = Solver(game, policy="symmetry")
    for p in floors.parts:
        fb = game.feedback_row(p.guess)
        codes = np.flatnonzero(fb == p.feedback)
        assert len(codes) == p.size
        exact = solver.total(codes, Node.after(game, (p.guess,)))
        assert p.bound <= exact
    assert floors.least <= optimal(game, time_limit=None).total
    if depth == 2:
        shallow = floors_at_depth(game, 1)
        assert all(a.bound >= b.bound for a, b in zip(floors.parts, shallow.parts))
        assert floors.least >= shallow.least
        if variant == "mastermind":  # Bulls and Cows' parts are solved exactly at once
            assert floors.least > shallow.least


def test_planted_floors_prune_and_keep_the_tree():
    """(4,5): the floors two levels deep planted in the memo; the same tree, fewer sets
    searched (a search that ignored them would meet as many)."""
    game = make_game(4, 5)
    codes = game.all_codes().astype(np.int64)
    plain = Solver(game, policy="symmetry")
    plain.solve(codes, Node(game), UNBOUNDED)
    seeded = Solver(game, policy="symmetry")
    assert plant(floors_at_depth(game, 2), seeded) > 1
    seeded.solve(codes, Node(game), UNBOUNDED)
    assert seeded.nodes < plain.nodes
    assert _arrays(seeded.subtree(codes)) == _arrays(plain.subtree(codes))


def test_below_stops_refining_a_class_that_reaches_it():
    game = make_game(4, 5)
    full = floors_at_depth(game, 2).totals()
    cut = floors_at_depth(game, 2, below=2000).totals()
    assert all(cut[g] <= full[g] for g in full)
    assert any(cut[g] < full[g] for g in full) and all(t >= 2000 for t in cut.values())
    with pytest.raises(ValueError, match="1 or more"):
        floors_at_depth(game, 0)


def _spied(monkeypatch) -> list:
    made: list = []
    real = optmod.Solver

    def spy(*a, **k):
        s = real(*a, **k)
        made.append(s)
        return s

    monkeypatch.setattr(optmod, "Solver", spy)
    return made


def test_where_floors_in_the_optimum(monkeypatch, tmp_path):
    """``Where(floors=...)``: a depth, a certificate written here (taken as proved), none;
    ``auto`` from FLOOR_CODES codes. The tree is the same; the report says the floors."""
    game = make_game(4, 5)
    made = _spied(monkeypatch)
    plain = optimal(game, time_limit=None, where=Where(floors="none"))
    said: list[str] = []
    cert = tmp_path / "c.json"
    write_certificate(lower_bound(game, depth=2), cert)
    for option in (2, cert):
        got = optimal(game, time_limit=None, where=Where(floors=option, report=said.append))
        assert _arrays(got) == _arrays(plain)
        assert made[-1].nodes < made[0].nodes
    assert any("the first guesses' parts bounded (depth 2" in s for s in said)
    assert any(f"({cert}, " in s for s in said)
    optimal(game, time_limit=None)  # auto: under FLOOR_CODES, none
    assert made[-1].nodes == made[0].nodes
    monkeypatch.setattr(optmod, "FLOOR_CODES", 100)
    optimal(game, time_limit=None)
    assert made[-1].nodes < made[0].nodes


def test_the_help_says_from_how_many_codes_auto_floors_are_planted():
    text = " ".join(CliRunner().invoke(main, ["baselines", "--help"]).output.split())
    assert f"(auto: {optmod.FLOOR_DEPTH}, from {optmod.FLOOR_CODES} codes on)" in text


def test_a_certificate_not_sealed_is_proved_again_and_a_raised_bound_refused(tmp_path):
    game = make_game(4, 5)
    cert = tmp_path / "c.json"
    write_certificate(lower_bound(game, depth=2), cert)
    sealed = floors_of_certificate(game, cert)
    data = json.loads(cert.read_text())
    data.pop("seal", None)
    cert.write_text(json.dumps(data))
    assert floors_of_certificate(game, cert).parts == sealed.parts  # proved again
    part = next(p for c in data["classes"] for p in c["parts"] if p["size"] > 20)
    part["bound"] += 1000
    cert.write_text(json.dumps(data))
    with pytest.raises(CertificateError):
        floors_of_certificate(game, cert)
    with pytest.raises(CertificateError):
        floors_of_certificate(make_game(3, 5), cert)


def test_the_cli_floors_option(tmp_path):
    args = ["baselines", "-n", "3", "-c", "5", "--only", "optimal", "--no-cache", "--json"]
    res = CliRunner().invoke(main, [*args, "--floors", "2"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)[0]["total"] == 451
    assert_one_line_error(CliRunner().invoke(main, [*args, "--floors", "0"]), "--floors")
    assert_one_line_error(CliRunner().invoke(main, [*args, "--floors", "nope"]), "--floors")
    cert = tmp_path / "c.json"
    write_certificate(lower_bound(make_game(4, 5), depth=1), cert)
    res = CliRunner().invoke(main, [*args, "--floors", str(cert)])
    assert_one_line_error(res, "--floors")


def test_every_guess_order_is_kept():
    """The raise does not change the candidates' order: the scored order of (3,4)'s
    root is the same list as the part-size bounds sort it."""
    game = make_game(3, 4)
    solver = Solver(game, policy="symmetry")
    codes = game.all_codes().astype(np.int64)
    cands, kept, bounds, _, _ = exact_kernel._candidates(
        codes, UNBOUNDED, 0, solver.game_args, solver._identity
    )
    assert list(bounds) == sorted(bounds)
    assert len(list(itertools.islice(kept, 3))) > 0


def test_floors_only_where_every_guess_is_a_code_and_no_rule_holds(monkeypatch):
    """A custom game whose only optimal first guess is not a code (``x`` tells the five
    secrets apart: 5 + 5 = 10; a code first wins one and tells nothing of the others,
    1 + 4 * 3 = 13 at best): the floors count ``x`` as a first guess of its own (the
    codes' alone would bound the game above 10), and the search still takes floors only
    where every guess is a code and no rule holds: refused when asked for, ``auto`` none."""
    import evo

    secrets = ["a", "b", "c", "d", "e"]

    def answer(g, s):
        return "win" if g == s else (s if g == "x" else "no")

    game = evo.custom_game(secrets, answer, guesses=[*secrets, "x"], name="test-floors-extra")
    assert floors_at_depth(game, 1).least <= 10
    with pytest.raises(ValueError, match="guesses are its codes"):
        optimal(game, time_limit=None, where=Where(floors=1))
    monkeypatch.setattr(optmod, "FLOOR_CODES", 1)
    assert optimal(game, time_limit=None).total == 10
