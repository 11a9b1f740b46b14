"""Command-line messages: progress of ``evo baselines``, and errors and help texts that
say what to do."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest
from click.testing import CliRunner
from hypothesis import given, settings
from hypothesis import strategies as st

from evo.cli import main


def test_baselines_progress_names_each_baseline_on_stderr():
    args = ["baselines", "--pegs", "2", "--colors", "3", "--only", "knuth,kooi,optimal"]
    res = CliRunner().invoke(main, [*args, "--progress"])
    assert res.exit_code == 0, res.output
    head, *lines = res.stderr.splitlines()
    assert head == (
        "mastermind-2-3: 9 codes, feedback table of 0.1 KiB, about 2.1 KiB with its codes "
        "and a tree"
    )
    assert [re.sub(r"\.\.\..*", "", ln) for ln in lines] == [
        "[1/3] knuth",
        "[2/3] kooi",
        "[3/3] optimal (at most 600 s)",  # DEFAULT_TIME_LIMIT
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
            "the 30 s allowed"
        )

    monkeypatch.setattr("evo.baselines.reference.reference_tree", refuse)
    res = CliRunner().invoke(main, ["render", "optimal", "--pegs", "3", "--colors", "3"])
    assert res.exit_code == 2
    assert "neither a tree file nor a baseline" not in res.output
    assert "(--time-limit)" not in res.output  # render has no such option
    assert "evo baselines -n 3 -c 3 --only optimal --time-limit SECONDS" in res.output
    assert "9 years" in res.output


def test_run_help_names_the_shipped_configs_and_how_to_list_them():
    """An installed evo has no configs/ folder: ``evo run --help`` says CONFIG may be the
    name of a shipped config, gives one, and says how to list them (issue 51)."""
    from evo.config import shipped_configs

    res = CliRunner().invoke(main, ["run", "--help"])
    assert res.exit_code == 0
    text = " ".join(res.output.split())
    assert "evo config list" in text and "evo config show NAME" in text
    assert "quick" in text and "quick" in shipped_configs()
    assert "see configs/" not in text


def test_a_config_file_that_is_not_there_names_the_shipped_ones(tmp_path, monkeypatch):
    """``evo run configs/quick.yaml`` (the README's command) from a folder without
    configs/: one line that gives the shipped config's name and ``evo config list``; a
    name that is nobody's lists evo's names."""
    monkeypatch.chdir(tmp_path)
    res = CliRunner().invoke(main, ["run", "configs/quick.yaml", "--runs", "runs"])
    assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1, res.output
    assert "no config file configs/quick.yaml" in res.output
    assert "named without a folder: quick" in res.output and "evo config list" in res.output
    for args in (["run", "configs/mine.yaml"], ["run", "mine"], ["config", "show", "mine"]):
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 2 and len(res.output.strip().splitlines()) == 1, res.output
        assert "no config of evo's is called 'mine'" in res.output
        assert "quick" in res.output and "evo config list" in res.output
    assert not (tmp_path / "runs").exists()


def test_size_layout_and_direction_have_help():
    pop = CliRunner().invoke(main, ["population", "--help"]).output
    assert re.search(r"--size INTEGER RANGE\s+How many random breakers", pop)
    render = " ".join(CliRunner().invoke(main, ["render", "--help"]).output.split())
    assert "--layout [dot|twopi] Graphviz layout: dot" in render
    assert "auto (LR for wide trees)" in render


def test_errors_escape_control_characters_and_cut_long_values(tmp_path):
    """A user error is one line without raw control characters (a name can hold a terminal
    escape) and without a whole 100 KB value, but still says what is wrong."""
    config = tmp_path / "c.yaml"
    config.write_text("name: t\ngame: {pegs: 2, colors: 3}\n")
    cases = [
        (["render", str(tmp_path / "\x1b]0;pwned\x07\x1b[2J.json")], "\\x1b]0;pwned\\x07\\x1b[2J"),
        (["render", "\x1b[2J" + "x" * 100_000], "File name too long"),
        (["config", "show", str(config), "--set", "game.variant=" + "v" * 100_000], "game.kind"),
        (["config", "show", str(config), "--set", "\x1b[2J" + "a " * 50_000], "KEY.PATH=VALUE"),
    ]
    for args, needle in cases:
        res = CliRunner().invoke(main, args)
        assert res.exit_code == 2, res.output
        (line,) = res.stderr.strip().splitlines()
        assert line.startswith("Error: ") and needle in line, line[:300]
        assert not re.search(r"[\x00-\x1f\x7f]", res.stderr.rstrip("\n")), line[:300]
        assert len(line) < 1200, line[:300]
        if len(" ".join(args)) > 100_000:
            assert " characters)" in line, line[:300]


@settings(max_examples=200, deadline=None, database=None)
@given(st.text(alphabet=st.characters(codec=None, exclude_categories=())))
def test_printable_text_is_valid_xml_and_keeps_what_prints(text):
    """Any text at all (controls, surrogates, unassigned code points) comes out as UTF-8
    that XML takes as it is; text that prints comes out unchanged."""
    from xml.sax.saxutils import escape

    from evo.show.text import printable

    shown = printable(text)
    assert ET.fromstring(f"<t>{escape(shown)}</t>".encode()).text in (shown, None)
    if text.isprintable():
        assert shown == text
    assert printable("\x1b" + "a" * 500, limit=10) == "\\x1baaaaaa… (501 characters)"


@pytest.mark.slow
def test_baselines_progress_says_when_no_table_is_built(tmp_path, monkeypatch):
    """A game whose table would be a file not yet built: one-step strategies compute their
    feedbacks, and the header says so (not a table that is never built); with the
    optimum, which reads the table, it names the table."""
    from evo.games import pegs as game_module

    monkeypatch.setattr(game_module, "TABLE_FILE_BYTES", 1 << 20)  # (4,6): 1.7 MB
    monkeypatch.setenv("EVO_CACHE", str(tmp_path))
    args = ["baselines", "--pegs", "4", "--colors", "6", "--progress", "--only"]
    res = CliRunner().invoke(main, [*args, "knuth"])
    assert res.exit_code == 0, res.output
    head = res.stderr.splitlines()[0]
    assert "feedbacks computed where needed, no need to build a 1.6 MiB table" in head, head
    assert not list(tmp_path.rglob("feedback-table.bin"))
    res = CliRunner().invoke(main, [*args, "knuth,optimal", "--no-cache"])
    assert res.exit_code == 0, res.output
    assert res.stderr.splitlines()[0].startswith("mastermind-4-6: 1,296 codes, feedback table of")
