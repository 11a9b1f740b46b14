"""Islands on Dask: what a generation's dispatch costs on each engine, and an island run
in this process against a local cluster of two workers.

1. *Dispatch*: one generation of the shipped ``quick`` config sends 20 pairs of (4,6)
   breakers out and gets 40 children back. The same round trip (a task that returns its
   two trees: ``copy.copy``) through the process pool that single-population runs use, and through a
   Dask ``LocalCluster`` of as many worker processes.
2. *Islands*: four islands of 40 breakers of (4,6), 6 generations in epochs of 3: the
   same run in this process and on a local cluster of two workers; the logbooks must be
   equal, the wall times are compared.
"""

from __future__ import annotations

import copy
import multiprocessing
import statistics
import time

import numpy as np

from benchmarks.machine import machine_line

ROUNDS = 15


def dispatch() -> tuple[float, float]:
    """Median seconds of one generation's round trip: process pool, then Dask."""
    from dask.distributed import Client, LocalCluster

    from evo.core.game import make_game
    from evo.core.growth import random_breaker

    game = make_game(4, 6).prepare()
    rng = np.random.default_rng(1)
    pairs = [(random_breaker(game, rng=rng), random_breaker(game, rng=rng)) for _ in range(20)]
    pool_t, dask_t = [], []
    with multiprocessing.get_context("fork").Pool(2) as pool:
        with (
            LocalCluster(
                n_workers=2, threads_per_worker=1, dashboard_address=":0", silence_logs=40
            ) as cluster,
            Client(cluster) as client,
        ):
            for _ in range(ROUNDS):
                t0 = time.perf_counter()
                pool.map(copy.copy, pairs, chunksize=2)
                pool_t.append(time.perf_counter() - t0)
                t0 = time.perf_counter()
                client.gather(client.map(copy.copy, pairs, pure=False))
                dask_t.append(time.perf_counter() - t0)
    return statistics.median(pool_t), statistics.median(dask_t)


def islands() -> tuple[float, float, bool]:
    """Wall seconds of the island run here and on a local cluster; equal logbooks?"""
    from evo.config import load_config
    from evo.runs.driver import run_config

    sets = [
        "islands.count=4",
        "islands.migration.interval=3",
        "stop.generations=6",
        "stop.seconds=null",
    ]
    out = {}
    for workers in (1, 2):
        cfg = load_config("configs/quick.yaml", [*sets, f"workers={workers}"])
        t0 = time.perf_counter()
        result = run_config(cfg, progress=False, knuth=False)
        out[workers] = (time.perf_counter() - t0, [dict(r) for r in result.state.logbook])
    return out[1][0], out[2][0], out[1][1] == out[2][1]


def handoff(generations: int = 20) -> list[tuple[float, float]]:
    """Per epoch of ``configs/islands-4-6.yaml`` on a local cluster of two workers: the
    seconds of the islands' tasks, and of the hand-off (migration, logbook, checkpoint)."""
    import tempfile
    from pathlib import Path

    from evo.config import load_config
    from evo.ea import islands as isl
    from evo.ea.cluster import island_map
    from evo.ea.loop import config_game
    from evo.runs.checkpoint import save_islands

    cfg = load_config(
        "configs/islands-4-6.yaml", [f"stop.generations={generations}", "stop.seconds=null"]
    )
    out = []
    with tempfile.TemporaryDirectory() as tmp, island_map(cfg) as run_map:
        task_s = []

        def timed(fn, args, limit):
            t0 = time.perf_counter()
            res = run_map(fn, args, limit)
            task_s.append(time.perf_counter() - t0)
            return res

        t_prev = time.perf_counter()
        records: list[dict] = []
        for state in isl.epochs(cfg, config_game(cfg), timed):
            records += [dict(r) for r in isl.run_logbook(state)]
            save_islands(Path(tmp), cfg, state, records)
            now = time.perf_counter()
            if state.epoch > 0:
                out.append((task_s[-1], now - t_prev - task_s[-1]))
            t_prev = now
    return out


def quality(config: str, seconds: float, counts=(1, 2, 4, 8), total: int = 48) -> list[tuple]:
    """Best total after ``seconds`` of wall time on two workers, for a population of
    ``total`` breakers split into 1, 2, 4 or 8 islands (the same compute for each)."""
    from evo.config import load_config
    from evo.runs.driver import run_config

    rows = []
    for k in counts:
        sets = [
            f"population.size={total // k}",
            f"islands.count={k}",
            f"stop.seconds={seconds}",
            "stop.generations=100000",
            "workers=2",
            "elitism=1",
            "islands.migration.interval=5",
            "islands.overrides=[]",
        ]
        cfg = load_config(config, sets)
        t0 = time.perf_counter()
        if k == 1:
            result = run_config(cfg, progress=False, knuth=False)
        else:
            result = run_config(cfg, progress=False, knuth=False)
        rows.append(
            (
                k,
                total // k,
                result.summary["best_total"],
                result.summary["generations"],
                time.perf_counter() - t0,
            )
        )
    return rows


def plot_quality(results: dict[str, list[tuple]], path: str) -> None:
    """Best total against the number of islands, one line per game, at equal compute."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, axes = plt.subplots(1, len(results), figsize=(4.5 * len(results), 3.6))
    for ax, (game, rows) in zip(np.atleast_1d(axes), results.items()):
        ax.plot([r[0] for r in rows], [r[2] for r in rows], "o-", color="#0072B2")
        ax.set_xscale("log", base=2)
        ax.set_xticks([r[0] for r in rows], [f"{r[0]} x {r[1]}" for r in rows])
        ax.set_xlabel("islands x breakers (same compute)")
        ax.set_ylabel("best total")
        ax.set_title(game, fontsize=10)
        ax.grid(alpha=0.3)
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def main() -> None:
    print("## Islands on Dask (issue 10)\n")
    print(f"Machine: {machine_line()}\n")
    pool_s, dask_s = dispatch()
    print("| one generation's round trip (20 pairs of (4,6) breakers) | median |")
    print("|---|---|")
    print(f"| process pool, 2 processes | {pool_s * 1000:.1f} ms |")
    print(f"| Dask LocalCluster, 2 worker processes | {dask_s * 1000:.1f} ms |")
    print(f"| ratio Dask / pool | {dask_s / pool_s:.1f}x |\n")
    here, cluster, same = islands()
    print("| 4 islands x 40, (4,6), 6 generations in epochs of 3 | wall time |")
    print("|---|---|")
    print(f"| in this process | {here:.1f} s |")
    print(f"| LocalCluster, 2 workers (start-up included) | {cluster:.1f} s |")
    print(f"| same logbook | {'yes' if same else 'NO'} |\n")
    epochs = handoff()
    print("| `configs/islands-4-6.yaml`, epoch of 10 generations | tasks | hand-off | share |")
    print("|---|---|---|---|")
    for i, (task, rest) in enumerate(epochs, 1):
        print(f"| epoch {i} | {task:.1f} s | {rest:.2f} s | {rest / (task + rest):.1%} |")
    print()
    results = {}
    for config, seconds in (
        ("configs/mastermind-4-6.yaml", 150),
        ("configs/bulls-cows-4.yaml", 120),
    ):
        print(f"| `{config}`, {seconds} s on 2 workers | islands x size | best total | gens |")
        print("|---|---|---|---|")
        rows = quality(config, seconds)
        results[f"{config}, {seconds} s"] = rows
        for k, size, best, gens, wall in rows:
            print(f"| {k} island(s) | {k} x {size} | {best} | {gens} ({wall:.0f} s) |")
        print()

    plot_quality(results, "docs/images/islands-quality.png")


if __name__ == "__main__":
    main()
