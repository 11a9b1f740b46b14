"""Trust (the cases of the "runs that survive anything" issue, by number): run directories
cannot run code, one writer per run, signals checkpoint, interrupted runs can be looked
at and extended, user errors are one line with exit status 2 and come before the run
directory exists, write errors keep the last checkpoint, the baseline cache is checked."""

from __future__ import annotations

import errno
import json
import os
import pickle
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from click.testing import CliRunner

import evo.config as config_module
import evo.core.files as files_module
from evo.baselines import cache, cache_key, knuth_total
from evo.baselines import run as run_baseline
from evo.cli import main
from evo.config import load_config
from evo.core.files import cache_dir
from evo.core.game import make_game
from evo.core.treeio import save_tree
from evo.runs.checkpoint import (
    CheckpointError,
    CheckpointWriteError,
    load_checkpoint,
    read_document,
)
from evo.runs.driver import run_config
from evo.runs.rundir import (
    CHECKPOINT,
    LOCK,
    OLD_CHECKPOINT,
    RunLockedError,
    create_run_dir,
    is_locked,
    load_run,
    lock_run,
)

ROOT = Path(__file__).resolve().parent.parent

SMALL = {
    "name": "t",
    "seed": 4,
    "game": {"pegs": 3, "colors": 3},
    "population": {"size": 10},
    "stop": {"generations": 4},
    "mutation": {"rate": 0.8, "operators": [{"kind": "regrow"}]},
    "checkpoint_interval": 2,
}


def config(*overrides, data=SMALL):
    return load_config(data, list(overrides))


def evo(*args: str, env: dict | None = None):
    """``evo ARGS`` in this process."""
    return CliRunner().invoke(main, [str(a) for a in args], env=env)


def assert_one_line_error(res, *needles: str) -> str:
    """Exit status 2, no traceback, one line on standard error naming what is wrong."""
    assert res.exit_code == 2, (res.exit_code, res.output, res.exception)
    assert isinstance(res.exception, SystemExit), res.exception
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("Error: ")
    assert "Traceback" not in res.output
    for needle in needles:
        assert needle in lines[0], lines[0]
    return lines[0]


class Stop(Exception):
    pass


def stop_after(gen):
    def hook(g, pop, logbook):
        if g == gen:
            raise Stop

    return hook


def interrupted_run(tmp_path, gens=10, at=5):
    cfg = config(f"stop.generations={gens}")
    run_dir = create_run_dir(cfg, root=tmp_path / "runs")
    with pytest.raises(Stop):
        run_config(cfg, run_dir=run_dir, progress=False, knuth=False, on_generation=stop_after(at))
    return cfg, run_dir


def logbook_of(cfg):
    return [dict(r) for r in run_config(cfg, progress=False, knuth=False).state.logbook]


def evo_process(*args: str, cwd: Path) -> subprocess.Popen:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.Popen(
        [sys.executable, "-c", "from evo.cli import main; main(prog_name='evo')", *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        cwd=cwd,
        env=env,
    )


def wait_for(predicate, timeout=300.0):
    """Whether ``predicate`` holds within ``timeout`` seconds (a loaded machine may keep a
    process seconds from its first generation: 60 s was once too few under xdist)."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return True
        time.sleep(0.02)
    return False


def logged(run_dir: Path) -> int:
    try:
        return len(load_run(run_dir).logbook)
    except Exception:  # noqa: BLE001 - a file being written
        return 0


# ------------------------------------------------- 1. a run directory runs no code
class Payload:
    """Unpickling this creates ``path``."""

    def __init__(self, path):
        self.path = str(path)

    def __reduce__(self):
        return (open, (self.path, "w"))


def test_1_a_planted_pickle_checkpoint_is_refused_and_never_run(tmp_path):
    cfg, run_dir = interrupted_run(tmp_path)
    (run_dir / CHECKPOINT).unlink()
    marker = tmp_path / "created-by-the-pickle"
    (run_dir / OLD_CHECKPOINT).write_bytes(pickle.dumps(Payload(marker)))
    res = evo("resume", run_dir, "-q", "--no-report")
    assert_one_line_error(res, "checkpoint.pkl", "pickle", "not loaded")
    assert not marker.exists()
    (run_dir / CHECKPOINT).write_bytes(pickle.dumps(Payload(marker)))  # under the new name
    assert_one_line_error(evo("resume", run_dir, "-q", "--no-report"), "pickle")
    assert not marker.exists()


# ------------------------------------------------------- 2. one writer per run
def test_2_a_second_writer_is_refused_with_the_holders_pid_and_host(tmp_path):
    _, run_dir = interrupted_run(tmp_path)
    holder = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys, time\n"
            "from evo.runs.rundir import lock_run\n"
            "with lock_run(sys.argv[1]):\n"
            "    print('locked', flush=True)\n"
            "    time.sleep(60)\n",
            str(run_dir),
        ],
        stdout=subprocess.PIPE,
        text=True,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    try:
        assert holder.stdout is not None and holder.stdout.readline().strip() == "locked"
        assert is_locked(run_dir) and load_run(run_dir).status == "running"
        t0 = time.perf_counter()
        res = evo("resume", run_dir, "-q", "--no-report")
        assert time.perf_counter() - t0 < 10  # at once, not after waiting
        assert_one_line_error(res, f"process {holder.pid}", os.uname().nodename)
        with pytest.raises(RunLockedError, match=str(holder.pid)):
            run_config(load_run(run_dir).config, run_dir=run_dir, resume=True, progress=False)
    finally:
        holder.kill()
        holder.wait()
    assert not is_locked(run_dir) and load_run(run_dir).status == "interrupted"
    assert evo("resume", run_dir, "-q", "--no-report").exit_code == 0


def test_2_two_resumes_at_once_one_is_refused(tmp_path):
    cfg = config("stop.generations=1", "checkpoint_interval=1")
    run_dir = create_run_dir(cfg, root=tmp_path / "runs")
    run_config(cfg, run_dir=run_dir, progress=False, knuth=False)
    longer = ("--set", "stop.generations=100000", "-q", "--no-report")
    first = evo_process("resume", str(run_dir), *longer, cwd=tmp_path)
    try:
        assert wait_for(lambda: logged(run_dir) >= 3)
        second = evo_process("resume", str(run_dir), *longer, cwd=tmp_path)
        out, err = second.communicate(timeout=60)
        assert second.returncode == 2, err
        assert f"process {first.pid}" in err and len(err.strip().splitlines()) == 1
    finally:
        first.send_signal(signal.SIGTERM)
        first.communicate(timeout=60)
    gens = [r["gen"] for r in load_run(run_dir).logbook]
    assert gens == list(range(len(gens)))  # one writer: no duplicate, in order


# ---------------------------------------------------- 3. SIGTERM and SIGHUP
@pytest.mark.parametrize("sig", [signal.SIGTERM, signal.SIGHUP], ids=["TERM", "HUP"])
def test_3_a_signal_checkpoints_and_says_how_to_resume(tmp_path, sig):
    data = {**SMALL, "stop": {"generations": 400}, "checkpoint_interval": 50}
    path = tmp_path / "c.yaml"
    path.write_text(json.dumps(data))
    runs = tmp_path / "runs"
    proc = evo_process("run", str(path), "--runs", str(runs), "-q", "--no-report", cwd=tmp_path)
    assert wait_for(lambda: any(logged(d) >= 1 for d in runs.glob("t-*")))
    (run_dir,) = runs.glob("t-*")
    time.sleep(0.3)  # some generations after the first checkpoint
    proc.send_signal(sig)
    out, err = proc.communicate(timeout=60)
    if proc.returncode == 0:
        pytest.skip("the run ended before the signal came")
    assert proc.returncode == 128 + sig, err
    (line,) = err.strip().splitlines()[-1:]
    assert signal.Signals(sig).name in line and f"evo resume {run_dir}" in line
    done = read_document(run_dir / CHECKPOINT)["generation"]
    assert done >= 1  # the generation under way when the signal came, finished
    assert logged(run_dir) == done + 1
    summary = load_run(run_dir).summary
    assert summary["status"] == "interrupted" and summary["generations"] == done
    res = evo("resume", run_dir, "-q", "--no-report", "--set", f"stop.generations={done + 3}")
    assert res.exit_code == 0, res.output
    assert load_run(run_dir).logbook == logbook_of(
        load_config(data, [f"stop.generations={done + 3}"])
    )


# ------------------------------------------- 4. an interrupted run can be looked at
def test_4_best_and_summary_are_written_at_every_checkpoint(tmp_path):
    cfg, run_dir = interrupted_run(tmp_path, gens=10, at=5)
    run = load_run(run_dir)
    assert run.status == "interrupted" and not run.finished
    assert run.summary["generations"] == 4  # the checkpoint of generation 4
    assert run.summary["best_total"] == run.best.total == min(r["min"] for r in run.logbook[:5])
    assert len(run.logbook) == 5


def test_4_report_table_render_compare_play_work_on_an_interrupted_run(tmp_path):
    _, run_dir = interrupted_run(tmp_path, gens=10, at=5)
    res = evo("report", run_dir)
    assert res.exit_code == 0, res.output
    assert "interrupted (as of generation 4)" in (run_dir / "report.md").read_text()
    assert evo("table", run_dir / "best.json").exit_code == 0
    res = evo("render", run_dir, "-o", tmp_path / "best.svg")
    assert res.exit_code == 0, res.output
    assert evo("compare", run_dir, "-o", tmp_path / "compare.png").exit_code == 0
    best = load_run(run_dir).best
    secret = best.game.format_code(int(best.codes[0]))
    res = evo("play", run_dir, "--secret", secret)
    assert res.exit_code == 0, res.output


# ------------------------------------------------------ 5. extending a run
def test_5_resume_set_stop_extends_the_run(tmp_path):
    cfg = config("stop.generations=3")
    run_dir = create_run_dir(cfg, root=tmp_path / "runs")
    run_config(cfg, run_dir=run_dir, progress=False, knuth=False)
    res = evo("resume", run_dir, "-q", "--no-report", "--set", "stop.generations=6")
    assert res.exit_code == 0, res.output
    run = load_run(run_dir)
    assert run.config.stop.generations == 6 and run.summary["generations"] == 6
    assert run.logbook == logbook_of(config("stop.generations=6"))
    res = evo("resume", run_dir, "-q", "--no-report", "--set", "stop.seconds=30")
    assert res.exit_code == 0 and load_run(run_dir).config.stop.seconds == 30


def test_5_other_changes_are_refused_key_by_key(tmp_path):
    cfg = config("stop.generations=3")
    run_dir = create_run_dir(cfg, root=tmp_path / "runs")
    run_config(cfg, run_dir=run_dir, progress=False, knuth=False)
    before = (run_dir / "config.yaml").read_text()
    res = evo("resume", run_dir, "--set", "seed=9", "--set", "population.size=12")
    assert_one_line_error(res, "population.size, seed", "cannot change")
    assert (run_dir / "config.yaml").read_text() == before
    assert evo("resume", run_dir, "-q", "--no-report", "--set", "seed=4").exit_code == 0
    (run_dir / "config.yaml").write_text(before.replace("elitism: 1", "elitism: 2"))
    assert_one_line_error(evo("resume", run_dir, "-q"), "another config", "elitism differ")


# ------------------------------- 6. user errors: one line, exit 2, before the run
def run_refused(tmp_path, data, *overrides, needles=()):
    path = tmp_path / "c.yaml"
    path.write_text(json.dumps(data) if isinstance(data, dict) else data)
    args = ["run", path, "--runs", tmp_path / "runs", "-q", "--no-report"]
    for o in overrides:
        args += ["--set", o]
    line = assert_one_line_error(evo(*args), *needles)
    assert not (tmp_path / "runs").exists() or not list((tmp_path / "runs").iterdir())
    return line


def test_6_a_game_too_large_for_memory_is_refused_before_the_run(tmp_path):
    run_refused(tmp_path, SMALL, "population.size=1000000000", needles=("needs about",))


def test_6_a_negative_seed_is_refused(tmp_path):
    run_refused(tmp_path, SMALL, "seed=-1", needles=("seed",))
    assert_one_line_error(evo("population", "--seed", "-1", "-n", "2", "-c", "2"), "--seed")
    assert_one_line_error(evo("baselines", "--seed", "-3", "-n", "2", "-c", "2"), "--seed")


def test_6_an_unknown_baseline_is_refused_before_the_run(tmp_path):
    data = {**SMALL, "population": {"size": 10, "init": {"baselines": ["knuth", "nobody"]}}}
    run_refused(tmp_path, data, needles=("population.init.baselines.1", "nobody"))


def test_6_an_empty_config_is_refused(tmp_path):
    run_refused(tmp_path, "", needles=("is empty",))
    run_refused(tmp_path, "# nothing but a comment\n", needles=("is empty",))


def test_6_files_that_are_not_utf8_too_deep_too_big_or_self_referencing(tmp_path):
    path = tmp_path / "c.yaml"
    path.write_bytes(b"name: caf\xe9\n")
    run_refused(tmp_path, path.read_bytes().decode("latin-1").encode("latin-1").decode("latin-1"))
    path.write_bytes(b"name: caf\xe9\n")
    assert_one_line_error(evo("run", path), "not UTF-8")
    run_refused(tmp_path, "a: &x\n  b: *x\n", needles=("*x refers to the node that contains it",))
    run_refused(tmp_path, "a: " + "[" * 5000 + "]" * 5000, needles=("nested too deep",))
    laughs = "a: &a [1, 1, 1, 1, 1, 1, 1, 1, 1, 1]\n" + "".join(
        f"{c}: &{c} [{', '.join(['*' + p] * 10)}]\n" for p, c in zip("abcdefghi", "bcdefghij")
    )
    run_refused(tmp_path, laughs, needles=("YAML aliases", "more than 100,000"))
    run_refused(tmp_path, "name: x\n" + "#" * (2 << 20) + "\n", needles=("too big",))
    tree = tmp_path / "t.json"
    tree.write_text('{"format": "evo-breaker", "root": ' + "[" * 5000 + "]" * 5000 + "}")
    assert_one_line_error(evo("table", tree), "nested too deep")
    tree.write_bytes(b'{"format": "evo-breaker", "x": "\xff"}')
    assert_one_line_error(evo("table", tree), "not UTF-8")


def test_6_a_total_written_as_a_string_is_named(tmp_path, hand_tree):
    path = tmp_path / "t.json"
    save_tree(hand_tree, path)
    doc = json.loads(path.read_text())
    doc["summary"]["total"] = str(doc["summary"]["total"])
    path.write_text(json.dumps(doc))
    assert_one_line_error(evo("table", path), "summary.total should be a whole number, not '8'")


def test_6_a_bug_still_shows_its_traceback_and_debug_shows_user_errors_in_full(
    tmp_path, monkeypatch
):
    def broken(*args, **kwargs):
        raise ZeroDivisionError("a bug")

    path = tmp_path / "c.yaml"
    path.write_text(json.dumps(SMALL))
    monkeypatch.setattr(config_module, "load_config", broken)
    res = evo("run", path, "--runs", tmp_path / "runs")
    assert isinstance(res.exception, ZeroDivisionError)  # not swallowed as a user error
    monkeypatch.undo()
    path.write_text("seed: -1\n")
    res = evo("--debug", "run", path, "--runs", tmp_path / "runs")
    assert res.exit_code == 2 and "Traceback" in res.stderr
    res = evo("run", path, "--runs", tmp_path / "runs", env={"EVO_DEBUG": "1"})
    assert res.exit_code == 2 and "Traceback" in res.stderr
    assert_one_line_error(evo("run", path, "--runs", tmp_path / "runs"), "seed")


def test_6_usage_errors_are_one_line_too(tmp_path):
    assert_one_line_error(evo("population", "--size", "0"), "--size", "population --help")
    assert_one_line_error(evo("resume", tmp_path / "nowhere"), "not a run directory")


# ------------------------------------------------------- 7. write errors
def disk_full_after(monkeypatch, writes: int):
    """Every write through evo.core.files after the first ``writes`` fails with ENOSPC."""
    real = files_module._write
    count = {"n": 0}

    def write(f, data):
        count["n"] += 1
        if count["n"] > writes:
            f.write(data[: len(data) // 2])  # part of it reaches the disk first
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        real(f, data)

    monkeypatch.setattr(files_module, "_write", write)


def test_7_disk_full_keeps_the_last_checkpoint_and_no_temporary(tmp_path, monkeypatch):
    cfg = config("stop.generations=10", "checkpoint_interval=2")
    run_dir = create_run_dir(cfg, root=tmp_path)
    # the empty logbook of a started run; generation 0 writes checkpoint, best, summary;
    # generation 2 the same: 7 writes
    disk_full_after(monkeypatch, 7)
    with pytest.raises(CheckpointWriteError) as info:
        run_config(cfg, run_dir=run_dir, progress=False, knuth=False)
    message = str(info.value)
    assert "No space left on device" in message and "checkpoint.npz" in message
    assert "checkpoint of generation 2 is intact" in message and "evo resume" in message
    monkeypatch.undo()
    assert not list(run_dir.rglob("*.tmp"))
    assert load_checkpoint(run_dir / CHECKPOINT, cfg, make_game(3, 3)).generation == 2
    resumed = run_config(cfg, run_dir=run_dir, resume=True, progress=False, knuth=False)
    assert [dict(r) for r in resumed.state.logbook] == logbook_of(cfg)


def test_7_disk_full_on_the_command_line_is_one_line(tmp_path, monkeypatch):
    path = tmp_path / "c.yaml"
    path.write_text(json.dumps(SMALL))
    disk_full_after(monkeypatch, 4)
    res = evo("run", path, "--runs", tmp_path / "runs", "-q", "--no-report")
    assert res.exit_code == 2 and isinstance(res.exception, SystemExit)
    info, error = res.stderr.strip().splitlines()  # the run directory, then the error
    assert info.startswith("run directory:") and error.startswith("Error: ")
    assert "No space left on device" in error and "intact" in error


def test_7_temporaries_left_by_a_kill_are_removed_when_the_run_is_next_opened(tmp_path):
    cfg, run_dir = interrupted_run(tmp_path)
    left = [run_dir / ".checkpoint.npz.x1y2.tmp", run_dir / ".summary.json.abc.tmp"]
    for p in left:
        p.write_bytes(b"\0" * 1000)
    assert evo("resume", run_dir, "-q", "--no-report").exit_code == 0
    assert not any(p.exists() for p in left)
    assert not (run_dir / LOCK).exists()  # removed as the run is left (issue 66)


def test_7_a_failed_atomic_write_leaves_the_old_file(tmp_path, monkeypatch):
    target = tmp_path / "f.json"
    files_module.atomic_write_json(target, {"ok": 1})
    disk_full_after(monkeypatch, 0)
    with pytest.raises(files_module.FileWriteError, match="cannot write .*f.json"):
        files_module.atomic_write_json(target, {"ok": 2})
    assert json.loads(target.read_text()) == {"ok": 1}
    assert os.listdir(tmp_path) == ["f.json"]


# --------------------------------------------------------- 8. the baseline cache
def cached_file(game, name="knuth"):
    return cache.cache_path(game, cache_key(game, name))


def test_8_an_edited_cache_entry_is_recomputed(tmp_path):
    game = make_game(3, 3, cache=cache_dir())
    first = run_baseline(game, "knuth", rc_seeds=0)
    path = cached_file(game)
    doc = json.loads(path.read_text())
    doc["result"]["average"] = 1.0  # edited without its hash
    path.write_text(json.dumps(doc))
    again = run_baseline(game, "knuth", rc_seeds=0)
    assert not again.result["cached"]  # recomputed
    assert again.result["average"] == first.result["average"]
    assert json.loads(path.read_text())["result"]["average"] == first.result["average"]


def test_8_derived_figures_come_from_the_tree_never_from_the_file(tmp_path):
    game = make_game(3, 3, cache=cache_dir())
    first = run_baseline(game, "knuth", rc_seeds=0)
    path = cached_file(game)
    doc = json.loads(path.read_text())
    doc["result"].update(average=1.0, worst=1, histogram={"1": 27}, first_guess="333")
    doc[cache.HASH_KEY] = cache.content_hash(doc)  # a consistent, edited file
    path.write_text(json.dumps(doc))
    again = run_baseline(game, "knuth", rc_seeds=0)
    assert again.result["cached"]
    for key in ("total", "average", "worst", "histogram", "first_guess", "nodes"):
        assert again.result[key] == first.result[key], key


def test_8_a_swapped_tree_is_recomputed(tmp_path):
    game = make_game(3, 3, cache=cache_dir())
    knuth = run_baseline(game, "knuth", rc_seeds=0)
    other = run_baseline(game, "lc", rc_seeds=0)
    path = cached_file(game)
    doc = json.loads(path.read_text())
    doc["root"] = json.loads(cached_file(game, "lc").read_text())["root"]
    path.write_text(json.dumps(doc))
    again = run_baseline(game, "knuth", rc_seeds=0)
    assert not again.result["cached"] and again.tree.total == knuth.tree.total
    assert knuth.tree.total != other.tree.total


@pytest.mark.parametrize(
    "content",
    ['{"format": ' + "[" * 5000 + "]" * 5000 + "}", "\x00garbage", '{"format": "evo-breaker"}'],
    ids=["deep", "garbage", "partial"],
)
def test_8_a_deep_or_corrupt_cache_file_is_recomputed_not_a_failure(tmp_path, content):
    game = make_game(3, 3, cache=cache_dir())
    path = cached_file(game)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(content)
    assert knuth_total(game) == run_baseline(game, "knuth", rc_seeds=0, use_cache=False).tree.total
    assert json.loads(path.read_text())[cache.HASH_KEY]


def test_the_lock_is_reentrant_in_a_process_and_released(tmp_path):
    cfg, run_dir = interrupted_run(tmp_path)
    with lock_run(run_dir):
        with lock_run(run_dir):
            assert is_locked(run_dir)
        assert is_locked(run_dir)
        run_config(cfg, run_dir=run_dir, resume=True, progress=False, knuth=False)  # same process
    assert not is_locked(run_dir)
    assert not (run_dir / LOCK).exists()  # removed as the lock is released (issue 66)
    with pytest.raises(CheckpointError, match="no checkpoint.npz"):
        (run_dir / CHECKPOINT).unlink()
        run_config(cfg, run_dir=run_dir, resume=True, progress=False, knuth=False)
