"""A run killed with SIGKILL at random moments, resumed each time, ends with the same
logbook as a run never interrupted, record for record, and leaves no temporary file.

The run is set far longer than the kills last, so that every kill lands while a process
runs however fast the machine; the last resume then sets the end a little past the
generation reached, and the uninterrupted run is computed with that same end."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from evo.config import load_config
from evo.runs.driver import run_config
from evo.runs.rundir import create_run_dir, load_run, write_logbook

ROOT = Path(__file__).resolve().parent.parent

#: A tiny game, a checkpoint every generation: kills land in every phase of a generation
#: (breeding, checkpoint, logbook, best breaker, summary), and at start-up.
DATA = {
    "name": "kill",
    "seed": 11,
    "game": {"pegs": 3, "colors": 3},
    "population": {"size": 12},
    "stop": {"generations": 100_000},
    "mutation": {"rate": 0.8, "operators": [{"kind": "regrow"}, {"kind": "best-of-k", "k": 2}]},
    "checkpoint_interval": 1,
}

KILLS = 20


def resume(run_dir: Path, *sets: str) -> subprocess.Popen:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, "-c", "from evo.cli import main; main(prog_name='evo')"]
        + ["resume", str(run_dir), "-q", "--no-report"]
        + [arg for value in sets for arg in ("--set", value)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )


def first_generation_after(run_dir: Path) -> float:
    """Seconds from a resume's launch to its first logged generation (then killed): the
    machine's start-up time, which the kill moments are scaled to."""
    start = time.monotonic()
    proc = resume(run_dir)
    while not load_run(run_dir).logbook:
        assert proc.poll() is None, proc.communicate()[1]
        assert time.monotonic() - start < 60
        time.sleep(0.02)
    proc.send_signal(signal.SIGKILL)
    proc.communicate(timeout=60)
    return time.monotonic() - start


@pytest.mark.slow
def test_sigkill_at_random_moments_then_resume_gives_the_uninterrupted_logbook(tmp_path):
    cfg = load_config(DATA)
    run_dir = create_run_dir(cfg, root=tmp_path)
    write_logbook(run_dir, [])  # a run killed in its first population: `evo resume` starts it
    startup = first_generation_after(run_dir)
    # before start-up ends, around the first generations, and well into the run
    scales = [0.1, 0.5, 0.9, 1.05, 1.2, 1.5, 2.0]
    moments = [startup * k for k in random.Random(1).choices(scales, k=KILLS)]
    killed = 0
    for delay in moments:
        proc = resume(run_dir)
        time.sleep(delay + random.Random(killed).random() * 0.2)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed += 1
        _, err = proc.communicate(timeout=60)
        assert proc.returncode in (0, -signal.SIGKILL), err
    assert killed == KILLS  # the run cannot end during the kills: each landed on a live process
    reached = len(load_run(run_dir).logbook)
    end = reached + 20
    proc = resume(run_dir, f"stop.generations={end}")
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    whole_cfg = load_config({**DATA, "stop": {"generations": end}})
    whole = [dict(r) for r in run_config(whole_cfg, progress=False, knuth=False).state.logbook]
    run = load_run(run_dir)
    assert run.logbook == whole
    assert run.status == "finished" and run.summary["generations"] == end
    assert run.best.total == run.summary["best_total"] == min(r["min"] for r in whole)
    assert not list(run_dir.rglob("*.tmp"))
