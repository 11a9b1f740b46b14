"""Speed of the game tables and of random path completion (issue 2 targets).

Targets: one random (4,6) breaker in 2 ms or less (median); 1000 (4,6) breakers in 3 s or
less; one (5,8) breaker in 100 ms or less, the one-time cost of its table apart (built once
per machine into the cache, then mapped). The NumPy engine, which the compiled one
replaced (issue 9), is timed beside it.
"""

from __future__ import annotations

import resource
import statistics
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.machine import machine_line  # noqa: E402
from evo.core import engine  # noqa: E402
from evo.core.game import make_game  # noqa: E402
from evo.core.growth import random_breaker  # noqa: E402
from evo.core.population import random_population  # noqa: E402


def _median_ms(game, repeats: int, pool: str = "all") -> float:
    rng = np.random.default_rng(0)
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        random_breaker(game, rng=rng, pool=pool)
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1000


def main() -> None:
    rows = []
    g46 = make_game(4, 6)
    t0 = time.perf_counter()
    g46.prepare()
    rows.append(("(4,6) feedback table, once", f"{(time.perf_counter() - t0) * 1000:.1f} ms", "-"))
    _median_ms(g46, 20)  # warm-up
    rows.append(("one (4,6) breaker, median of 500", f"{_median_ms(g46, 500):.2f} ms", "<= 2 ms"))
    rows.append(
        ("one (4,6) breaker, pool consistent", f"{_median_ms(g46, 500, 'consistent'):.2f} ms", "-")
    )
    t0 = time.perf_counter()
    random_population(g46, 1000, seed=1)
    rows.append(("1000 (4,6) breakers", f"{time.perf_counter() - t0:.2f} s", "<= 3 s"))
    engine.DEFAULT = "numpy"  # the NumPy engine (same trees), for comparison
    t0 = time.perf_counter()
    random_population(g46, 1000, seed=1)
    rows.append(("1000 (4,6) breakers, NumPy engine", f"{time.perf_counter() - t0:.2f} s", "-"))
    engine.DEFAULT = "auto"

    g58 = make_game(5, 8)
    t0 = time.perf_counter()
    g58.prepare()
    rows.append(
        (
            "(5,8) feedback table (1 GiB), mapped from the cache",
            f"{time.perf_counter() - t0:.1f} s",
            "-",
        )
    )
    rows.append(("one (5,8) breaker, median of 20", f"{_median_ms(g58, 20):.1f} ms", "<= 100 ms"))
    g58_rows = make_game(5, 8, table=False)
    rows.append(
        ("one (5,8) breaker, no table (rows on the fly)", f"{_median_ms(g58_rows, 5):.1f} ms", "-")
    )
    bc = make_game(4, 10, "bulls-cows")
    bc.prepare()
    rows.append(("one Bulls and Cows (4 of 10) breaker", f"{_median_ms(bc, 50):.2f} ms", "-"))
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024**2

    print("## Game, trees and random growth (issue 2)\n")
    print(
        f"Machine: {machine_line()}. Command: `make bench` (or "
        "`.venv/bin/python benchmarks/run_all.py growth`).\n"
    )
    print("| what | measured | target |\n|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} |")
    print(f"\nPeak memory of the whole script: {peak:.2f} GiB.")


if __name__ == "__main__":
    main()
