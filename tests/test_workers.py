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
