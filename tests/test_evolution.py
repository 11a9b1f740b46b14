"""The evolution: reproducible logbooks (1 or 2 workers, interrupted and resumed), run
directories, checkpoints, the command line."""

from __future__ import annotations

import io
import json
import pickle
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from support.definitions import fresh_total

from evo.baselines import knuth_total
from evo.cli import main
from evo.config import load_config
from evo.core.game import make_game
from evo.core.growth import random_breaker
from evo.core.treeio import load_tree
from evo.ea.operators import OPERATORS
from evo.ea.toolbox import build_toolbox
from evo.runs.checkpoint import CheckpointError
from evo.runs.driver import run_config
from evo.runs.rundir import RunDirError, create_run_dir, load_run

CONFIGS = Path(__file__).resolve().parent.parent / "configs"

BASE = {
    "name": "t",
    "seed": 5,
    "game": {"pegs": 3, "colors": 4},
    "population": {"size": 16},
    "stop": {"generations": 6},
    "crossover": {"rate": 0.7, "operator": {"kind": "graft"}},
    "mutation": {
        "rate": 0.8,
        "operators": [
            {"kind": "regrow", "weight": 2},
            {"kind": "best-of-k", "k": 2},
            {"kind": "greedy", "tries": 2, "exact_below": 6},
            {"kind": "exhaustive", "max_codes": 8},
        ],
    },
    "elitism": 1,
    "checkpoint_interval": 2,
}

PARETO = {
    **BASE,
    "name": "p",
    "population": {"size": 16},
    "selection": {"method": "nsga2"},
    "crossover": {"rate": 0.7, "operator": {"kind": "exchange", "bias": 0.5}},
}


def config(data=BASE, *overrides):
    return load_config(data, list(overrides))


def logbook_of(cfg, run_dir=None, **kw):
    result = run_config(cfg, run_dir=run_dir, progress=False, knuth=False, **kw)
    return [dict(r) for r in result.state.logbook]


class Stop(Exception):
    pass


def interrupt_after(gen):
    def hook(g, pop, logbook):
        if g == gen:
            raise Stop

    return hook


@pytest.mark.parametrize("data", [BASE, PARETO], ids=["tournament", "nsga2"])
def test_same_logbook_with_one_and_two_workers(data):
    one = logbook_of(config(data))
    two = logbook_of(config(data, "workers=2"))
    assert one == two
    assert [r["gen"] for r in one] == list(range(7))
    assert one[-1]["min"] <= one[0]["min"]


@pytest.mark.parametrize("data", [BASE, PARETO], ids=["tournament", "nsga2"])
@pytest.mark.parametrize("stop_at", [3, 4])
def test_resume_after_an_interruption_gives_the_same_logbook(tmp_path, data, stop_at):
    cfg = config(data)
    whole = logbook_of(cfg)
    run_dir = create_run_dir(cfg, root=tmp_path)
    with pytest.raises(Stop):
        run_config(
            cfg,
            run_dir=run_dir,
            progress=False,
            knuth=False,
            on_generation=interrupt_after(stop_at),
        )
    assert load_run(run_dir).status == "interrupted"
    assert load_run(run_dir).summary["status"] == "running"  # as of the last checkpoint
    resumed = run_config(
        load_run(run_dir).config, run_dir=run_dir, resume=True, progress=False, knuth=False
    )
    assert [dict(r) for r in resumed.state.logbook] == whole
    assert load_run(run_dir).logbook == whole


@pytest.mark.slow
def test_resume_with_workers_matches_too(tmp_path):
    cfg = config(BASE, "workers=2")
    whole = logbook_of(config(BASE))
    run_dir = create_run_dir(cfg, root=tmp_path)
    with pytest.raises(Stop):
        run_config(
            cfg, run_dir=run_dir, progress=False, knuth=False, on_generation=interrupt_after(5)
        )
    resumed = run_config(cfg, run_dir=run_dir, resume=True, progress=False, knuth=False)
    assert [dict(r) for r in resumed.state.logbook] == whole


def test_run_directory_files(tmp_path):
    cfg = config(BASE)
    run_dir = create_run_dir(cfg, root=tmp_path)
    assert run_dir.name.startswith("t-")
    result = run_config(cfg, run_dir=run_dir, progress=False)
    run = load_run(run_dir)
    assert run.config == cfg
    assert run.finished
    for key in (
        "best_total",
        "best_average",
        "best_worst",
        "generations",
        "seconds",
        "knuth_total",
    ):
        assert key in run.summary
    assert run.summary["generations"] == 6
    assert run.summary["knuth_total"] == knuth_total(make_game(3, 4))
    assert run.summary["best_known_total"] is not None  # (3,4): solved exactly, 64 codes
    assert run.summary["gap_to_best_known"] >= 0
    assert run.best.total == run.summary["best_total"] == result.best.total
    assert run.best.total == min(r["min"] for r in run.logbook)
    best = load_tree(run_dir / "best.json")
    best.validate()
    assert len(run.logbook) == 7
    assert (run_dir / "checkpoint.npz").exists()
    assert run.status == "finished" and run.summary["status"] == "finished"


def test_corrupted_checkpoint_gives_a_clear_error(tmp_path):
    cfg = config(BASE, "stop.generations=2")
    run_dir = create_run_dir(cfg, root=tmp_path)
    run_config(cfg, run_dir=run_dir, progress=False, knuth=False)
    ckpt = run_dir / "checkpoint.npz"
    good = ckpt.read_bytes()
    ckpt.write_bytes(good[:200])
    with pytest.raises(CheckpointError, match="corrupted or truncated"):
        run_config(cfg, run_dir=run_dir, resume=True, progress=False, knuth=False)
    buffer = io.BytesIO()
    np.savez(buffer, something=np.arange(3))
    ckpt.write_bytes(buffer.getvalue())
    with pytest.raises(CheckpointError, match="not an evo checkpoint"):
        run_config(cfg, run_dir=run_dir, resume=True, progress=False, knuth=False)
    ckpt.write_bytes(pickle.dumps({"something": "else"}))
    with pytest.raises(CheckpointError, match="pickle"):
        run_config(cfg, run_dir=run_dir, resume=True, progress=False, knuth=False)
    (run_dir / "checkpoint.npz").unlink()
    with pytest.raises(CheckpointError, match="no checkpoint.npz"):
        run_config(cfg, run_dir=run_dir, resume=True, progress=False, knuth=False)


def test_checkpoint_of_another_config_is_refused(tmp_path):
    cfg = config(BASE, "stop.generations=1")
    run_dir = create_run_dir(cfg, root=tmp_path)
    run_config(cfg, run_dir=run_dir, progress=False, knuth=False)
    with pytest.raises(CheckpointError, match="another config .*: seed differ"):
        run_config(
            config(BASE, "seed=6"), run_dir=run_dir, resume=True, progress=False, knuth=False
        )


def test_toolbox_registers_the_operators():
    cfg = config(BASE)
    tb = build_toolbox(cfg, make_game(3, 4))
    assert tb.mate.func is OPERATORS["graft"].function
    assert tb.map.func == tb.time_limit.map  # worker processes replace it only while a run lasts
    assert tb.mutation_names == [
        "mutate_regrow",
        "mutate_best_of_k",
        "mutate_greedy",
        "mutate_exhaustive",
    ]
    for name, kind in zip(tb.mutation_names, ["regrow", "best-of-k", "greedy", "exhaustive"]):
        assert getattr(tb, name).func is OPERATORS[kind].function
    tree = random_breaker(tb.game, rng=np.random.default_rng(0))
    child = tb.mutate(tree, rng=np.random.default_rng(1))
    child.validate()


def test_3_3_reaches_the_optimum():
    cfg = load_config(CONFIGS / "mastermind-3-3.yaml", ["workers=1"])
    result = run_config(cfg, progress=False, knuth=False)
    assert result.summary["best_total"] == 73
    assert result.summary["seconds"] < 60


def test_cli_run_and_resume(tmp_path):
    runner = CliRunner()
    cfg = tmp_path / "c.yaml"
    cfg.write_text(json.dumps(BASE))  # JSON is YAML
    res = runner.invoke(
        main,
        [
            "run",
            str(cfg),
            "--set",
            "stop.generations=3",
            "--runs",
            str(tmp_path / "runs"),
            "--quiet",
            "--no-report",
        ],
    )
    assert res.exit_code == 0, res.output
    assert "best total" in res.output and "gap to Knuth" in res.output
    (run_dir,) = (tmp_path / "runs").iterdir()
    assert load_run(run_dir).summary["generations"] == 3
    res = runner.invoke(main, ["resume", str(run_dir), "--quiet", "--no-report"])
    assert res.exit_code == 0, res.output
    bad = tmp_path / "bad.yaml"
    bad.write_text("population: {size: 0}\n")
    res = runner.invoke(main, ["run", str(bad)])
    assert res.exit_code != 0
    assert "population.size" in res.output
    res = runner.invoke(main, ["resume", str(tmp_path / "nowhere")])
    assert res.exit_code != 0 and "not a run directory" in res.output


@pytest.mark.slow
def test_ctrl_c_then_resume_gives_the_uninterrupted_logbook(tmp_path):
    """A real interruption: SIGINT to `evo run`, then `evo resume`."""
    import signal
    import subprocess
    import sys
    import time

    data = {
        **BASE,
        "population": {"size": 8},
        "stop": {"generations": 300},
        "checkpoint_interval": 3,
    }
    cfg_path = tmp_path / "c.yaml"
    cfg_path.write_text(json.dumps(data))
    whole = logbook_of(config(data))
    runs = tmp_path / "runs"
    evo = [sys.executable, "-c", "from evo.cli import main; main()"]
    cmd = evo + ["run", str(cfg_path), "--runs", str(runs), "-q"]
    proc = subprocess.Popen(
        cmd + ["--no-report"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    deadline = time.time() + 60
    while time.time() < deadline:
        dirs = list(runs.glob("t-*")) if runs.exists() else []
        if dirs and (dirs[0] / "logbook.jsonl").exists():
            if len(load_run(dirs[0]).logbook) > 4:
                break
        time.sleep(0.05)
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    (run_dir,) = runs.glob("t-*")
    if proc.returncode == 0:  # it finished before the signal came: nothing to test
        pytest.skip("the run ended before it could be interrupted")
    assert "evo resume" in err
    assert load_run(run_dir).status == "interrupted"
    res = subprocess.run(
        evo + ["resume", str(run_dir), "-q", "--no-report"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert res.returncode == 0, res.stderr
    assert load_run(run_dir).logbook == whole


def test_fitness_of_every_individual_is_its_recomputed_total():
    result = run_config(config(BASE, "workers=2"), progress=False, knuth=False)
    for ind in result.state.population:
        ind.validate()
        assert ind.fitness.values == (fresh_total(ind),)


def test_load_run_ignores_a_partial_last_logbook_line(tmp_path):
    cfg = config(BASE, "stop.generations=2")
    run_dir = create_run_dir(cfg, root=tmp_path)
    run_config(cfg, run_dir=run_dir, progress=False, knuth=False)
    log = run_dir / "logbook.jsonl"
    good = log.read_text()
    log.write_text(good + '{"gen": 3, "nev')
    assert len(load_run(run_dir).logbook) == 3
    log.write_text('{"gen": 0, "nev\n' + good)
    with pytest.raises(RunDirError, match="line 1 is not valid JSON"):
        load_run(run_dir)
