"""Island evolution: island configs, ring migration, epochs, the same logbook wherever the
islands run, and a resume from the last epoch's checkpoint."""

from __future__ import annotations

import json
import pickle

import pytest

from evo.config import ConfigError, load_config
from evo.core.rng import island_seed
from evo.ea import cluster as cl
from evo.ea import islands as isl
from evo.ea.cluster import island_map, scheduler_address
from evo.ea.loop import config_game
from evo.runs import checkpoint as ckpt
from evo.runs.driver import RunInterrupted, run_config


def small(*extra: str):
    """A (3,4) run of three islands of 12 breakers, migrating every 2 generations."""
    sets = [
        "game.pegs=3",
        "game.colors=4",
        "population.size=12",
        "islands.count=3",
        "islands.migration.interval=2",
        "islands.migration.migrants=2",
        "stop.generations=6",
        "stop.seconds=null",
        "stop.target_total=null",
        "workers=1",
        *extra,
    ]
    return load_config("configs/quick.yaml", sets)


def epochs(cfg, run_map):
    """The island epochs of ``cfg``, its tasks run by ``run_map``."""
    return isl.epochs(cfg, config_game(cfg), run_map)


def mins(state: isl.Epochs) -> list[list[int]]:
    return [[r["min"] for r in p.logbook] for p in state.islands]


def test_island_configs_take_their_overrides_and_own_seeds():
    cfg = small("islands.overrides=[{mutation: {rate: 0.25}}, {seed: 7}]")
    a, b, c = (cfg.island(i) for i in range(3))
    assert (a.mutation.rate, b.mutation.rate, c.mutation.rate) == (
        0.25,
        cfg.mutation.rate,
        cfg.mutation.rate,
    )
    assert b.seed == 7
    assert a.seed == island_seed(cfg.seed, 0) != c.seed == island_seed(cfg.seed, 2)
    assert a.islands.count == 1  # an island is a single population


@pytest.mark.parametrize(
    "override, message",
    [
        ("islands.overrides=[{game: {pegs: 5}}]", "islands.overrides.0.game"),
        ("islands.overrides=[{mutation: {rate: 3}}]", "islands.overrides.0: mutation.rate"),
        ("islands.overrides=[{}, {}, {}, {}]", "4 entries for 3 islands"),
    ],
)
def test_bad_island_overrides_are_refused_naming_the_key(override, message):
    with pytest.raises(ConfigError, match=message.replace(".", r"\.")):
        small(override)


def test_an_island_override_changes_that_island_only():
    cfg = small("islands.overrides=[{}, {crossover: {rate: 0}, mutation: {rate: 0}}]")
    last = list(epochs(cfg, cl.serial_map))[-1]
    nevals = [[r["nevals"] for r in p.logbook[1:]] for p in last.islands]
    assert all(n == 0 for n in nevals[1])  # no variation: every child is a copy
    assert all(n > 0 for n in nevals[0]) and all(n > 0 for n in nevals[2])


def test_epochs_follow_the_migration_interval_and_the_generation_limit():
    cfg = small("islands.migration.interval=4", "stop.generations=6")
    gens = [s.islands[0].generation for s in epochs(cfg, cl.serial_map)]
    assert gens == [0, 4, 6]  # first populations, one full epoch, then what is left


def test_ring_migration_moves_the_best_to_the_next_island_replacing_its_worst():
    cfg = small("stop.generations=2", "islands.migration.migrants=2")
    configs = [cfg.island(i) for i in range(3)]
    first = next(epochs(cfg, cl.serial_map))
    before = [list(p.population) for p in first.islands]
    after = list(first.islands)
    isl.migrate(after, configs, cfg, epoch=1)
    for i in range(3):
        src, dst = before[i], after[(i + 1) % 3].population
        best = sorted(src, key=lambda e: e[1])[:2]
        worst = sorted(before[(i + 1) % 3], key=lambda e: e[1])[-2:]
        totals = sorted(e[1][0] for e in dst)
        expect = sorted([e[1][0] for e in before[(i + 1) % 3] if e not in worst])
        expect = sorted(expect + [e[1][0] for e in best])
        assert totals == expect
        assert len(dst) == len(src)


def test_random_replacement_is_seeded_and_differs_from_worst():
    cfg_w = small("stop.generations=2")
    cfg_r = small("stop.generations=2", "islands.migration.replace=random")
    configs = [cfg_w.island(i) for i in range(3)]
    first = next(epochs(cfg_w, cl.serial_map))

    def migrated(cfg, epoch):
        islands = pickle.loads(pickle.dumps(first.islands))
        isl.migrate(islands, configs, cfg, epoch=epoch)
        return [sorted(e[1][0] for e in p.population) for p in islands]

    assert migrated(cfg_r, 1) == migrated(cfg_r, 1)
    assert migrated(cfg_r, 1) != migrated(cfg_w, 1) or migrated(cfg_r, 2) != migrated(cfg_w, 2)


def test_no_migrants_means_islands_evolve_apart():
    cfg = small("islands.migration.migrants=0")
    together = list(epochs(small(), cl.serial_map))[-1]
    apart = list(epochs(cfg, cl.serial_map))[-1]
    assert [p.logbook for p in together.islands] != [p.logbook for p in apart.islands]
    assert mins(together)[0][:3] == mins(apart)[0][:3]  # the same until the first migration


@pytest.mark.slow
def test_the_same_logbooks_in_process_and_on_a_local_dask_cluster():
    """Tasks depend only on their input: two worker processes give the same islands."""
    serial = list(epochs(small(), cl.serial_map))[-1]
    cfg = small("cluster.workers=2")  # the run's own workers stay 1
    with island_map(cfg) as run_map:
        assert run_map is not cl.serial_map
        on_dask = list(epochs(cfg, run_map))[-1]
    assert [p.logbook for p in on_dask.islands] == [p.logbook for p in serial.islands]


def test_a_run_writes_its_files_and_resumes_from_the_last_epoch(tmp_path, monkeypatch):
    cfg = small("stop.generations=8")
    (tmp_path / "whole").mkdir()
    (tmp_path / "cut").mkdir()
    whole = run_config(cfg, run_dir=tmp_path / "whole", progress=False, knuth=False)
    saves = []
    real_save = ckpt.save_islands

    def save_then_die(*args, **kw):
        real_save(*args, **kw)
        saves.append(1)
        if len(saves) == 3:  # after generation 4's epoch
            raise KeyboardInterrupt

    monkeypatch.setattr(ckpt, "save_islands", save_then_die)
    with pytest.raises(RunInterrupted) as stop:
        run_config(cfg, run_dir=tmp_path / "cut", progress=False, knuth=False)
    assert stop.value.generation == 4
    cut = json.loads((tmp_path / "cut" / "summary.json").read_text())
    assert cut["status"] == "interrupted" and cut["generations"] == 4
    assert (tmp_path / "cut" / "best.json").exists()
    monkeypatch.setattr(ckpt, "save_islands", real_save)
    resumed = run_config(cfg, run_dir=tmp_path / "cut", resume=True, progress=False, knuth=False)
    read = lambda d, f: (tmp_path / d / f).read_text().splitlines()  # noqa: E731
    assert read("cut", "logbook.jsonl") == read("whole", "logbook.jsonl")
    assert len(read("whole", "logbook.jsonl")) == 9
    assert resumed.summary["best_total"] == whole.summary["best_total"]
    per_island = [json.loads(x) for x in read("whole", "islands.jsonl")]
    assert {r["island"] for r in per_island} == {0, 1, 2}
    assert len(per_island) == 3 * 9
    summary = json.loads((tmp_path / "whole" / "summary.json").read_text())
    assert summary["islands"] == 3 and summary["status"] == "finished"
    assert len(list((tmp_path / "whole" / "islands").glob("epoch-*"))) == 1


def test_the_scheduler_address_comes_from_the_command_line_config_or_environment(monkeypatch):
    monkeypatch.delenv("DASK_SCHEDULER_ADDRESS", raising=False)
    cfg = small()
    assert scheduler_address(cfg) is None
    monkeypatch.setenv("DASK_SCHEDULER_ADDRESS", "tcp://env:1")
    assert scheduler_address(cfg) == "tcp://env:1"
    cfg = small("cluster.address=tcp://config:2")
    assert scheduler_address(cfg) == "tcp://config:2"
    assert scheduler_address(cfg, scheduler="tcp://cli:3") == "tcp://cli:3"


def test_evo_run_with_islands_from_the_command_line(tmp_path):
    from click.testing import CliRunner

    from evo.cli import main

    sets = [
        "islands.count=2",
        "game.pegs=3",
        "game.colors=3",
        "population.size=8",
        "stop.generations=3",
        "stop.seconds=null",
        "stop.target_total=null",
        "workers=1",
    ]
    args = ["run", "configs/quick.yaml", "--runs", str(tmp_path), "-q", "--no-report"]
    for s in sets:
        args += ["--set", s]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 0, result.output
    assert "Goddard 2004" in result.output  # where the best-known total comes from
    (run_dir,) = tmp_path.iterdir()
    lines = (run_dir / "islands.jsonl").read_text().splitlines()
    assert len(lines) == 2 * 4
    assert json.loads((run_dir / "summary.json").read_text())["islands"] == 2
    from evo.show.report import write_report

    page = write_report(run_dir, ["knuth"]).read_text()
    assert "<h2>Islands</h2>" in page and "2 islands" in page
    assert (run_dir / "islands.png").stat().st_size > 1000
    assert "## Islands" in (run_dir / "report.md").read_text()


@pytest.mark.slow
def test_a_worker_killed_mid_epoch_changes_nothing():
    """Dask runs the lost tasks again on another worker; they give the same islands."""
    import os
    import signal

    from dask.distributed import Client, LocalCluster

    serial = list(epochs(small(), cl.serial_map))[-1]
    with (
        LocalCluster(n_workers=2, threads_per_worker=1, dashboard_address=":0") as cluster,
        Client(cluster) as client,
    ):
        killed = []

        def map_and_kill(fn, args, limit):
            futures = [client.submit(fn, *a, pure=False) for a in args]
            if len(killed) == 0 and args[0][2] is not None:  # the first real epoch
                pid = next(iter(client.run(os.getpid).values()))
                os.kill(pid, signal.SIGKILL)
                killed.append(pid)
            return client.gather(futures)

        on_dask = list(epochs(small(), map_and_kill))[-1]
    assert killed
    assert [p.logbook for p in on_dask.islands] == [p.logbook for p in serial.islands]


@pytest.mark.slow
def test_a_lost_scheduler_stops_the_run_and_resume_finishes_it(tmp_path, monkeypatch):
    from dask.distributed import LocalCluster

    cfg = small("stop.generations=8")
    (tmp_path / "whole").mkdir()
    (tmp_path / "cut").mkdir()
    whole = run_config(cfg, run_dir=tmp_path / "whole", progress=False, knuth=False)
    cluster = LocalCluster(n_workers=1, threads_per_worker=1, dashboard_address=":0")
    real_save = ckpt.save_islands
    saves = []

    def save_then_lose_scheduler(*args, **kw):
        real_save(*args, **kw)
        saves.append(1)
        if len(saves) == 2:
            cluster.close()

    monkeypatch.setattr(ckpt, "save_islands", save_then_lose_scheduler)
    remote = small("stop.generations=8", f"cluster.address={cluster.scheduler_address}")
    with pytest.raises(RunInterrupted) as stop:
        run_config(remote, run_dir=tmp_path / "cut", progress=False, knuth=False)
    assert stop.value.generation == 2
    assert "lost the Dask scheduler" in stop.value.reason
    monkeypatch.setattr(ckpt, "save_islands", real_save)
    run_config(cfg, run_dir=tmp_path / "cut", resume=True, progress=False, knuth=False)
    read = lambda d: (tmp_path / d / "logbook.jsonl").read_text()  # noqa: E731
    assert read("cut") == read("whole")
    assert whole.summary["generations"] == 8


def _dask_command(*args: str) -> list[str]:
    import sys
    from pathlib import Path

    return [str(Path(sys.executable).parent / "dask"), *args]


@pytest.mark.slow
def test_a_real_scheduler_and_two_workers_give_the_same_logbooks(tmp_path):
    """`dask scheduler` and two `dask worker` processes on 127.0.0.1, against the run in
    process: record for record (a local cluster of two gives them too, in the test above;
    one given by its address, in the lost scheduler's test)."""
    import subprocess
    import time

    file = tmp_path / "scheduler.json"
    procs = [
        subprocess.Popen(
            _dask_command(
                "scheduler",
                "--host",
                "127.0.0.1",
                "--port",
                "0",
                "--no-dashboard",
                "--scheduler-file",
                str(file),
            ),
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
    ]
    try:
        deadline = time.monotonic() + 60
        while not file.exists() or not file.read_text().strip():
            assert time.monotonic() < deadline, "the scheduler did not start in 60 s"
            time.sleep(0.2)
        address = json.loads(file.read_text())["address"]
        for _ in range(2):
            procs.append(
                subprocess.Popen(
                    _dask_command("worker", address, "--nthreads", "1", "--no-dashboard"),
                    stdout=subprocess.DEVNULL,
                    stderr=subprocess.DEVNULL,
                )
            )
        logbooks = {}
        logbooks["in process"] = list(epochs(small(), cl.serial_map))[-1]
        with island_map(small(f"cluster.address={address}")) as run_map:
            logbooks["dask scheduler + 2 dask workers"] = list(epochs(small(), run_map))[-1]
    finally:
        for p in reversed(procs):
            p.terminate()
        for p in procs:
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                p.kill()
    records = {k: [p.logbook for p in v.islands] for k, v in logbooks.items()}
    first = records["in process"]
    assert len(first) == 3 and len(first[0]) == 7
    for where, got in records.items():
        assert got == first, where


@pytest.mark.slow
def test_a_scheduler_that_does_not_answer_is_refused_before_the_run_starts(tmp_path):
    from click.testing import CliRunner

    from evo.cli import main

    args = ["run", "configs/quick.yaml", "--runs", str(tmp_path / "runs"), "-q"]
    args += ["--set", "islands.count=2", "--scheduler", "tcp://127.0.0.1:9"]
    result = CliRunner().invoke(main, args)
    assert result.exit_code == 2, result.output
    assert "tcp://127.0.0.1:9" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "runs").exists() or not any((tmp_path / "runs").iterdir())


def test_selection_draws_as_deaps_tournaments_do_from_the_same_state():
    """The run's own generator makes DEAP's draws: logbooks did not change with it."""
    import random

    from deap import tools

    from evo.ea.selection import sel_tournament, sel_tournament_dcd

    cfg = small("stop.generations=1")
    pop = isl.unpack(next(epochs(cfg, cl.serial_map)).islands[0], cfg.island(0)).population
    random.seed(5)
    expect = tools.selTournament(pop, 30, tournsize=3)
    assert sel_tournament(pop, 30, tournsize=3, rng=random.Random(5)) == expect
    for ind in pop:
        ind.fitness.crowding_dist = float(ind.total % 7)
    random.seed(6)
    expect = tools.selTournamentDCD(pop, 12)
    assert sel_tournament_dcd(pop, 12, rng=random.Random(6)) == expect


def test_sigterm_ends_an_island_run_after_the_epoch_under_way(tmp_path, monkeypatch):
    import os
    import signal

    cfg = small("stop.generations=8")
    calls = []
    real_map = cl.serial_map

    def map_then_term(fn, args, limit):
        calls.append(1)
        if len(calls) == 2:  # during the first epoch of generations
            os.kill(os.getpid(), signal.SIGTERM)
        return real_map(fn, args, limit)

    monkeypatch.setattr(cl, "serial_map", map_then_term)
    with pytest.raises(RunInterrupted) as stop:
        run_config(cfg, run_dir=tmp_path, progress=False, knuth=False)
    assert (stop.value.signal, stop.value.generation) == ("SIGTERM", 2)
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["status"] == "interrupted" and summary["generations"] == 2
