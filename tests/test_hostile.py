"""Trust, second round: what a hostile user tried on the run driver and the cluster, each
case numbered as in the issue that reported it (the explorer, names, formats and the
caches are tested in test_explore.py, test_cli_messages.py, test_render.py and
test_table_cache.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

from evo.cli import main
from evo.config import load_config
from evo.runs.driver import RunInterrupted, run_config
from evo.runs.rundir import CONFIG, LOGBOOK, create_run_dir, load_run, write_config

ROOT = Path(__file__).resolve().parent.parent

#: A small island run: (3,3) Mastermind, 2 islands of 8.
ISLANDS = {
    "name": "isl",
    "game": {"pegs": 3, "colors": 3},
    "population": {"size": 8},
    "stop": {"generations": 4},
    "islands": {"count": 2, "migration": {"interval": 2}},
}
SINGLE = {**ISLANDS, "name": "one", "islands": {"count": 1}}


def evo(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def _dask(*args: str) -> list[str]:
    return [str(Path(sys.executable).parent / "dask"), *args]


@pytest.fixture
def empty_scheduler(tmp_path):
    """A `dask scheduler` on 127.0.0.1 with no worker: its address."""
    file = tmp_path / "scheduler.json"
    proc = subprocess.Popen(
        _dask("scheduler", "--host", "127.0.0.1", "--port", "0", "--no-dashboard",
              "--scheduler-file", str(file)),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + 60
        while not file.exists() or not file.read_text().strip():
            assert time.monotonic() < deadline, "the scheduler did not start in 60 s"
            time.sleep(0.2)
        yield json.loads(file.read_text())["address"]
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()


# ------------------------------------------- 1. a scheduler with no workers
def test_1_a_scheduler_without_workers_is_refused_after_cluster_wait(tmp_path, empty_scheduler):
    runs = tmp_path / "runs"
    args = ["run", ROOT / "configs/islands-4-6.yaml", "--runs", runs, "-q"]
    args += ["--set", "game.pegs=3", "--set", "game.colors=3", "--set", "stop.seconds=8"]
    args += ["--scheduler", empty_scheduler]
    t0 = time.monotonic()
    out = evo(*args, "--set", "cluster.wait=1")
    took = time.monotonic() - t0
    assert out.exit_code == 2, out.output
    (line,) = out.output.strip().splitlines()
    assert "has no worker" in line and "cluster.wait" in line and empty_scheduler in line
    assert took < 9  # waited 1 s for a worker, not the default 10
    assert not runs.exists() or not any(runs.iterdir())


@pytest.mark.slow
def test_1_the_time_limit_holds_from_the_first_task_and_the_run_can_be_resumed(
    tmp_path, empty_scheduler, capfd
):
    cfg = load_config(ISLANDS, ["stop.generations=null", "stop.seconds=3"])
    cfg = load_config(cfg.model_dump(mode="json"), [f"cluster.address={empty_scheduler}"])
    run_dir = create_run_dir(cfg, root=tmp_path)
    t0 = time.monotonic()
    with pytest.raises(RunInterrupted) as stop:
        run_config(cfg, run_dir=run_dir, progress=False, knuth=False)
    assert time.monotonic() - t0 < 30  # it used to wait for ever
    assert stop.value.generation == -1 and "before the first population" in stop.value.reason
    assert "Task exception was never retrieved" not in capfd.readouterr().err
    # the directory is a started run: resumed (here, in process), it runs
    resumed = ["cluster.address=null", "stop.seconds=60", "stop.generations=2"]
    again = load_config(cfg.model_dump(mode="json"), resumed)
    write_config(run_dir, again)
    result = run_config(again, run_dir=run_dir, resume=True, progress=False, knuth=False)
    assert result.summary["status"] == "finished" and load_run(run_dir).finished


@pytest.mark.slow
def test_1_sigterm_during_an_island_run_on_dask_prints_one_line(tmp_path):
    runs = tmp_path / "runs"
    cmd = [str(Path(sys.executable).parent / "evo"), "run", str(ROOT / "configs/islands-4-6.yaml")]
    cmd += ["--set", "game.pegs=3", "--set", "game.colors=4", "--set", "stop.target_total=null"]
    cmd += ["--set", "stop.seconds=120", "--set", "workers=2", "--runs", str(runs), "-q"]
    proc = subprocess.Popen(
        cmd + ["--no-report"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.monotonic() + 90
    while not list(runs.glob("*/islands/current.json")):
        assert time.monotonic() < deadline and proc.poll() is None, proc.communicate()
        time.sleep(0.3)
    proc.send_signal(signal.SIGTERM)
    out, err = proc.communicate(timeout=90)
    assert proc.returncode == 128 + signal.SIGTERM, err
    lines = [x for x in err.splitlines() if not x.startswith(("run directory:", "Dask dashboard"))]
    assert len(lines) == 1 and "interrupted by SIGTERM" in lines[0], err
    (run_dir,) = runs.iterdir()
    assert evo("resume", run_dir, "-q", "--no-report", "--set", "stop.seconds=1").exit_code == 0


# ------------------------------------------------ 5. schemes not usable here
@pytest.mark.parametrize("address", ["ucx://127.0.0.1:1", "tls://127.0.0.1:1", "inproc://x"])
def test_5_a_scheme_this_installation_cannot_use_is_one_line(tmp_path, address):
    out = evo("run", ROOT / "configs/islands-4-6.yaml", "--runs", tmp_path, "--scheduler", address)
    assert out.exit_code == 2, out.output
    (line,) = out.output.strip().splitlines()
    assert address in line and "(supported: tcp://, ws://, wss://)" in line
    assert "Traceback" not in out.output


# ------------------------------------------ 6. a refused resume changes nothing
def test_6_a_refused_resume_leaves_the_run_as_it_was(tmp_path):
    cfg = load_config(SINGLE)
    run_dir = create_run_dir(cfg, root=tmp_path)
    run_config(cfg, run_dir=run_dir, progress=False, knuth=False)
    text = (run_dir / CONFIG).read_text().replace("colors: 3", "colors: 4")  # edited game
    (run_dir / CONFIG).write_text(text)
    before = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()}
    out = evo("resume", run_dir, "--set", "stop.generations=5", "-q", "--no-report")
    assert out.exit_code == 2 and "game.colors" in out.output, out.output
    after = {p.name: p.read_bytes() for p in run_dir.iterdir() if p.is_file()}
    assert after == before


def test_6_an_accepted_resume_saves_its_extension(tmp_path):
    cfg = load_config(SINGLE)
    run_dir = create_run_dir(cfg, root=tmp_path)
    run_config(cfg, run_dir=run_dir, progress=False, knuth=False)
    assert evo("resume", run_dir, "--set", "stop.generations=6", "-q", "--no-report").exit_code == 0
    assert load_run(run_dir).config.stop.generations == 6
    assert len(load_run(run_dir).logbook) == 7


# ------------------------------------------- 7. nothing to resume: refused
@pytest.mark.parametrize("data", [SINGLE, ISLANDS], ids=["single", "islands"])
def test_7_a_folder_with_a_config_alone_is_not_resumed(tmp_path, data):
    run_dir = create_run_dir(load_config(data), root=tmp_path)
    out = evo("resume", run_dir, "-q", "--no-report")
    assert out.exit_code == 2, out.output
    (line,) = out.output.strip().splitlines()
    assert "nothing to resume" in line and "evo run" in line
    assert sorted(p.name for p in run_dir.iterdir()) == ["config.yaml"]  # no lock left


@pytest.mark.parametrize("data", [SINGLE, ISLANDS], ids=["single", "islands"])
def test_7_a_run_stopped_before_its_first_checkpoint_starts_again(tmp_path, data):
    cfg = load_config(data)
    run_dir = create_run_dir(cfg, root=tmp_path)
    (run_dir / LOGBOOK).write_text("")  # what a run leaves when killed in its first population
    out = evo("resume", run_dir, "-q", "--no-report")
    assert out.exit_code == 0, out.output
    assert load_run(run_dir).finished and len(load_run(run_dir).logbook) == 5


# ----------------------------------------------------------- 10. resource caps
@pytest.mark.slow
def test_10_a_local_cluster_or_pool_larger_than_the_cores_is_capped_and_said(tmp_path):
    cores = os.cpu_count() or 1
    cfg = load_config(SINGLE, ["workers=64", "stop.generations=2"])
    script = (
        "from evo.config import load_config; from evo.runs.driver import run_config; "
        f"cfg = load_config({cfg.model_dump(mode='json')!r}); "
        "print(run_config(cfg, progress=False, knuth=False).summary['workers'])"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == str(cores)
    assert (
        f"64 worker processes asked, this machine has {cores} cores: running {cores}" in out.stderr
    )
    same = run_config(load_config(SINGLE, ["stop.generations=2"]), progress=False, knuth=False)
    assert out.stdout.strip() and same.state.logbook  # the result does not depend on it


@pytest.mark.slow
def test_10_islands_on_a_local_cluster_are_capped_too(tmp_path, capfd):
    cores = os.cpu_count() or 1
    cfg = load_config(ISLANDS, ["islands.count=6", "cluster.workers=1024", "stop.generations=2"])
    result = run_config(cfg, progress=False, knuth=False)
    assert result.summary["islands"] == 6
    err = capfd.readouterr().err
    assert f"6 worker processes asked, this machine has {cores} cores" in err


# ------------------------------------------------- files that are not files
@pytest.mark.parametrize("command", ["run", "render", "table", "config"])
def test_a_fifo_given_as_a_config_or_tree_file_is_one_line_not_a_hang(tmp_path, command):
    fifo = tmp_path / ("given.yaml" if command in ("run", "config") else "given.json")
    os.mkfifo(fifo)
    args = ["show", fifo] if command == "config" else [fifo]
    script = "from evo.cli import main; main()"
    done = subprocess.run(
        [sys.executable, "-c", script, command, *map(str, args)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        timeout=60,
    )
    assert done.returncode == 2, done.stderr
    (line,) = done.stderr.strip().splitlines()
    assert "not a regular file" in line and str(fifo) in line


def test_8_a_run_directory_with_control_characters_is_printed_escaped(tmp_path):
    config = tmp_path / "c.yaml"
    config.write_text(json.dumps({**SINGLE, "stop": {"generations": 1}}))
    runs = tmp_path / "a\x1b[2Jb"
    out = evo("run", config, "--runs", runs, "-q", "--no-report")
    assert out.exit_code == 0, out.output
    assert "\x1b" not in out.output and "a\\x1b[2Jb" in out.output
