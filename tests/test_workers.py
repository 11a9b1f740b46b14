"""The worker processes end when told, whatever each is doing: none is waited on for ever."""

from __future__ import annotations

import os
import re
import sys
from pathlib import Path

import pytest
from support.processes import run_or_dump

TESTS = Path(__file__).resolve().parent


def _script(*args: str, timeout: float):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(TESTS), str(TESTS.parent)])}
    return run_or_dump(
        [sys.executable, str(TESTS / "support/pool_stress.py"), *args], env=env, timeout=timeout
    )


def test_a_worker_that_dies_holding_its_queues_locks_does_not_hang_the_run():
    """multiprocessing.Pool waited for ever on a lock a killed worker held (CPython issue
    96995: a run cut by stop.seconds hung in CI); the worker processes share no lock."""
    out = _script("die", timeout=120)
    assert out.returncode == 0, out.stderr
    assert "lost: a worker process died" in out.stdout and "ended" in out.stdout, out.stdout


@pytest.mark.slow
def test_generations_cut_while_the_pipes_are_full_end_at_once():
    out = _script("cut", "12", timeout=300)
    assert out.returncode == 0, out.stderr
    seconds = [float(s) for s in re.findall(r"round \d+: ([\d.]+) s", out.stdout)]
    assert len(seconds) == 12 and max(seconds) < 60, out.stdout


def _run_from(folder: Path, *sets: str) -> object:
    """``evo run`` (the installed command) of a tiny config with 2 worker processes,
    started from ``folder``."""
    evo = str(Path(sys.executable).parent / "evo")
    args = [evo, "run", str(TESTS.parent / "configs/mastermind-3-3.yaml"), "-q", "--no-report"]
    args += ["--runs", str(folder / "runs"), "--set", "workers=2", "--set", "stop.generations=2"]
    for s in sets:
        args += ["--set", s]
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return run_or_dump(args, env=env, timeout=600, cwd=folder)


@pytest.mark.slow
def test_workers_import_the_runs_evo_whatever_the_current_folder(tmp_path):
    """The fork server that starts the workers put the current folder first on its path:
    run from a folder with an evo/ of its own (a checkout of another version, or a stray
    folder), the workers imported that one, and the run failed blaming "out of memory"
    (or, with another version, its workers did nothing). They import the run's evo."""
    (tmp_path / "evo").mkdir()
    (tmp_path / "evo" / "__init__.py").write_text('"""A stray evo: another version, or none."""\n')
    out = _run_from(tmp_path)
    assert out.returncode == 0, out.stderr
    assert re.search(r"generations +2 \(stopped by generations\)", out.stdout), out.stdout


def test_a_worker_that_imports_another_evo_says_so(monkeypatch):
    """Were a worker to import another evo than its parent (a fork server started by
    other code from another folder), it says so instead of running it."""
    from evo.config import load_config
    from evo.core.game import make_game
    from evo.ea import workers
    from evo.ea.toolbox import build_toolbox

    cfg = load_config(
        {"game": {"pegs": 3, "colors": 3}, "population": {"size": 4}, "workers": 2}, []
    )
    tb = build_toolbox(cfg, make_game(3, 3))
    monkeypatch.setattr(workers, "evo_folder", lambda: "/elsewhere/evo")  # the parent's, as told
    with pytest.raises(workers.WrongEvo, match="imported evo from .* not from /elsewhere/evo"):
        with workers.worker_pool(cfg, tb):
            pass
