"""The kernels are compiled before a run's clock starts: once per machine, said in one
line, and every kernel a run calls is among them (numba saves nothing new in the run)."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from support.processes import run_or_dump

from evo.core.custom import custom_game
from evo.core.game import make_game
from evo.runs.compiled import PROFILES, ensure_compiled, marker, profile

ROOT = Path(__file__).resolve().parent.parent


def test_profiles_follow_the_game():
    assert profile(make_game(4, 6)) == ("table", False)
    assert profile(make_game(4, 6, table=False))[0] == "packed"
    assert set(PROFILES) == {(t, b) for t in ("table", "packed") for b in (True, False)}
    pets = custom_game(["ant", "bug", "cat"], lambda g, s: len(set(g) & set(s)), name="pets")
    assert profile(pets) == ("table", False)  # a symmetric feedback reads one table
    hints = custom_game(["ab", "ba", "bb"], lambda g, s: (g == s, g[0] in s), name="hints")
    assert profile(hints) == ("pair", False)  # ab answers bb (False, False), bb answers ab not


def test_the_marker_changes_with_the_cache_and_tells_compiled(tmp_path, monkeypatch):
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path))
    kind = profile(make_game(4, 6))
    path = marker(kind)
    assert path.parent == tmp_path and "table-whole" in path.name
    assert marker(("packed", True)) != path
    path.write_text("compiled\n")
    said: list[str] = []
    assert ensure_compiled(make_game(4, 6), say=said.append) == 0.0 and said == []


@pytest.mark.slow
def test_a_fresh_machine_compiles_once_and_the_run_compiles_nothing(tmp_path):
    """A fresh numba cache: the first run says it compiles (once), and the run then
    loads every kernel it calls from the cache (numba's 'data saved' never appears)."""
    env = {**os.environ, "NUMBA_CACHE_DIR": str(tmp_path / "numba"), "EVO_CACHE": str(tmp_path)}
    evo = [str(Path(sys.executable).parent / "evo")]
    args = [*evo, "run", str(ROOT / "configs/quick.yaml"), "--runs", str(tmp_path / "runs")]
    args += ["--set", "stop.seconds=2", "-q", "--no-report"]
    first = run_or_dump(args, env=env, timeout=1200)
    assert first.returncode == 0, first.stderr
    assert first.stderr.count("compiling evo's kernels") == 1, first.stderr
    assert "kernels compiled in" in first.stderr
    again = run_or_dump(args, env={**env, "NUMBA_DEBUG_CACHE": "1"}, timeout=600)
    assert again.returncode == 0, again.stderr
    assert "compiling" not in again.stderr
    assert "data loaded" in again.stdout  # the debug output is there to be read
    saved = [line for line in again.stdout.splitlines() if "data saved" in line]
    assert saved == [], saved[:5]
