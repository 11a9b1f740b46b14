"""The kernels are compiled before any clock starts: once per machine, said in one line,
only what the work calls, and every kernel a run calls is among them (numba saves
nothing new in the run); the marker that says so agrees with numba's own cache."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from support.processes import run_or_dump

from evo.core.game import make_game
from evo.games.custom import custom_game
from evo.search import kernels
from evo.search.kernels import (
    FAMILIES,
    PROFILES,
    SETUP_PROFILES,
    Kernels,
    ensure_compiled,
    is_compiled,
    kernels_for,
    marker,
    parse_job,
    profile,
    write_marker,
)

ROOT = Path(__file__).resolve().parent.parent


def test_profiles_follow_the_game():
    assert profile(make_game(4, 6)) == ("table", False)
    assert profile(make_game(4, 6, table=False))[0] == "packed"
    assert profile(make_game(5, 8)) == ("table", True)  # 32768 codes: node by node
    assert set(PROFILES) == {(s, b) for s in ("table", "packed") for b in (True, False)}
    assert set(SETUP_PROFILES) == set(PROFILES)  # make setup: every game's first use
    pets = custom_game(["ant", "bug", "cat"], lambda g, s: len(set(g) & set(s)), name="pets")
    assert profile(pets) == ("table", False)
    hints = custom_game(["ab", "ba", "bb"], lambda g, s: (g == s, g[0] in s), name="hints")
    assert profile(hints) == ("table", False)  # ab answers bb (False, False), bb answers ab not


def _numba_type(game):
    from numba import typeof

    return typeof(game.feedback_source)


def test_every_table_is_one_numba_type_so_its_kernels_compile_once(tmp_path, monkeypatch):
    """A symmetric table (the Mastermind family's, in memory or mapped from a file),
    a table and its transpose (a custom game's, Wordle's): one numba type, so that the
    kernels a first run of Mastermind compiles serve Wordle and custom games, and a
    mapped table compiles nothing new (each was a variant of every kernel: about 40 s)."""
    import numpy as np

    from evo.games import pegs
    from evo.games.words import wordle_game

    hints = custom_game(["ab", "ba", "bb"], lambda g, s: (g == s, g[0] in s), name="hints")
    small = make_game(3, 3)
    kinds = {_numba_type(g) for g in (small, make_game(4, 6), hints, wordle_game())}
    monkeypatch.setattr(pegs, "TABLE_FILE_BYTES", 1)  # (3,4)'s table mapped, as a big game's
    mapped = pegs.PegGame(3, 4, "mastermind", True, str(tmp_path))
    assert not mapped.table.flags.writeable and mapped.table.base is not None  # mapped
    kinds.add(_numba_type(mapped))
    assert len(kinds) == 1, kinds
    (kind,) = kinds
    assert "readonly" in str(kind).lower() or "True" in str(kind), kind
    t, by_secret = small.feedback_source  # the symmetric table read by secret is itself
    assert t is by_secret and np.array_equal(t, small.table) and not t.flags.writeable
    assert small.table.flags.writeable  # the game's own table is left as it was


def test_work_asks_for_its_families_and_growth():
    game = make_game(4, 6)
    assert kernels_for(game) == Kernels((("table", False),), FAMILIES)
    assert kernels_for(game, ("search",)).families == ("growth", "search")
    assert kernels_for(game, ()).families == ()
    for kind in PROFILES:
        for family in FAMILIES:
            assert parse_job(kernels._job_name(kind, family)) == (kind, family)
    with pytest.raises(ValueError, match="not a kernels job"):
        parse_job("search:table:deep")


def test_a_run_asks_for_the_depth_limited_search_only_when_it_may_call_it(monkeypatch):
    """quick's run never searches within a depth: its first run does not compile that
    family (about 10 s on the longest compiling process); a limit on the worst case, a
    mutation keeping or lowering a subtree's depth, or an operator of one's own asks for
    it. ``evo.evolve`` compiles what the run asks for."""
    import evo
    from evo.config import load_config
    from evo.ea.engine import run_kernels

    game = make_game(4, 6)
    quick = load_config("quick")
    assert run_kernels(quick, game).families == ("growth", "lookahead", "search", "operators")
    for override in (
        "max_guesses=7",
        "mutation.operators.0.keep_depth=true",
        "mutation.operators.1.keep_depth=true",
        "mutation.operators.1.shallower=true",
    ):
        assert run_kernels(load_config("quick", [override]), game).families == FAMILIES, override
    evo.register_operator("evo-test-mine", lambda tree, *, rng: tree)
    mine = quick.model_dump()
    mine["mutation"]["operators"].append({"kind": "evo-test-mine", "weight": 1})
    assert run_kernels(load_config(mine), game).families == FAMILIES
    asked = _slow_compile(monkeypatch, 0.0)
    operators = {"mutation": quick.model_dump()["mutation"]}  # quick's, on a tiny game
    evo.evolve(make_game(3, 3), operators, seed=1, generations=1, workers=1)
    assert asked == [Kernels((("table", False),), ("growth", "lookahead", "search", "operators"))]


def test_nothing_is_compiled_and_nothing_said_when_the_markers_are_there():
    """Once compiled (make setup did), a command finds every marker, compiles nothing
    and says nothing."""
    ensure_compiled(make_game(4, 6))
    said: list[str] = []
    assert ensure_compiled(make_game(4, 6), say=said.append) == 0.0 and said == []
    assert all(is_compiled(k, f) for k, f in kernels_for(make_game(4, 6)).jobs())


def test_a_marker_whose_numba_index_files_are_gone_says_not_compiled(tmp_path, monkeypatch):
    """The marker lists numba's index files of evo's kernels: one removed (a cleaned
    __pycache__), the marker no longer says compiled, though it is still there."""
    monkeypatch.setattr(kernels, "_cache_state", lambda: ("0" * 16, (tmp_path,), tmp_path))
    kind, family = ("table", False), "search"
    index = tmp_path / "exact_kernel.search-485.py311.nbi"
    index.write_bytes(b"")
    (tmp_path / "other.thing-1.py311.nbi").write_bytes(b"")  # not evo's: not listed
    assert not is_compiled(kind, family)
    write_marker(kind, family, 1.0)
    path = marker(kind, family)
    assert path.parent == tmp_path and "search-table-whole" in path.name
    assert json.loads(path.read_text())["index"] == {str(tmp_path): [index.name]}
    assert is_compiled(kind, family) and not is_compiled(kind, "lookahead")
    index.unlink()
    assert path.is_file() and not is_compiled(kind, family)
    index.write_bytes(b"")
    assert is_compiled(kind, family)
    path.write_text("{not json")
    assert not is_compiled(kind, family)


def _marker_of_copy(copy: Path, cache: Path) -> dict:
    """In a fresh process importing the evo at ``copy`` (from outside any checkout), with
    numba's cache at ``cache``: where evo was imported from, its marker of the exact search
    (table, whole trees), and whether it says compiled; after ``write``, it writes it."""
    code = (
        "import json, sys, evo\n"
        "from evo.search.kernels import is_compiled, marker, write_marker\n"
        "job = (('table', False), 'search')\n"
        "if sys.argv[1] == 'write': write_marker(*job, 1.0)\n"
        "print(json.dumps({'evo': evo.__file__, 'marker': str(marker(*job)),"
        " 'compiled': is_compiled(*job)}))\n"
    )
    out = []
    for step in ("write", "read") if copy.name == "a" else ("read",):
        env = {**os.environ, "PYTHONPATH": str(copy), "NUMBA_CACHE_DIR": str(cache)}
        done = subprocess.run(
            [sys.executable, "-c", code, step],
            env=env,
            cwd=cache.parent,
            capture_output=True,
            text=True,
            timeout=300,
        )
        assert done.returncode == 0, done.stderr
        out.append(json.loads(done.stdout))
    return out[-1]


def test_a_second_install_sharing_numbas_cache_has_its_own_marker(tmp_path):
    """numba keys its cache by where the kernels' files lie: a second install (a wheel
    beside a checkout, a second clone) sharing NUMBA_CACHE_DIR finds none of the first's
    kernels. Its marker is its own, so it compiles before its clock, not inside a run's
    workers (the marker was keyed by the sources and numba's version alone)."""
    for name in ("a", "b"):
        shutil.copytree(
            ROOT / "evo", tmp_path / name / "evo", ignore=shutil.ignore_patterns("__pycache__")
        )
    cache = tmp_path / "numba"
    first = _marker_of_copy(tmp_path / "a", cache)
    second = _marker_of_copy(tmp_path / "b", cache)
    assert first["evo"].startswith(str(tmp_path / "a")) and second["evo"].startswith(
        str(tmp_path / "b")
    )
    assert first["compiled"] is True
    assert Path(first["marker"]).is_relative_to(cache)
    assert second["marker"] != first["marker"]
    assert second["compiled"] is False


def test_the_compiling_processes_import_this_evo_whatever_the_folder(tmp_path, monkeypatch):
    """The processes that compile start from the current folder: one with a stray evo/
    folder (an older checkout) is not where they import evo from."""
    (tmp_path / "evo").mkdir()
    (tmp_path / "evo" / "__init__.py").write_text('"""A stray evo: another version, or none."""\n')
    monkeypatch.chdir(tmp_path)
    command = kernels._child_command(["finish"])  # no job: it imports evo and ends
    done = subprocess.run(command, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stderr


@pytest.mark.heavy  # compiles every kernel from an empty cache: minutes
def test_a_fresh_machine_compiles_once_and_the_run_compiles_nothing(tmp_path):
    """A fresh numba cache: the first run says it compiles (once), and the run then
    loads every kernel it calls from the cache (numba's 'data saved' never appears).
    quick's run leaves out the depth-limited search; a run that keeps depths compiles
    it first, alone and once, and then nothing."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "EVO_CACHE": str(tmp_path)}
    evo = [str(Path(sys.executable).parent / "evo")]
    args = [*evo, "run", str(ROOT / "configs/quick.yaml"), "--runs", str(tmp_path / "runs")]
    args += ["--set", "stop.seconds=2", "-q", "--no-report"]
    first = run_or_dump(args, env=env, timeout=1200)
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("compiling evo's kernels") == 1, first.stderr
    assert "kernels (growth, lookahead, search, operators)" in first.stderr, first.stderr
    assert "kernels compiled in" in first.stderr
    deep = [*args, "--set", "mutation.operators.0.keep_depth=true"]
    deep += ["--set", "mutation.operators.1.keep_depth=true"]
    for command, compiles in ((args, None), (deep, "within"), (deep, None)):
        said = run_or_dump(command, env={**env, "NUMBA_DEBUG_CACHE": "1"}, timeout=1200)
        assert said.returncode == 0, said.stderr
        if compiles is None:
            assert "compiling" not in said.stderr
        else:
            assert said.stderr.count("compiling evo's kernels") == 1, said.stderr
            assert f"compiling evo's kernels ({compiles})" in said.stderr, said.stderr
        assert "data loaded" in said.stdout  # the debug output is there to be read
        # The compiling processes' output is their own: the run itself saves nothing.
        saved = [line for line in said.stdout.splitlines() if "data saved" in line]
        assert saved == [], saved[:5]


def _slow_compile(monkeypatch, seconds: float) -> list:
    """``ensure_compiled`` made to take ``seconds`` (as compiling would), recording what
    it was asked for."""
    asked: list = []

    def compiling(what=None, *, say=None):
        asked.append(what)
        time.sleep(seconds)
        return seconds

    monkeypatch.setattr(kernels, "ensure_compiled", compiling)
    return asked


@pytest.mark.slow
def test_a_baselines_time_does_not_count_compiling(monkeypatch):
    """A baseline's kernels are compiled before its time starts: RC's time was 7.8 s of
    compiling on a fresh machine (the optimum's 50 s). RC calls the growth kernels; a
    one-step rule in NumPy (a small game, numba not needed) asks for none."""
    from evo.baselines import run

    asked = _slow_compile(monkeypatch, 3.0)
    game = make_game(3, 3)
    b = run(game, "rc", use_cache=False, rc_seeds=0)
    assert asked == [Kernels((("table", False),), ("growth",))]
    assert b.result["seconds"] < 3.0
    from evo.baselines.builders import kernels_needed

    monkeypatch.setattr("evo.core.engine.DEFAULT", "numpy")
    assert kernels_needed(game, "knuth") is None
    assert kernels_needed(game, "optimal").families == ("growth", "search")  # type: ignore[union-attr]


@pytest.mark.slow
def test_bound_seconds_start_after_compiling(monkeypatch):
    """``bound --seconds``: its kernels compiled, then its clock."""
    from evo.proofs.refine import lower_bound

    asked = _slow_compile(monkeypatch, 3.0)
    b = lower_bound(make_game(3, 3), depth=1)
    assert asked == [Kernels((("table", False),), ("growth", "search"))]
    assert b.seconds < 3.0


@pytest.mark.heavy  # its worker compiles from an empty cache
def test_a_fresh_dask_worker_compiles_before_its_first_task(tmp_path):
    """A Dask worker on a machine without evo's kernels (here: a numba cache of its own)
    compiles them when the client prepares it, before any task, and says so; then its
    tasks find them compiled. One already prepared compiles nothing."""
    from distributed import Client, LocalCluster

    from evo.search.kernels import is_compiled, prepare_workers

    need = Kernels((("table", False),), ("growth",))
    env = {"NUMBA_CACHE_DIR": str(tmp_path / "numba")}
    with (
        LocalCluster(
            n_workers=1, threads_per_worker=1, env=env, dashboard_address=":0", silence_logs=40
        ) as cluster,
        Client(cluster) as client,
    ):
        said: list[str] = []
        assert list(client.run(is_compiled, ("table", False), "growth").values()) == [False]
        prepare_workers(client, need, say=said.append)
        assert len(said) == 1 and "the Dask workers compile evo's kernels" in said[0], said
        assert client.submit(is_compiled, ("table", False), "growth").result() is True
        said.clear()
        prepare_workers(client, need, say=said.append)
        assert said == []


@pytest.mark.slow
def test_evo_populations_time_does_not_count_compiling(monkeypatch):
    """``evo population`` times the growth: its kernels are compiled before."""
    from click.testing import CliRunner

    from evo.cli import main

    asked = _slow_compile(monkeypatch, 3.0)
    out = CliRunner().invoke(main, ["population", "-n", "3", "-c", "3", "-s", "20", "--json"])
    assert out.exit_code == 0, out.output
    assert asked == [Kernels((("table", False),), ("growth",))]
    assert json.loads(out.output)["seconds"] < 3.0


def _compile_nothing(monkeypatch, caplog) -> list[str]:
    """``ensure_compiled`` made to find nothing compiled and to compile nothing: returns
    the log of what it did, the ``evo`` logger's records as the compiling starts."""
    events: list[str] = []
    monkeypatch.setattr(kernels, "is_compiled", lambda kind, family: False)

    def children(commands):
        events.append("started after: " + " | ".join(r.getMessage() for r in caplog.records))

    monkeypatch.setattr(kernels, "_run_children", children)
    return events


def test_python_is_told_through_the_evo_logger_before_a_compile(monkeypatch, caplog):
    """In Python (no ``say``: no command line prints it), compiling is announced as a
    warning on the ``evo`` logger before it starts, with its estimate; a ``say`` (the
    command line's line on standard error) is told it too, the logger then at INFO.
    A first ``evo.baseline`` on a custom game compiled 29.5 s without a word."""
    import logging

    caplog.set_level(logging.INFO, logger="evo")
    events = _compile_nothing(monkeypatch, caplog)
    need = Kernels((("table", False),), ("growth", "lookahead"))
    ensure_compiled(need)
    (first, *_), done = caplog.records, caplog.records[-1]
    assert first.name == "evo" and first.levelno == logging.WARNING
    assert "compiling evo's kernels (growth, lookahead)" in first.getMessage()
    assert " s" in first.getMessage() and "about " in first.getMessage()
    assert events and "compiling evo's kernels" in events[0]  # said before it started
    assert done.getMessage().startswith("evo's kernels compiled in")
    caplog.clear()
    said: list[str] = []
    ensure_compiled(need, say=said.append)
    assert len(said) == 2 and "compiling evo's kernels" in said[0]
    assert [r.levelno for r in caplog.records] == [logging.INFO, logging.INFO]


def test_the_estimate_holds_under_load(monkeypatch, caplog):
    """Other work on the cores slows the compiling processes: the estimate grows as the
    cores are shared, session by session as Linux shares them (a first run said about 51 s
    and took 187 s beside three other jobs, niced but in sessions of their own), and says
    what it would be on a quiet machine."""
    import logging
    import re

    caplog.set_level(logging.INFO, logger="evo")
    _compile_nothing(monkeypatch, caplog)
    monkeypatch.setattr(kernels, "can_share_cache", lambda: False)  # one process: no plan
    monkeypatch.setattr(os, "cpu_count", lambda: 2)
    monkeypatch.setattr(os, "getloadavg", lambda: (5.0, 5.0, 5.0))
    need = Kernels((("table", False),), ("growth",))
    mine = kernels._MY_GROUP
    cases = [
        ({}, 1.0),  # a quiet machine
        ({"a": 5.0}, 1.0),  # one other session, however busy, leaves the other core
        ({"a": 1.0, "b": 1.0, "c": 1.0}, 2.0),  # three others: half a core each, and this
        ({mine: 3.0}, 2.0),  # three more of this session: the two cores over four
        ({"a": 0.5}, 1.0),  # what another leaves goes to the others
        (None, 3.0),  # no /proc: the load average, each a session: 2 cores over 6
    ]
    seconds = []
    for others, factor in cases:
        monkeypatch.setattr(kernels, "_competitors", lambda o=others: None if o is None else {**o})
        caplog.clear()
        ensure_compiled(need)
        line = caplog.records[0].getMessage()
        seconds.append(float(re.search(r"about (\d+) s", line).group(1)))  # type: ignore[union-attr]
        assert seconds[-1] == pytest.approx(seconds[0] * factor, abs=1), (others, line)
        assert ("when quiet" in line) == (factor > 1.2), line
    monkeypatch.undo()
    seen = kernels._competitors(samples=2, every=0.01)  # read from the machine
    assert seen is not None and all(v >= 0 for v in seen.values())


def test_fair_shares_fill_each_group_to_its_need():
    shares = kernels._fair_shares
    assert shares([2.0, 8.0], 2.0) == [1.0, 1.0]
    assert shares([2.0, 0.5], 2.0) == [1.5, 0.5]
    assert shares([1.0, 1.0, 1.0, 1.0], 2.0) == [0.5] * 4
    assert shares([0.5, 0.25], 2.0) == [0.5, 0.25]  # more cores than wanted
    assert shares([0.0, 3.0], 2.0) == [0.0, 2.0]
