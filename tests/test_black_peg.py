"""Black-peg Mastermind (docs/DESIGN.md §1): Mastermind answered by the black pegs alone.

Its feedback against the definition on every pair (table, computed, compiled), its
automorphisms (Mastermind's: positions and colors permuted), its optima against a brute
force over every guess, and the command line's ``--game black-peg``."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from click.testing import CliRunner
from support.brute import least

from evo.cli import main
from evo.core.feedback_kernel import feedback_pairs
from evo.core.game import make_game
from evo.search.exact import UNBOUNDED, Solver
from evo.search.symmetry import Relabel, Stabilizer


def hits(guess: tuple, secret: tuple) -> int:
    """The black pegs: positions where guess and secret agree."""
    return sum(g == s for g, s in zip(guess, secret, strict=True))


def codes_of(pegs: int, colors: int) -> list[tuple]:
    return list(itertools.product(range(colors), repeat=pegs))


@pytest.mark.parametrize(("pegs", "colors"), [(1, 4), (2, 3), (3, 3), (4, 3), (3, 5)])
@pytest.mark.parametrize("table", [True, False])
def test_feedback_is_the_black_pegs_on_every_pair(pegs, colors, table):
    game = make_game(pegs, colors, "black-peg", table=table)
    codes = codes_of(pegs, colors)
    assert game.num_codes == len(codes) and game.num_feedbacks == pegs + 1
    expected = np.array([[pegs - hits(g, s) for s in codes] for g in codes])
    every = np.arange(len(codes))
    assert np.array_equal(game.feedback(every[:, None], every[None, :]), expected)
    g, s = np.repeat(every, len(codes)), np.tile(every, len(codes))
    assert np.array_equal(feedback_pairs(game.feedback_source, g, s), expected.ravel())


def test_feedbacks_print_and_parse():
    game = make_game(4, 6, "black-peg")
    assert [game.format_feedback(f) for f in range(5)] == ["4B", "3B", "2B", "1B", "0B"]
    assert game.parse_feedback("1B") == game.parse_feedback("1") == game.parse_feedback(" 1b ") == 3
    for bad in ("1B 2W", "5B", "x", "1,2"):
        with pytest.raises(ValueError, match="feedback"):
            game.parse_feedback(bad)
    assert (
        game.format_feedback(game.feedback(game.parse_code("1122"), game.parse_code("1213")))
        == "1B"
    )
    assert game.name == "black-peg-4-6" and game.description.startswith("Black-peg Mastermind")


def test_mastermind_automorphisms_keep_every_black_peg_answer():
    game = make_game(3, 4, "black-peg")
    every = np.arange(game.num_codes)
    table = game.feedback(every[:, None], every[None, :])
    rng = np.random.default_rng(5)
    for _ in range(20):
        phi = Relabel(tuple(rng.permutation(3).tolist()), tuple(rng.permutation(4).tolist()))
        image = phi.apply(game, every)
        assert sorted(image.tolist()) == every.tolist()
        assert np.array_equal(table[np.ix_(image, image)], table)
    # The group searched is Mastermind's: every position and color permutation.
    root = Stabilizer.root(game)
    assert len(root.perms) == 6 and len(root.fresh) == 4
    assert len(root.representatives()) == len(Stabilizer.root(make_game(3, 4)).representatives())


#: Small games whose optimum the brute force finds in seconds.
BRUTE = [(2, 2), (2, 3), (3, 2), (2, 4), (3, 3), (2, 5)]


@pytest.mark.parametrize(
    ("pegs", "colors"),
    [pytest.param(*pc, marks=pytest.mark.slow) if pc == (2, 5) else pc for pc in BRUTE],
)
def test_optimum_and_worst_case_are_the_brute_forces(pegs, colors):
    game = make_game(pegs, colors, "black-peg")
    codes = codes_of(pegs, colors)
    total = least(codes, hits)
    worst = least(codes, hits, worst=True)
    every = game.all_codes()
    for policy in ("symmetry", "path-independent"):
        solver = Solver(game, policy=policy)
        assert solver.total(every) == total
        assert solver.total(every, depth=worst) < UNBOUNDED
        assert solver.total(every, depth=worst - 1) == UNBOUNDED


def test_baselines_on_the_command_line():
    res = CliRunner().invoke(
        main, ["baselines", "--game", "black-peg", "-n", "3", "-c", "3", "--only", "knuth,optimal"]
    )
    assert res.exit_code == 0, res.output
    assert "Black-peg Mastermind, 3 pegs, 3 colors" in res.output
    assert f" {least(codes_of(3, 3), hits)} " in res.output  # the optimum's total
    old = CliRunner().invoke(
        main, ["baselines", "--variant", "black-peg", "-n", "3", "-c", "3", "--only", "knuth"]
    )
    assert old.exit_code == 0 and old.output.splitlines()[0] == res.output.splitlines()[0]
    refused = CliRunner().invoke(
        main, ["baselines", "--game", "black-peg", "-n", "3", "-c", "3", "--only", "easy"]
    )
    assert refused.exit_code == 2
    assert "easy is a Mastermind strategy (black and white pegs), not for black-peg-3-3" in (
        refused.output
    )


@pytest.mark.parametrize(
    ("pegs", "colors", "static"),
    # Published optimal static black-peg strategies (every question asked at once, then
    # the final one), questions in all: ceil((4c - 1) / 3) for 2 pegs (Jäger and Drewes,
    # COCOA 2016), floor(3c / 2) + 1 for 3 pegs (COCOA 2018). A dynamic breaker can ask
    # the same questions, so the least worst case is at most that.
    [(2, c, -(-(4 * c - 1) // 3)) for c in range(2, 8)]
    + [(3, c, 3 * c // 2 + 1) for c in (2, 3, 4)],
)
def test_the_worst_case_is_within_the_published_static_strategies(pegs, colors, static):
    game = make_game(pegs, colors, "black-peg")
    solver = Solver(game, policy="symmetry")
    worst = next(d for d in range(1, 20) if solver.total(game.all_codes(), depth=d) < UNBOUNDED)
    assert worst <= static
    if colors <= {2: 4, 3: 3}[pegs]:
        assert worst == static  # few colors: asking as you go gains nothing
