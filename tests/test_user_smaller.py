"""Issue 66's smaller items: `evo config list` names Wordle as Wordle, `evo render` says
how many nodes it drew and cuts a big tree unless asked, a finished run keeps no lock
file, and `evo run` names its run directory once."""

from __future__ import annotations

import json
import os
import re
import shutil
from pathlib import Path

import pytest
from click.testing import CliRunner

from evo.cli import main
from evo.runs.rundir import LOCK, is_locked, lock_run

pytestmark = pytest.mark.filterwarnings("ignore")


def evo(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def test_config_list_says_wordle_without_pegs_or_colors():
    out = evo("config", "list").stdout
    (wordle,) = [line for line in out.splitlines() if line.startswith("wordle ")]
    assert "pegs" not in wordle and "colors" not in wordle and " wordle " in wordle
    (small,) = [line for line in out.splitlines() if line.startswith("mastermind-3-3 ")]
    assert "mastermind 3 pegs, 3 colors" in small


def drawn(svg: Path) -> int:
    """The guesses a picture draws (their ids: node<index>-<guess>), boxes left out."""
    return len(re.findall(r'<g id="node\d+(?:-|&#45;)', svg.read_text()))


@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_render_counts_the_nodes_it_draws(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = evo("render", "mastermind-4-6", "--depth", "2", "-o", "d2.svg")
    assert res.exit_code == 0, res.output
    count = drawn(tmp_path / "d2.svg")
    assert count == 14  # the root and its 13 answers
    assert f"d2.svg ({count} of 1,315 nodes drawn and 13 boxes of the rest" in res.stdout
    res = evo("render", "knuth", "-n", "3", "-c", "3", "--min-codes", "2", "-o", "m.svg")
    assert res.exit_code == 0, res.output
    assert f"({drawn(tmp_path / 'm.svg')} of 27 nodes drawn" in res.stdout


@pytest.mark.slow
@pytest.mark.skipif(shutil.which("dot") is None, reason="Graphviz is not installed")
def test_a_big_tree_is_cut_unless_whole_is_asked(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    res = evo("render", "mastermind-4-6")
    assert res.exit_code == 0, res.output
    picture = tmp_path / "mastermind-4-6.svg"
    assert "has 1,315 nodes: drawing 3 levels" in res.stderr and "--whole" in res.stderr
    assert drawn(picture) <= 150 and picture.stat().st_size < 1_000_000
    small = evo("render", "knuth", "-n", "3", "-c", "3", "-o", "k.svg")
    assert small.stderr == "" and drawn(tmp_path / "k.svg") == 27
    res = evo("render", "mastermind-4-6", "--whole", "-o", "all.svg")
    assert res.exit_code == 0 and drawn(tmp_path / "all.svg") == 1315, res.output
    res = evo("render", "mastermind-4-6", "--whole", "--depth", "2")
    assert res.exit_code == 2 and "--whole" in res.stderr


SMALL = {
    "name": "t",
    "seed": 1,
    "game": {"pegs": 3, "colors": 3},
    "population": {"size": 6},
    "stop": {"generations": 1},
    "mutation": {"rate": 0.8, "operators": [{"kind": "regrow"}]},
}


def test_a_finished_run_keeps_no_lock_and_names_its_folder_once(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps(SMALL))
    res = evo("run", config, "--runs", tmp_path / "runs", "-q", "--no-report")
    assert res.exit_code == 0, res.output
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert not (run_dir / LOCK).exists()
    assert (res.stdout + res.stderr).count("run directory:") == 1
    assert f"run directory: {run_dir}" in res.stderr
    resumed = evo("resume", run_dir, "--set", "stop.generations=2", "-q", "--no-report")
    assert resumed.exit_code == 0, resumed.output
    assert (resumed.stdout + resumed.stderr).count("run directory:") == 1
    assert not (run_dir / LOCK).exists()


def test_the_lock_file_is_there_while_held_and_removed_after(tmp_path):
    with lock_run(tmp_path):
        assert (tmp_path / LOCK).exists() and is_locked(tmp_path)
    assert not (tmp_path / LOCK).exists() and not is_locked(tmp_path)


def test_a_lock_file_replaced_meanwhile_is_taken_again(tmp_path, monkeypatch):
    """A process that opened the lock file just before its holder removed it would lock
    a file no longer there: it takes the one there now instead."""
    import evo.core.files as files

    real = files._locked
    calls = []

    def removed_once(path, *, what):
        fd = real(path, what=what)
        calls.append(path)
        if len(calls) == 1:  # its holder ends now: removes it, and another makes it again
            path.unlink()
            path.write_text("12345 elsewhere\n")
        return fd

    monkeypatch.setattr(files, "_locked", removed_once)
    with lock_run(tmp_path):
        assert is_locked(tmp_path)
        assert (tmp_path / LOCK).read_text().split()[0] == str(os.getpid())
    assert len(calls) == 2 and not (tmp_path / LOCK).exists()
