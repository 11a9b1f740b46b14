"""Command-line messages: progress of ``evo baselines``, and errors and help texts that
say what to do."""

from __future__ import annotations

import re

from click.testing import CliRunner

from evo.cli import main


def test_baselines_progress_names_each_baseline_on_stderr():
    args = ["baselines", "--pegs", "2", "--colors", "3", "--only", "knuth,kooi,optimal"]
    res = CliRunner().invoke(main, [*args, "--progress"])
    assert res.exit_code == 0, res.output
    lines = res.stderr.splitlines()
    assert [re.sub(r"\.\.\..*", "", ln) for ln in lines] == [
        "[1/3] knuth",
        "[2/3] kooi",
        "[3/3] optimal (at most 60 s)",
    ]
    assert all(re.search(r"\.\.\. \d+\.\d s$", ln) for ln in lines)
    assert "knuth" in res.stdout and "[1/3]" not in res.stdout
    quiet = CliRunner().invoke(main, [*args, "--no-progress"])
    assert quiet.exit_code == 0 and quiet.stderr == ""
    # By default: only on a terminal (CliRunner's standard error is not one).
    assert CliRunner().invoke(main, args).stderr == ""


def test_only_without_names():
    res = CliRunner().invoke(main, ["baselines", "--only", ",,"])
    assert res.exit_code == 2
    assert "',,' names no baseline" in res.output and "no baseline named" not in res.output


def test_render_a_refused_optimum_says_how_to_get_it(monkeypatch):
    from evo.baselines import OptimalRefused

    def refuse(game, name):
        raise OptimalRefused(
            f"refused: the exact optimum of {game.name} would take about 9 years, more than "
            "the 30 s allowed (--time-limit)"
        )

    monkeypatch.setattr("evo.baselines.reference.reference_tree", refuse)
    res = CliRunner().invoke(main, ["render", "optimal", "--pegs", "3", "--colors", "3"])
    assert res.exit_code == 2
    assert "neither a tree file nor a baseline" not in res.output
    assert "(--time-limit)" not in res.output  # render has no such option
    assert "evo baselines --only optimal --time-limit SECONDS" in res.output
    assert "9 years" in res.output


def test_size_layout_and_direction_have_help():
    pop = CliRunner().invoke(main, ["population", "--help"]).output
    assert re.search(r"--size INTEGER RANGE\s+How many random breakers", pop)
    render = " ".join(CliRunner().invoke(main, ["render", "--help"]).output.split())
    assert "--layout [dot|twopi] Graphviz layout: dot" in render
    assert "auto (LR for wide trees)" in render
