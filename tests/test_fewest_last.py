"""A second objective for the worst case: among subtrees of least total within a depth
limit, one with the fewest codes at the limit's last guess (``Solver(fewest_last=True)``,
``evo polish --fewest-last``), checked against a brute force over every tree of tiny games."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from click.testing import CliRunner
from support.searches import reached

from evo.cli import main
from evo.core.game import Game, make_game
from evo.core.treeio import load_tree
from evo.ea import polish as polish_module
from evo.ea.mutation import exhaustive_mutation
from evo.ea.polish import Band, polish
from evo.search.build import Node
from evo.search.exact import UNBOUNDED, Solver

BREAKERS = "breakers/mastermind-4-6.json"


def brute(game: Game, codes: np.ndarray, depth: int) -> tuple[int, int] | None:
    """``(total, codes at guess depth)``, least in that order over every tree (every code
    a guess at every node) that solves ``codes`` within ``depth`` guesses; None if none."""
    table = np.asarray(game.table)

    @functools.cache
    def best(s: tuple[int, ...], d: int) -> tuple[int, int] | None:
        if d == 0:
            return None
        if len(s) == 1:
            return (1, int(d == 1))
        found = None
        for g in range(game.num_codes):
            parts: dict[int, list[int]] = {}
            for c in s:
                parts.setdefault(int(table[g, c]), []).append(c)
            rest = [p for f, p in parts.items() if f != game.win]
            if any(len(p) == len(s) for p in rest):
                continue  # tells nothing
            total, last = len(s), int(d == 1 and g in s)
            for p in rest:
                below = best(tuple(p), d - 1)
                if below is None:
                    break
                total, last = total + below[0], last + below[1]
            else:
                if found is None or (total, last) < found:
                    found = (total, last)
        return found

    return best(tuple(sorted(int(c) for c in codes)), depth)


@pytest.mark.parametrize(
    "game",
    [
        make_game(3, 3),
        make_game(2, 5),
        pytest.param(make_game(3, 5, variant="bulls-cows"), marks=pytest.mark.slow),
    ],
    ids=str,
)
@pytest.mark.parametrize("policy", ["path-independent", "symmetry"])
def test_the_least_total_then_the_fewest_at_the_last_guess_as_a_brute_force_finds(game, policy):
    rng = np.random.default_rng(5)
    checked = differs = 0
    for _ in range(25):
        history, codes = reached(game, rng)
        if len(codes) < 3:
            continue
        for depth in (2, 3, 4, 5):
            want = brute(game, codes, depth)
            solver = Solver(game, policy=policy, fewest_last=True)
            node = Node.after(game, history)
            total = solver.total(codes, node, depth=depth)
            if want is None:
                assert total >= UNBOUNDED
                continue
            last = solver.last(codes, node, depth=depth)
            assert (total, last) == want, (history, codes.tolist(), depth)
            sub = solver.subtree(codes, history=history, depth=depth)
            assert (sub.total, sub.solved_at(depth)) == want and sub.worst <= depth
            plain = Solver(game, policy=policy).subtree(codes, history=history, depth=depth)
            differs += plain.solved_at(depth) != last
            checked += 1
    assert checked > 40 and differs > 0  # the second objective did change some choices


def test_without_a_feedback_table_the_same_choices():
    """The kernels read feedbacks from the table or compute them from packed codes."""
    table, packed = make_game(3, 4), make_game(3, 4, table=False)
    assert packed.table is None
    rng, checked = np.random.default_rng(2), 0
    for _ in range(6):
        history, codes = reached(table, rng)
        for depth in (3, 4, 5):
            got = []
            for game in (table, packed):
                solver = Solver(game, policy="symmetry", fewest_last=True)
                cost = solver.solve(codes, Node.after(game, history), UNBOUNDED, depth=depth)
                sub = (
                    solver.subtree(codes, history=history, depth=depth)
                    if cost < UNBOUNDED
                    else None
                )
                got.append((cost, None if sub is None else sub.guess.tolist()))
            assert got[0] == got[1]
            checked += got[0][1] is not None
    assert checked >= 6


@pytest.mark.slow
def test_a_whole_game_the_fewest_codes_at_the_worst_case():
    """(4,6): the optimum, 5625, leaves a single code at 6 guesses; within 5 guesses the
    least total, 5626, leaves 540 at 5 (the plain search's trees leave more)."""
    game = make_game(4, 6)
    codes = game.all_codes()
    solver = Solver(game, policy="symmetry", fewest_last=True)
    assert (solver.total(codes, depth=6), solver.last(codes, depth=6)) == (5625, 1)
    assert (solver.total(codes, depth=5), solver.last(codes, depth=5)) == (5626, 540)
    plain = Solver(game, policy="symmetry").subtree(codes, depth=5)
    assert plain.total == 5626 and plain.solved_at(5) > 540


def test_the_second_objective_needs_a_depth_limit():
    game = make_game(3, 3)
    with pytest.raises(ValueError, match="depth limit"):
        Solver(game, fewest_last=True).total(game.all_codes())
    with pytest.raises(ValueError, match="fewest_last"):
        Solver(game).last(game.all_codes(), depth=5)
    tree = load_tree(BREAKERS)
    with pytest.raises(ValueError, match="max_guesses"):
        polish(tree, [Band(3, 60, "all")], fewest_last=True)


def test_the_operator_takes_fewer_codes_at_the_worst_case_at_the_same_total():
    tree = load_tree(BREAKERS)  # 5625, 7 codes at 6
    kw = {"rng": np.random.default_rng(0), "max_codes": 1295, "sweep": True, "max_guesses": 6}
    plain = exhaustive_mutation(tree, **kw)
    fewer = exhaustive_mutation(tree, **kw, fewest_last=True)
    assert plain.total == fewer.total == 5625
    assert plain.solved_at(6) == 7 and fewer.solved_at(6) == 1
    fewer.validate()


def test_the_operator_counts_at_the_runs_limit_only():
    """Without ``max_guesses`` (``keep_depth`` alone bounds each subtree by its own height)
    there is no worst case to count at: the same tree as without the option."""
    tree = load_tree(BREAKERS)
    kw = {"rng": np.random.default_rng(0), "max_codes": 1295, "sweep": True, "keep_depth": True}
    plain = exhaustive_mutation(tree, **kw)
    same = exhaustive_mutation(tree, **kw, fewest_last=True)
    assert np.array_equal(plain.guess, same.guess) and same.at_worst == 7


def test_polish_reports_and_keeps_the_codes_at_the_worst_case(tmp_path):
    src, out = BREAKERS, tmp_path / "p.json"
    args = ["polish", src, "--band", "3:1295:all", "--max-guesses", "6", "-o", str(out)]
    plain = CliRunner().invoke(main, args)
    assert plain.exit_code == 0, plain.output
    assert "codes at 6: 7 -> 7" in plain.output and load_tree(out).at_worst == 7
    fewer = CliRunner().invoke(main, [*args, "--fewest-last"])
    assert fewer.exit_code == 0, fewer.output
    assert "codes at 6: 7 -> 1" in fewer.output and "worst case 6 for 1 code\n" in fewer.output
    tree = load_tree(out)
    assert tree.total == 5625 and tree.at_worst == 1
    alone = CliRunner().invoke(main, ["polish", src, "--band", "3:60", "--fewest-last", "-o",
                                      str(out)])  # fmt: skip
    assert alone.exit_code == 2 and "--max-guesses" in alone.output


def test_the_command_passes_the_option(tmp_path, monkeypatch):
    seen = {}
    real = polish_module.polish

    def spy(t, bands, **kw):
        seen.update(kw)
        return real(t, bands, **kw)

    monkeypatch.setattr(polish_module, "polish", spy)
    args = ["polish", BREAKERS, "--band", "3:30:all", "--max-guesses", "6", "-o"]
    for flag, want in [([], False), (["--fewest-last"], True)]:
        out = CliRunner().invoke(main, [*args, str(tmp_path / "p.json"), *flag])
        assert out.exit_code == 0 and seen["fewest_last"] is want, out.output


def test_a_runs_exhaustive_operator_takes_the_option():
    from evo.config import load_config
    from evo.ea.toolbox import build_toolbox

    tree = load_tree(BREAKERS)

    def mutated(fewest_last: bool):
        operator = {"kind": "exhaustive", "max_codes": 1295, "sweep": True}
        cfg = load_config(
            {
                "game": {"pegs": 4, "colors": 6},
                "max_guesses": 6,
                "mutation": {"operators": [{**operator, "fewest_last": fewest_last}]},
            }
        )
        return build_toolbox(cfg, tree.game).mutate(tree, rng=np.random.default_rng(0))

    got = [(t.total, t.at_worst) for t in (mutated(False), mutated(True))]
    assert got == [(5625, 7), (5625, 1)]
