"""``evo bound`` as a user meets it (issue 66): the one-step trees of ``--against`` kept
within a work and time limit (and said), Ctrl-C keeping and saying the bound, a run
directory as the breaker, the verdict first, progress on one line, ``evo.bound`` in
Python, and ``--first GUESS --out FILE``. Figures are checked against a brute force
over every guess at every node (``tests/support/brute.py``) on Mastermind (3,3)."""

from __future__ import annotations

import itertools
import re
import signal
import time

import numpy as np
import pytest
from click.testing import CliRunner
from support.brute import least

import evo
import evo.proofs.bound as bound_module
import evo.proofs.refine as refine_module
from evo.cli import main
from evo.core.game import make_game
from evo.core.treeio import load_tree, save_tree
from evo.proofs.bound import (
    _initial_classes,
    against_uppers,
    check_certificate,
    first_guess_classes,
    lookahead_uppers,
    read_certificate,
    tree_uppers,
)


def pegs(guess: tuple, secret: tuple) -> tuple[int, int]:
    """Mastermind's answer by its definition: black pegs, then the colors in common
    (counted with repeats) less the blacks."""
    black = sum(g == s for g, s in zip(guess, secret, strict=True))
    common = sum(min(guess.count(c), secret.count(c)) for c in set(guess))
    return black, common - black


CODES = list(itertools.product(range(3), repeat=3))  # Mastermind (3,3), ids in this order
OPTIMUM_3_3 = least(CODES, pegs)  # 73


def opened_with(first: tuple) -> int:
    """The least total of the breakers of (3,3) that open with ``first``, by brute force."""
    parts: dict[tuple, list[tuple]] = {}
    for s in CODES:
        if s != first:
            parts.setdefault(pegs(first, s), []).append(s)
    return len(CODES) + sum(least(p, pegs, guesses=CODES) for p in parts.values())


@pytest.fixture
def knuth_3_3(tmp_path):
    """Knuth's (3,3) breaker (74, one above the optimum) in a file."""
    path = tmp_path / "knuth.json"
    save_tree(evo.baseline(make_game(3, 3), "knuth"), path)
    return path


# ------------------------------------------------------- item 1: the one-step trees
def test_opening_bounds_are_the_depth_zero_class_totals():
    """The plan's order: each class's depth-0 bound, as the bound's own first classes."""
    for game in (make_game(3, 4), make_game(4, 5), make_game(3, 5, "bulls-cows")):
        classes = _initial_classes(game)
        got = bound_module.opening_bounds(game, [c.guess for c in classes])
        assert got.tolist() == [c.total for c in classes]


def test_the_plan_takes_the_least_classes_within_the_work_and_below_the_breaker():
    game = make_game(4, 5)
    every = [g for g, _ in first_guess_classes(game)]
    bounds = dict(zip(every, bound_module.opening_bounds(game, every).tolist()))
    one = game.num_guesses * game.num_codes  # one tree's work
    two = bound_module.lookahead_plan(game, work=2 * one + 1)
    assert two.guesses == sorted(every, key=lambda g: bounds[g])[:2]
    assert two.work == 2 * one and two.wanted == len(every) and two.left == len(every) - 2
    assert bound_module.lookahead_plan(game, work=one - 1).guesses == []
    # Only the classes bounded below the breaker's total can lower the bound under it.
    cut = sorted(bounds.values())[2]
    below = bound_module.lookahead_plan(game, below=cut)
    assert sorted(below.guesses) == sorted(g for g in every if bounds[g] < cut)
    assert below.wanted == len(below.guesses) < len(every)


def test_against_uppers_build_only_the_planned_trees_and_stop_at_their_time(monkeypatch):
    game = make_game(4, 5)
    knuth = evo.baseline(game, "knuth")
    built: list[int] = []
    real = bound_module.lookahead_uppers

    def counted(g, **kw):
        built.extend(kw["guesses"])
        return real(g, **kw)

    monkeypatch.setattr(bound_module, "lookahead_uppers", counted)
    plan = bound_module.lookahead_plan(game, work=2 * game.num_guesses * game.num_codes)
    got = against_uppers(knuth, plan=plan)
    assert built == plan.guesses and len(built) == 2
    assert got == tree_uppers(knuth).merged(real(game, guesses=plan.guesses))
    # No time left: no tree begun, the breaker's uppers alone.
    monkeypatch.setattr(bound_module, "lookahead_uppers", real)
    assert lookahead_uppers(
        game, guesses=plan.guesses, until=time.monotonic()
    ) == bound_module.Uppers({})
    assert against_uppers(knuth, plan=plan, seconds=0) == tree_uppers(knuth)


def test_the_cli_says_the_one_step_trees_before_building_them(knuth_3_3):
    res = CliRunner().invoke(main, ["bound", "--workers", "1", "-n", "3", "-c", "3", "--depth", "1",
                                    "--against", str(knuth_3_3)])  # fmt: skip
    assert res.exit_code == 0, res.output
    said = [x for x in res.stderr.splitlines() if x.startswith("upper bounds: one-step trees")]
    assert len(said) == 1 and "at most 10 s" in said[0], res.stderr


def test_ctrl_c_while_the_trees_are_built_is_one_line_and_status_130(monkeypatch, knuth_3_3):
    def interrupted(*args, **kw):
        raise KeyboardInterrupt

    monkeypatch.setattr(bound_module, "lookahead_uppers", interrupted)
    res = CliRunner().invoke(main, ["bound", "--workers", "1",
                                    "-n", "3", "-c", "3", "--seconds", "5",
                                    "--against", str(knuth_3_3)])  # fmt: skip
    assert res.exit_code == 128 + signal.SIGINT, res.output
    assert "Aborted" not in res.output
    assert (
        res.stderr.strip().splitlines()[-1] == "Error: stopped by SIGINT before a bound was proved"
    )


def test_ctrl_c_in_the_search_prints_the_verdict_and_keeps_the_certificate(
    monkeypatch, tmp_path, knuth_3_3
):
    def stopped(game, **kw):
        kw["progress"](refine_module.lower_bound_real(game, depth=0, uppers=kw["uppers"]))
        raise KeyboardInterrupt

    monkeypatch.setattr(refine_module, "lower_bound_real", refine_module.lower_bound, raising=False)
    monkeypatch.setattr(refine_module, "lower_bound", stopped)
    cert = tmp_path / "c.json"
    args = ["--seconds", "60", "--against", str(knuth_3_3), "--certificate", str(cert)]
    res = CliRunner().invoke(main, ["bound", "--workers", "1", "-n", "3", "-c", "3", *args])
    assert res.exit_code == 130, res.output
    data = read_certificate(cert)
    lower, upper = data["lower_bound"], data["upper"]  # the upper: a one-step tree's
    above = 100 * (74 - lower) / lower
    most = f", at most {upper}" if upper < 74 else ""
    assert res.stdout.splitlines()[0] == (
        f"{knuth_3_3} is at most {above:.2f}% above the optimum (74; the optimum is at "
        f"least {lower:,}{most})"
    )
    assert f"stopped by SIGINT: {lower} is proved (a lower bound), kept in {cert}" in res.stderr
    assert check_certificate(read_certificate(cert)).lower_bound == lower


# ------------------------------------------------------- item 2: a run directory
def test_against_takes_a_run_directory_and_the_game_of_its_breaker(tmp_path):
    run = tmp_path / "run"
    run.mkdir()
    save_tree(evo.baseline(make_game(3, 4), "knuth"), run / "best.json")
    res = CliRunner().invoke(
        main, ["bound", "--workers", "1", "--depth", "0", "--against", str(run)]
    )
    assert res.exit_code == 0, res.output
    first = res.stdout.splitlines()[0]
    assert first.startswith(f"{run} is at most ") and "(216;" in first  # (3,4)'s Knuth: 216
    # A game given must be the breaker's: one line naming --against.
    res = CliRunner().invoke(main, ["bound", "--workers", "1", "-n", "3", "-c", "3", "--depth", "1",
                                    "--against", str(run)])  # fmt: skip
    assert res.exit_code == 2 and "--against" in res.stderr
    assert len(res.stderr.strip().splitlines()) <= 3


# ------------------------------------------------------- item 3: the verdict first
def test_the_first_line_says_an_optimal_breaker_is_optimal(tmp_path):
    path = tmp_path / "opt.json"
    save_tree(evo.baseline(make_game(3, 3), "optimal"), path)
    res = CliRunner().invoke(main, ["bound", "--workers", "1",
                                    "-n", "3", "-c", "3", "--seconds", "20",
                                    "--against", str(path)])  # fmt: skip
    assert res.exit_code == 0, res.output
    assert res.stdout.splitlines()[0] == f"{path} is optimal: {OPTIMUM_3_3}"


def test_the_first_line_says_how_far_above_the_optimum_a_breaker_is(knuth_3_3):
    res = CliRunner().invoke(main, ["bound", "--workers", "1",
                                    "-n", "3", "-c", "3", "--seconds", "20",
                                    "--against", str(knuth_3_3)])  # fmt: skip
    assert res.exit_code == 0, res.output
    above = 100 * (74 - OPTIMUM_3_3) / OPTIMUM_3_3
    assert res.stdout.splitlines()[0] == (
        f"{knuth_3_3} is {above:.2f}% above the optimum (74; the optimum is {OPTIMUM_3_3})"
    )


def test_the_first_line_without_a_breaker():
    res = CliRunner().invoke(
        main, ["bound", "--workers", "1", "-n", "3", "-c", "3", "--seconds", "20"]
    )
    assert res.stdout.splitlines()[0] == f"mastermind-3-3: the optimum is {OPTIMUM_3_3}"
    res = CliRunner().invoke(
        main, ["bound", "--workers", "1", "-n", "4", "-c", "6", "--depth", "0"]
    )
    lower = min(c.total for c in _initial_classes(make_game(4, 6)))
    assert res.stdout.splitlines()[0] == f"mastermind-4-6: the least total is at least {lower:,}"
    assert lower < 5625  # (4,6)'s optimum: a bound, not the optimum


def test_an_exact_class_does_not_read_at_least():
    res = CliRunner().invoke(
        main, ["bound", "--workers", "1", "-n", "3", "-c", "3", "--seconds", "20", "-v"]
    )
    assert res.exit_code == 0, res.output
    lines = [x for x in res.stdout.splitlines() if x.startswith("  first guess")]
    assert lines and not any(re.search(r"at least [\d,]+ \(exact\)", x) for x in lines)
    exact = [x for x in lines if x.endswith("(exact)")]
    assert f"  first guess 112 (class of 18): {opened_with((0, 0, 1))} (exact)" in exact


def test_progress_is_one_line_unless_verbose():
    args = ["bound", "-n", "4", "-c", "6", "--depth", "2", "--workers", "1"]
    quiet = CliRunner().invoke(main, args)
    loud = CliRunner().invoke(main, [*args, "--verbose"])
    assert quiet.exit_code == loud.exit_code == 0, quiet.output
    steps = [x for x in loud.stderr.splitlines() if x.startswith("[")]
    assert len(steps) > 3  # many changes of the bound ...
    assert len([x for x in quiet.stderr.splitlines() if x.startswith("[")]) == 1  # ... one line
    assert "\n  first guess" in loud.stdout and "\n  first guess" not in quiet.stdout


def test_on_a_terminal_the_progress_line_is_rewritten(capsys):
    from evo.cli.bound import _ProgressLine

    game = make_game(3, 3)
    b = refine_module.lower_bound(game, depth=0)
    line = _ProgressLine(verbose=False, quiet=False)
    line.tty = True
    line.show(b)
    b.lower_bound += 1
    line.show(b)
    line.clear()
    err = capsys.readouterr().err
    assert err.count("\r") == 3 and "\n" not in err


def test_the_help_explains_the_words_of_the_table():
    text = " ".join(CliRunner().invoke(main, ["bound", "--help"]).output.split())
    for words in (
        "class of N): X and N-1 others that the game's symmetries",
        "exact: T is the least total of the breakers that open with X",
        "depth 0: the first guess's parts by their perfect split alone",
        "budget: the exact search, given what would lift the class to the upper bound",
        "The first line is the verdict",
    ):
        assert words in text, words


# ------------------------------------------------------- item 4: evo.bound
def test_evo_bound_returns_a_typed_result(tmp_path, knuth_3_3):
    from evo.proofs.verdict import BoundResult

    game = make_game(3, 3)
    cert = tmp_path / "c.json"
    result = evo.bound(game, knuth_3_3, seconds=20, certificate=cert)
    assert isinstance(result, BoundResult)
    assert (result.lower_bound, result.upper, result.optimal) == (OPTIMUM_3_3, OPTIMUM_3_3, True)
    assert result.against_total == 74 and result.certificate == cert
    assert result.gap == 0.0 and result.verdict.startswith(f"{knuth_3_3} is 1.37% above")
    assert check_certificate(read_certificate(cert)).lower_bound == OPTIMUM_3_3
    shallow = evo.bound(game, evo.baseline(game, "knuth"), depth=0, name="knuth")
    lower, upper = shallow.lower_bound, shallow.upper
    assert not shallow.optimal and lower < OPTIMUM_3_3 <= upper <= 74
    assert shallow.gap == pytest.approx(100 * (upper - lower) / upper)
    assert shallow.verdict.startswith(f"knuth is at most {100 * (74 - lower) / lower:.2f}%")
    assert "bound" in evo.__all__


def test_the_cli_is_a_layer_over_evo_bound(monkeypatch):
    seen = {}
    real = evo.bound

    def spy(game, against=None, **kw):
        seen.update(kw)
        return real(game, against, **kw)

    monkeypatch.setattr(evo, "bound", spy)
    res = CliRunner().invoke(
        main, ["bound", "--workers", "1", "-n", "3", "-c", "3", "--depth", "1"]
    )
    assert res.exit_code == 0, res.output
    assert seen["depth"] == 1 and seen["seconds"] is None


# ------------------------------------------------------- item 5: --first --out
def test_first_out_writes_the_tree_of_least_total_with_that_guess(tmp_path):
    out = tmp_path / "t.json"
    res = CliRunner().invoke(main, ["bound", "--workers", "1",
                                    "-n", "3", "-c", "3", "--first", "123",
                                    "--out", str(out)])  # fmt: skip
    assert res.exit_code == 0, res.output
    tree = load_tree(out)
    want = opened_with((0, 1, 2))
    assert tree.total == want and tree.is_valid()
    assert make_game(3, 3).format_code(int(tree.guess[0])) == "123"
    assert f"tree: {out} (total {want})" in res.stdout
    # The option is not ignored when the bound stops short of the optimum: it says so.
    res = CliRunner().invoke(main, ["bound", "--workers", "1",
                                    "-n", "3", "-c", "4", "--first", "123", "--depth",
                                    "0", "--out", str(tmp_path / "u.json")])  # fmt: skip
    assert res.exit_code == 2 and "--out: no tree written" in res.stderr
    assert not (tmp_path / "u.json").exists()
    res = CliRunner().invoke(main, ["bound", "-n", "3", "-c", "3", "--out", str(out)])
    assert res.exit_code == 2 and "--first" in res.stderr


def test_evo_bound_tree_opens_with_the_first_guess():
    game = make_game(3, 3)
    result = evo.bound(game, first="111", tree=True)
    assert result.tree is not None and result.tree.total == opened_with((0, 0, 0))
    assert int(result.tree.guess[0]) == game.parse_code("111")
    assert np.array_equal(np.sort(result.tree.code_set(0)), np.arange(game.num_codes))


# ------------------------------------------------------- Wordle: the must-hold
@pytest.mark.slow
def test_wordle_against_its_optimum_keeps_to_its_time():
    """Issue 66: ``--against breakers/wordle.json`` printed nothing for 11.6 minutes;
    with --seconds 10 it now ends within 10 s of trees, the workers' start and the
    clock (and a margin for a loaded machine), with its verdict first."""
    began = time.monotonic()
    res = CliRunner().invoke(main, ["bound", "--game", "wordle", "--against",
                                    "breakers/wordle.json", "--seconds", "10"])  # fmt: skip
    took = time.monotonic() - began
    assert res.exit_code == 0, res.output
    assert res.stdout.startswith("breakers/wordle.json is at most ")
    assert "(7,920; the optimum is at least" in res.stdout.splitlines()[0]
    assert took < 60, took  # 10 s and the start: 11.6 minutes before
