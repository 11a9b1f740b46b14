"""A run killed with SIGKILL at random moments, resumed each time, ends with the same
logbook as a run never interrupted, record for record, and leaves no temporary file."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

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
    "stop": {"generations": 150},
    "mutation": {"rate": 0.8, "operators": [{"kind": "regrow"}, {"kind": "best-of-k", "k": 2}]},
    "checkpoint_interval": 1,
}

KILLS = 20


def resume(run_dir: Path) -> subprocess.Popen:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, "-c", "from evo.cli import main; main(prog_name='evo')"]
        + ["resume", str(run_dir), "-q", "--no-report"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        env=env,
    )


def test_sigkill_at_random_moments_then_resume_gives_the_uninterrupted_logbook(tmp_path):
    cfg = load_config(DATA)
    whole = [dict(r) for r in run_config(cfg, progress=False, knuth=False).state.logbook]
    run_dir = create_run_dir(cfg, root=tmp_path)
    write_logbook(run_dir, [])  # a run killed in its first population: `evo resume` starts it
    moments = random.Random(1).choices([0.05, 0.3, 0.6, 0.9, 1.2, 1.5], k=KILLS)
    killed = 0
    for delay in moments:
        proc = resume(run_dir)
        time.sleep(delay + random.Random(killed).random() * 0.2)
        if proc.poll() is None:
            proc.send_signal(signal.SIGKILL)
            killed += 1
        _, err = proc.communicate(timeout=60)
        assert proc.returncode in (0, -signal.SIGKILL), err
    proc = resume(run_dir)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 0, err
    assert killed >= KILLS // 2  # most kills landed while a process was running
    run = load_run(run_dir)
    assert run.logbook == whole
    assert run.status == "finished" and run.summary["generations"] == 150
    assert run.best.total == run.summary["best_total"] == min(r["min"] for r in whole)
    assert not list(run_dir.rglob("*.tmp"))
