"""Trust, third round: the run, the library's edges, numbers and estimates, each case
numbered as in the issue that reported it (output paths, tree archives, Graphviz and tree
files are tested in test_trust_outputs.py and test_trust_archives.py)."""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from support.definitions import all_code_tuples, play_depths

from evo.cli import main

ROOT = Path(__file__).resolve().parent.parent


def evo(*args: str):
    return CliRunner().invoke(main, [str(a) for a in args])


def python(script: str, *, cwd: Path, env: dict | None = None, timeout: float = 300):
    """``script`` run by a fresh interpreter (a file, as users run theirs), evo from this
    checkout."""
    path = cwd / "script.py"
    path.write_text(textwrap.dedent(script))
    full = dict(os.environ)
    full["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), full.get("PYTHONPATH")]))
    full.update(env or {})
    return subprocess.run(
        [sys.executable, str(path)],
        cwd=cwd,
        env=full,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


# 0. Worker processes after this process computed on OpenMP threads -------------------


@pytest.mark.slow
def test_0_workers_start_after_the_parent_ran_parallel_kernels(tmp_path):
    """The parent builds Knuth's (4,8) tree on numba's parallel kernels (OpenMP threads),
    then evolves with 2 workers whose operators run parallel kernels too: forked from
    such a process, a worker aborted at its first parallel kernel. The cache is empty."""
    done = python(
        """
        import json
        import evo

        if __name__ == "__main__":
            game = evo.make_game(4, 8)
            knuth = evo.baseline(game, "knuth")  # compiled, on 2 threads, in this process
            greedy = {"kind": "greedy", "weight": 1, "tries": 2, "top": 8, "exact_below": 0}
            config = {"mutation": {"rate": 1.0, "operators": [greedy]}}
            r = evo.evolve(game, config, generations=3, seed=1, workers=2)
            print(json.dumps([knuth.total, r.stopped_by, len(r.logbook), r.total]))
        """,
        cwd=tmp_path,
        env={"EVO_THREADS": "2", "EVO_CACHE": str(tmp_path / "empty-cache")},
    )
    assert "Terminating" not in done.stderr, done.stderr[-2000:]
    assert done.returncode == 0, done.stderr[-2000:]
    knuth, stopped_by, records, total = json.loads(done.stdout.splitlines()[-1])
    assert knuth == 21230 and stopped_by == "generations" and records == 4
    assert total < 21230  # the greedy rebuilds beat Knuth's rule within 3 generations


@pytest.mark.slow
def test_0_shipped_config_on_an_empty_cache(tmp_path):
    """``evo run configs/mastermind-4-8.yaml`` with its 2 workers, from an empty cache:
    Knuth's yardstick is computed in the main process before the workers start."""
    env = dict(os.environ)
    env.update(EVO_THREADS="2", EVO_CACHE=str(tmp_path / "empty-cache"))
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", "from evo.cli import main; main(prog_name='evo')", "run"]
        + [str(ROOT / "configs" / "mastermind-4-8.yaml"), "--no-report"]
        + ["--set", "stop.generations=10", "--set", "workers=2"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert "Terminating" not in done.stderr, done.stderr[-2000:]
    assert done.returncode == 0, done.stderr[-2000:]
    (run_dir,) = (tmp_path / "runs").iterdir()
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["status"] == "finished" and summary["generations"] == 10


@pytest.mark.slow
def test_0_workers_cut_at_the_time_limit_leak_no_semaphore(tmp_path):
    """A run on 2 workers that stops at its time limit terminates the workers in the
    middle of a generation: no 'leaked semaphore' warning at exit (numba's lock)."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    done = subprocess.run(
        [sys.executable, "-c", "from evo.cli import main; main(prog_name='evo')", "run"]
        + [str(ROOT / "configs" / "quick.yaml"), "--no-report", "-q"]
        + ["--set", "stop.seconds=2", "--set", "workers=2", "--runs", str(tmp_path)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert "2 worker(s)" in done.stdout
    assert "leaked" not in done.stderr and "resource_tracker" not in done.stderr, done.stderr


# 2. Planting a baseline that would take too long -------------------------------------


def test_2_a_planted_optimum_beyond_the_limit_is_refused_before_any_directory(tmp_path):
    """(5,7)'s optimum would take weeks: refused in one line, exit 2, before any work
    (well within a second of growth) and before the run directory."""
    res = evo(
        "run", ROOT / "configs" / "mastermind-5-7.yaml", "--runs", tmp_path / "runs",
        "--set", "population.init.baselines=[optimal]",
    )  # fmt: skip
    assert res.exit_code == 2, res.output
    line = res.output.strip().splitlines()[-1]
    assert "population.init.baselines.0" in line and "optimum" in line
    assert re.search(r"about [\d.]+ (days|years)", line), line  # the estimate, said
    assert "--time-limit" in line and "Traceback" not in res.output
    assert not (tmp_path / "runs").exists()


def test_2_run_time_limit_is_the_planted_baselines_limit(tmp_path):
    """``evo run --time-limit``: the (4,6) optimum (about half a second) is refused under
    0.01 s, and planted under the default."""
    cfg = tmp_path / "c.yaml"
    cfg.write_text(
        "name: p\ngame: {pegs: 4, colors: 6}\npopulation: {size: 4, init: {baselines: [optimal]}}\n"
        "stop: {generations: 0}\nmutation: {operators: [{kind: regrow}]}\n"
    )
    runs = tmp_path / "runs"
    res = evo("run", cfg, "--runs", runs, "--no-report", "-q", "--time-limit", "0.01")
    assert res.exit_code == 2 and "0.01" not in "" and not runs.exists(), res.output
    assert "more than the 0.0 s allowed" in res.output or "allowed" in res.output
    res = evo("run", cfg, "--runs", runs, "--no-report", "-q")
    assert res.exit_code == 0, res.output
    (run_dir,) = runs.iterdir()
    assert json.loads((run_dir / "summary.json").read_text())["best_total"] == 5625


def test_2_the_python_api_cites_its_own_argument():
    import evo as api

    game = api.make_game(5, 7)
    with pytest.raises(api.BaselineRefused) as e:
        api.evolve(game, {"population": {"init": {"baselines": ["optimal"]}}}, generations=1)
    assert "time_limit=" in str(e.value) and "--time-limit" not in str(e.value)
    with pytest.raises(api.BaselineRefused) as e:
        api.baseline(game, "optimal", time_limit=60)
    assert "time_limit=" in str(e.value) and "--time-limit" not in str(e.value)


# 3. The library's own configs are accepted back -----------------------------------------


def test_3_default_config_result_config_and_memory_gib_are_accepted():
    import evo as api

    game = api.make_game(3, 3)
    first = api.evolve(game, api.default_config(game, seed=2), generations=1)
    again = api.evolve(game, first.config, generations=1)
    assert [dict(r) for r in again.logbook] == [dict(r) for r in first.logbook]
    budget = {"game": {"pegs": 3, "colors": 3, "memory_gib": 0.5}, "stop": {"generations": 1}}
    kept = api.evolve(game, budget)
    assert kept.config.game.memory_gib == 0.5  # the budget the config set is the run's
    with pytest.raises(ValueError, match="not the game evolved"):
        api.evolve(game, {"game": {"pegs": 4, "colors": 3}})


# 4. run_dir: only a new folder, or a run of this config --------------------------------


def _tree_of(folder: Path) -> dict[str, bytes]:
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


@pytest.mark.parametrize(
    "content",
    [
        "name: other\ngame: {pegs: 4, colors: 6}\nstop: {generations: 3}\n",  # another game
        "{{{ not yaml: [",  # not YAML
    ],
)
def test_4_a_folder_of_another_run_or_not_a_config_is_refused(tmp_path, content):
    import evo as api
    from evo.runs.rundir import RunDirError

    folder = tmp_path / "run"
    folder.mkdir()
    (folder / "config.yaml").write_text(content)
    before = _tree_of(folder)
    with pytest.raises(RunDirError):
        api.evolve(api.make_game(3, 3), generations=1, run_dir=folder)
    assert _tree_of(folder) == before


def test_4_a_folder_of_other_files_and_an_empty_name_are_refused(tmp_path, monkeypatch):
    import evo as api
    from evo.runs.rundir import RunDirError

    monkeypatch.chdir(tmp_path)
    (tmp_path / "notes.txt").write_text("mine")
    with pytest.raises(ValueError, match="run_dir"):
        api.evolve(api.make_game(3, 3), generations=1, run_dir="")
    with pytest.raises(RunDirError, match="not a run directory"):
        api.evolve(api.make_game(3, 3), generations=1, run_dir=tmp_path)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt"]


def test_4_a_run_of_this_config_is_continued(tmp_path):
    import evo as api

    game = api.make_game(3, 3)
    first = api.evolve(game, seed=5, generations=2, run_dir=tmp_path / "r")
    more = api.evolve(game, seed=5, generations=4, run_dir=tmp_path / "r")  # stop may change
    assert [dict(r) for r in more.logbook][:3] == [dict(r) for r in first.logbook]


# 5. What a registered operator returns is checked ---------------------------------------


def _unspliced(tree, *, rng):
    """The tour's mutation with the splice forgotten: the new subtree itself."""
    from evo.core.growth import grow
    from evo.ea.nodes import pick_node

    node = pick_node(tree, rng=rng)
    if node is None:
        return tree
    return grow(tree.game, tree.code_set(node), rng=rng)


def _nothing(tree, *, rng):
    return None


def _flattened(tree, *, rng):
    """A whole tree whose arrays flatter it: every depth below 2 counted as 2, a total
    far below the tree's real one."""
    from dataclasses import replace

    return replace(tree, depth=np.minimum(tree.depth, 2).astype(tree.depth.dtype), _cache={})


@pytest.mark.parametrize(
    "function, message",
    [(_unspliced, "not a breaker of all 256"), (_nothing, "returned NoneType")],
)
def test_5_a_registered_operator_that_breaks_the_tree_is_named(function, message):
    import evo as api
    from evo.ea.operators import OperatorError

    api.register_operator("broken", function)
    cfg = {"mutation": {"rate": 1.0, "operators": [{"kind": "broken"}]}, "population": {"size": 6}}
    with pytest.raises(OperatorError, match=f"'broken'.*{message}"):
        api.evolve(api.make_game(4, 4), cfg, generations=2, seed=1)


def test_5_a_registered_operator_cannot_count_a_wrong_fitness():
    """A tree whose depths flatter it: rebuilt from its guesses and feedbacks, so the
    fitness counted is the tree's real total (as playing every code gives it)."""
    import evo as api

    api.register_operator("flattened", _flattened)
    cfg = {"mutation": {"rate": 1.0, "operators": [{"kind": "flattened"}]}}
    r = api.evolve(api.make_game(3, 3), {**cfg, "population": {"size": 6}}, generations=2, seed=1)
    for tree in r.hall_of_fame:
        tree.validate()  # depths agree with the structure
    played = sum(play_depths(r.best, all_code_tuples(3, 3)))  # every code walked
    assert r.summary["best_total"] == r.best.total == played


def test_5_a_crossover_that_returns_one_tree_is_named():
    import evo as api
    from evo.ea.operators import OperatorError

    api.register_operator("one-child", lambda a, b, *, rng: a, role="crossover")
    cfg = {"crossover": {"rate": 1.0, "operator": {"kind": "one-child"}}}
    with pytest.raises(OperatorError, match="'one-child'.*not two trees"):
        api.evolve(api.make_game(3, 3), cfg, generations=1, seed=1)


# 7. Non-finite numbers ------------------------------------------------------------------


@pytest.mark.parametrize("value", ["nan", "inf", "-1", "0"])
def test_7_memory_must_be_a_finite_number(value):
    res = evo("baselines", "--only", "knuth", "--memory", value)
    assert res.exit_code == 2 and "finite number above 0" in res.output, res.output


def test_7_a_huge_memory_budget_is_no_budget():
    res = evo("baselines", "--only", "knuth", "--memory", "1e308")
    assert res.exit_code == 0 and "5801" in res.output, res.output


@pytest.mark.parametrize("value", [".inf", ".nan", "1e-12"])
def test_7_config_memory_gib_is_checked_in_one_line(tmp_path, value):
    cfg = tmp_path / "c.yaml"
    cfg.write_text(f"game: {{pegs: 3, colors: 3, memory_gib: {value}}}\nstop: {{generations: 1}}\n")
    res = evo("run", cfg, "--runs", tmp_path / "runs", "-q", "--no-report")
    assert res.exit_code == 2, res.output
    assert "memory" in res.output and "Traceback" not in res.output
    assert not (tmp_path / "runs").exists()


@pytest.mark.parametrize("value", ["nan", "inf", "-inf"])
def test_7_time_limit_nan_does_not_turn_the_limit_off(value):
    res = evo("baselines", "-n", "5", "-c", "7", "--only", "optimal", "--time-limit", value)
    assert res.exit_code == 2 and "finite number" in res.output, res.output


@pytest.mark.parametrize("memory", [float("nan"), float("inf"), 0, -5, 1.5, True, "1"])
def test_7_make_game_memory_is_a_count_of_bytes(memory):
    from evo.core.game import make_game

    with pytest.raises(ValueError, match="memory"):
        make_game(3, 3, memory=memory)


# 8. Jobs of days start only when asked --------------------------------------------------


def test_8_a_one_step_tree_of_days_is_refused_with_its_estimate():
    import time

    start = time.monotonic()
    res = evo("baselines", "-n", "7", "-c", "12", "--only", "knuth")
    assert time.monotonic() - start < 30
    assert res.exit_code == 2 and "knuth" in res.output and "days" in res.output, res.output
    assert "--time-limit" in res.output and len(res.output.strip().splitlines()) == 1


def test_8_the_limit_is_what_decides(monkeypatch):
    """Knuth's (4,6) tree, estimated at a few milliseconds, is refused under a limit
    below its estimate and built under one above it."""
    from evo.baselines import BaselineRefused, estimate_seconds, run
    from evo.core.game import make_game

    game = make_game(4, 6)
    est = estimate_seconds(game, "knuth")
    with pytest.raises(BaselineRefused):
        run(game, "knuth", time_limit=est / 2, use_cache=False)
    assert run(game, "knuth", time_limit=est * 1000, use_cache=False).tree.total == 5801


# 11. Smaller ones -----------------------------------------------------------------------


def test_11_make_game_takes_numpy_counts_and_refuses_bools():
    from evo.core.game import make_game

    assert make_game(np.int64(4), np.int32(6)).num_codes == 1296
    with pytest.raises(ValueError, match="pegs"):
        make_game(True, 6)
    with pytest.raises(ValueError, match="colors"):
        make_game(4, 6.0)


def test_11_baseline_names_and_seeds_and_caches_are_checked(tmp_path, monkeypatch):
    import evo as api

    game = api.make_game(3, 3)
    with pytest.raises(ValueError, match="baseline name"):
        api.baseline(game, None)
    with pytest.raises(ValueError, match="seed"):
        api.random_breaker(game, seed=-1)
    with pytest.raises(ValueError, match="seed"):
        api.evolve(game, seed=-1, generations=1)
    monkeypatch.chdir(tmp_path)
    with pytest.raises(ValueError, match="cache"):
        api.baseline(game, "knuth", cache="")
    with pytest.raises(ValueError, match="cache"):
        api.make_game(3, 3, cache="")
    assert list(tmp_path.iterdir()) == []


def test_11_evo_threads_must_be_a_count(monkeypatch):
    monkeypatch.setenv("EVO_THREADS", "abc")
    res = evo("baselines", "--only", "knuth")
    assert res.exit_code == 2 and "EVO_THREADS" in res.output
    from evo.core.engine import threads

    with pytest.raises(ValueError, match="EVO_THREADS"):
        threads()


@pytest.mark.parametrize("answer", [np.array([True, False]), "no", 1])
def test_11_on_generation_answers_true_false_or_none(answer):
    import evo as api

    with pytest.raises(TypeError, match="on_generation returned"):
        api.evolve(api.make_game(3, 3), generations=3, on_generation=lambda *a: answer)
    stopped = api.evolve(
        api.make_game(3, 3), generations=3, on_generation=lambda g, *a: np.bool_(g >= 1)
    )
    assert stopped.stopped_by == "callback" and len(stopped.logbook) == 2


def test_11_a_budget_beyond_the_machine_keeps_the_table_off():
    from evo.core.game import make_game

    game = make_game(6, 8, memory=100 * 2**30)  # 64 GiB table: not on this machine
    assert not game.use_table


def test_11_a_refused_connection_waits_no_longer_than_cluster_wait():
    import socket
    import time

    from evo.ea.cluster import ClusterError, check_scheduler

    with socket.socket() as s:  # a port that nothing listens on
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    start = time.monotonic()
    with pytest.raises(ClusterError):
        check_scheduler(f"tcp://127.0.0.1:{port}", wait=1.0)
    assert time.monotonic() - start < 6.0


def test_11_a_scheduler_for_one_population_is_refused(tmp_path):
    cfg = tmp_path / "c.yaml"
    cfg.write_text("game: {pegs: 3, colors: 3}\nstop: {generations: 1}\n")
    res = evo("run", cfg, "--runs", tmp_path / "runs", "--scheduler", "tcp://127.0.0.1:1")
    assert res.exit_code == 2 and "islands" in res.output, res.output
    assert not (tmp_path / "runs").exists()


# The public API's arguments, fuzzed ---------------------------------------------------

EVO_DIR = str(ROOT / "evo")

#: What users pass by mistake: NaN and infinities, bools, NumPy scalars, strings, None.
ODD = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**20), max_value=10**20),
    st.floats(allow_nan=True, allow_infinity=True),
    st.sampled_from(
        [np.int64(3), np.int8(-1), np.uint64(2**63), np.float64("nan"), np.bool_(True)]
        + [np.float32(0.5), np.array([1, 2]), [], {}, (3,), b"4"]
    ),
    st.text(max_size=8),
    st.sampled_from(["4", "", " ", "knuth", "all", "mastermind", "bulls-cows", "1e308", "nan"]),
)


def _raised_by_evo(e: BaseException) -> bool:
    """The exception comes from a check of evo's own (its last frame is in evo/), not from
    a library that evo handed a bad value to."""
    tb = e.__traceback__
    while tb is not None and tb.tb_next is not None:
        tb = tb.tb_next
    return tb is not None and tb.tb_frame.f_code.co_filename.startswith(EVO_DIR)


def _calls():
    """(name, call(value)): one argument of a public function replaced by a fuzzed value,
    the others valid and cheap (a (3,3) game, one generation)."""
    import evo as api

    game = api.make_game(3, 3)
    tree = api.random_breaker(game, seed=1)
    one = {"stop": {"generations": 1}, "population": {"size": 4}}
    return {
        "make_game.pegs": lambda v: api.make_game(v, 3),
        "make_game.colors": lambda v: api.make_game(3, v),
        "make_game.variant": lambda v: api.make_game(3, 3, v),
        "make_game.trees": lambda v: api.make_game(3, 3, trees=v),
        "make_game.table": lambda v: api.make_game(3, 3, table=v),
        "make_game.memory": lambda v: api.make_game(3, 3, memory=v),
        "make_game.cache": lambda v: api.make_game(3, 3, cache=v),
        "random_breaker.seed": lambda v: api.random_breaker(game, seed=v),
        "random_breaker.pool": lambda v: api.random_breaker(game, pool=v),
        "baseline.name": lambda v: api.baseline(game, v),
        "baseline.seed": lambda v: api.baseline(game, "rc", seed=v),
        "baseline.time_limit": lambda v: api.baseline(game, "optimal", time_limit=v),
        "baseline.cache": lambda v: api.baseline(game, "knuth", cache=v),
        "default_config.seed": lambda v: api.default_config(game, seed=v),
        "default_config.workers": lambda v: api.default_config(game, workers=v),
        "evolve.config": lambda v: api.evolve(game, v, generations=1),
        "evolve.seed": lambda v: api.evolve(game, one, seed=v),
        "evolve.generations": lambda v: api.evolve(game, one, generations=v, seconds=0.2),
        "evolve.seconds": lambda v: api.evolve(game, one, seconds=v, generations=1),
        "evolve.workers": lambda v: api.evolve(game, one, workers=v),
        "evolve.time_limit": lambda v: api.evolve(game, one, time_limit=v),
        "evolve.on_generation": lambda v: api.evolve(game, one, on_generation=v),
        "evolve.run_dir": lambda v: api.evolve(game, one, run_dir=v),
        "evolve.cache": lambda v: api.evolve(game, one, cache=v),
        "save_tree.path": lambda v: api.save_tree(tree, v),
        "load_tree.path": lambda v: api.load_tree(v),
        "load_tree.game": lambda v: api.load_tree(
            ROOT / "breakers" / "mastermind-4-6.json", game=v
        ),
        "register_operator.name": lambda v: api.register_operator(v, _nothing),
        "register_operator.role": lambda v: api.register_operator("fuzzed", _nothing, role=v),
    }


#: evolve.workers starts a pool for some values: over about 2 s here (slow).
_CALLS = [
    pytest.param(where, marks=pytest.mark.slow) if where == "evolve.workers" else where
    for where in sorted(_calls())
]


@pytest.mark.parametrize("where", _CALLS)
@settings(
    max_examples=25,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(value=ODD)
def test_fuzz_the_public_api_ends_in_a_result_or_evos_own_error(
    where, value, tmp_path, monkeypatch
):
    """Every argument of the public functions, given what users pass by mistake: each call
    returns, or raises an error that evo itself raised (naming what is wrong), never a
    library's bare error or a crash."""
    monkeypatch.chdir(tmp_path)  # a fuzzed path or cache folder lands here
    call = _calls()[where]
    if where == "evolve.workers" and isinstance(value, int | np.integer) and value > 1:
        value = 1  # real worker pools are tested elsewhere; here the checks
    try:
        call(value)
    except (KeyboardInterrupt, SystemExit, MemoryError, RecursionError):
        raise
    except Exception as e:  # noqa: BLE001 - any exception must be evo's own
        assert _raised_by_evo(e), f"{where}={value!r}: {type(e).__name__}: {e}"
