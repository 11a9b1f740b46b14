"""Feedbacks computed where they are needed (issue 20): the compiled kernels read the
game's table or compute from packed codes, and nothing known changes: the same feedbacks
as the pegs give, the same one-step trees with and without the table, and a memory
budget that decides which, or refuses the game in one line."""

from __future__ import annotations

import numpy as np
import pytest
from click.testing import CliRunner

from evo.cli import main
from evo.core.feedback_kernel import feedback_pairs
from evo.core.game import make_game
from evo.search.lookahead import lookahead_tree


@pytest.mark.parametrize(
    "pegs, colors, variant",
    [
        (4, 6, "mastermind"),
        (5, 8, "mastermind"),
        pytest.param(6, 9, "mastermind", marks=pytest.mark.slow),
        (10, 2, "mastermind"),
        (7, 5, "mastermind"),
        (4, 10, "bulls-cows"),
        (5, 10, "bulls-cows"),
    ],
)
def test_packed_feedback_is_the_pegs_feedback(pegs, colors, variant):
    """Against the feedback counted from the pegs (black: same peg at the same place;
    white: common colors less black), on random pairs and on each code against itself."""
    game = make_game(pegs, colors, variant, table=False)
    rng = np.random.default_rng(pegs * 100 + colors)
    g = rng.integers(0, game.num_codes, 4000)
    s = np.concatenate([rng.integers(0, game.num_codes, 3000), g[3000:]])
    got = feedback_pairs(game.computed_source, g, s)
    d = game.digits
    black = (d[g] == d[s]).sum(axis=1)
    cg, cs = game.color_counts[g].astype(int), game.color_counts[s].astype(int)
    white = np.minimum(cg, cs).sum(axis=1) - black
    want = [game.parse_feedback(f"{b},{w}") for b, w in zip(black, white, strict=True)]
    assert got.tolist() == want
    assert np.all(got[3000:] == game.win)


@pytest.mark.parametrize("heuristic", ["knuth", "irving", "kooi", "entropy"])
@pytest.mark.parametrize(
    "pegs, colors, variant", [(4, 6, "mastermind"), (3, 6, "bulls-cows"), (5, 6, "mastermind")]
)
def test_one_step_trees_are_the_same_without_the_table(heuristic, pegs, colors, variant):
    """(5,6) has 7776 codes: built node by node (the player's kernel); the others in the
    one compiled call. Both read feedbacks from the packed codes when the table is off."""
    with_table = make_game(pegs, colors, variant)
    without = make_game(pegs, colors, variant, table=False)
    assert with_table.table is not None and without.table is None
    a = lookahead_tree(with_table, heuristic, engine="compiled")
    b = lookahead_tree(without, heuristic, engine="compiled")
    assert a.total == b.total
    assert np.array_equal(a.guess, b.guess) and np.array_equal(a.child_table, b.child_table)


def test_consistent_form_is_the_same_without_the_table():
    a = lookahead_tree(make_game(4, 7), "knuth", pool="consistent", engine="compiled")
    b = lookahead_tree(make_game(4, 7, table=False), "knuth", pool="consistent", engine="compiled")
    assert np.array_equal(a.guess, b.guess) and a.total == b.total


def test_memory_budget_decides_the_table():
    """(4,6): a 1.6 MiB table and about 0.3 MiB of working arrays."""
    assert make_game(4, 6, memory=4 * 1024**2).use_table
    assert not make_game(4, 6, memory=1024**2).use_table
    with pytest.raises(ValueError, match="memory budget of 100.0 KiB"):
        make_game(4, 6, memory=100 * 1024)


def test_memory_option_computes_without_the_table_and_gets_the_same_totals(tmp_path, monkeypatch):
    monkeypatch.setenv("EVO_CACHE", str(tmp_path))
    args = ["baselines", "-n", "4", "-c", "6", "--only", "kooi,knuth", "--no-cache"]
    full = CliRunner().invoke(main, args)
    small = CliRunner().invoke(main, [*args, "--memory", "0.001"])
    assert full.exit_code == 0 and small.exit_code == 0, small.output
    assert "computed where needed" in small.stdout and "computed where needed" not in full.stdout
    rows = [
        [ln.split()[:2] for ln in r.stdout.splitlines() if ln.startswith(("kooi", "knuth"))]
        for r in (full, small)
    ]
    assert rows[0] == rows[1] == [["kooi", "5668"], ["knuth", "5801"]]


def test_a_game_beyond_the_memory_budget_is_refused_in_one_line(tmp_path, monkeypatch):
    monkeypatch.setenv("EVO_CACHE", str(tmp_path))
    res = CliRunner().invoke(main, ["baselines", "-n", "6", "-c", "8", "--memory", "0.01"])
    assert res.exit_code == 2
    assert res.output.count("\n") == 1
    assert "262,144 codes" in res.output and "memory budget of 10.2 MiB" in res.output
    assert "--memory" in res.output


def test_config_memory_key_reaches_the_game():
    from evo.config import Config
    from evo.core.game import GameTooLargeError
    from evo.ea.loop import config_game

    cfg = Config.model_validate({"game": {"pegs": 4, "colors": 6}, "population": {"size": 4}})
    assert config_game(cfg).use_table
    small = cfg.model_copy(update={"game": cfg.game.model_copy(update={"memory_gib": 0.001})})
    assert not config_game(small).use_table
    tiny = cfg.model_copy(update={"game": cfg.game.model_copy(update={"memory_gib": 0.0001})})
    with pytest.raises(GameTooLargeError, match="memory budget"):
        config_game(tiny)


def test_build_reports_codes_found_as_it_goes():
    calls = []
    tree = lookahead_tree(make_game(5, 6), "kooi", progress=lambda f, t: calls.append((f, t)))
    assert 100 < len(calls) <= len(tree.guess)  # node by node (small subtrees at once)
    found = [f for f, _ in calls]
    assert found == sorted(found) and found[-1] == 7776 and {t for _, t in calls} == {7776}
    assert found[len(found) // 2] not in (0, 7776)  # it grows along the way


def test_progress_line_says_share_and_time_left(capsys):
    from evo.cli.common import FoundProgress

    meter = FoundProgress("[1/1] kooi...", every=0)
    meter(0, 1000)
    meter(500, 1000)
    meter.close()
    err = capsys.readouterr().err.splitlines()
    assert err[1].startswith("[1/1] kooi... 0 of 1,000 codes found (0.0%)")
    assert "500 of 1,000 codes found (50.0%)" in err[2] and "left" in err[2]
    assert err[-1] == "[1/1] kooi..."


def test_a_long_baseline_shows_its_estimate_first(tmp_path, monkeypatch):
    import evo.cli.baselines as cli_baselines

    monkeypatch.setenv("EVO_CACHE", str(tmp_path))
    args = ["baselines", "-n", "4", "-c", "6", "--only", "kooi", "--progress", "--no-cache"]
    assert "kooi (about" not in CliRunner().invoke(main, args).stderr
    monkeypatch.setattr(cli_baselines, "LONG_SECONDS", 0.0)
    assert "[1/1] kooi (about " in CliRunner().invoke(main, args).stderr


def test_estimate_grows_as_the_square_of_the_codes():
    from evo.search.lookahead import estimate_seconds

    small, big = make_game(5, 8, table=False), make_game(6, 8, table=False)
    ratio = estimate_seconds(big, "kooi") / estimate_seconds(small, "kooi")
    assert ratio == pytest.approx(64)
    assert estimate_seconds(small, "kooi", pool="consistent") < estimate_seconds(small, "kooi")


@pytest.mark.parametrize("pool", ["all", "consistent"])
def test_growth_draws_the_same_trees_without_the_table(pool):
    from evo.core.population import random_population

    a = random_population(make_game(4, 6), 20, seed=5, pool=pool)
    b = random_population(make_game(4, 6, table=False), 20, seed=5, pool=pool)
    assert [t.total for t in a] == [t.total for t in b]
    assert all(np.array_equal(x.guess, y.guess) for x, y in zip(a, b, strict=True))


@pytest.mark.parametrize("pegs, colors, variant", [(3, 4, "mastermind"), (3, 5, "bulls-cows")])
def test_exact_search_is_the_same_without_the_table(pegs, colors, variant):
    """The optimum and each node's best guess, reading the table or computing from the
    packed codes (the same kernels)."""
    from evo.search.exact import Solver

    a, b = make_game(pegs, colors, variant), make_game(pegs, colors, variant, table=False)
    sa, sb = Solver(a), Solver(b)
    codes = a.all_codes().astype(np.int64)
    assert sa.total(codes) == sb.total(codes)
    rng = np.random.default_rng(3)
    for size in (5, 12, 30):
        part = np.sort(rng.choice(codes, size, replace=False))
        assert sa.best_guess(part) == sb.best_guess(part)
        assert sa.total(part) == sb.total(part)
