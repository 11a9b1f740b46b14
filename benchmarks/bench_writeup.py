"""Time to build the write-ups' strategies (issue 14): the consistent optimum beside the
optimum on (4,6), Easy and Advanced, an opening played as written, and the paper's
Bulls and Cows players on 3 of 10 digits. Each is built once to warm up (compiled
kernels, feedback table), then the builds alternate, three rounds; medians are printed.
"""

from __future__ import annotations

import statistics
import time

from benchmarks.machine import machine_line
from evo.baselines import build
from evo.core.game import make_game

CASES = [
    ((4, 6, "mastermind"), "optimal"),
    ((4, 6, "mastermind"), "optimal-consistent"),
    ((4, 6, "mastermind"), "easy"),
    ((4, 6, "mastermind"), "advanced"),
    ((4, 6, "mastermind"), "6564+4233+lc"),
    ((3, 10, "bulls-cows"), "human-friendly"),
    ((3, 10, "bulls-cows"), "extended"),
]
ROUNDS = 3


def main() -> None:
    games = {key: make_game(*key).prepare() for key, _ in CASES}
    for key, name in CASES:  # warm-up
        build(games[key], name, time_limit=None)
    times: dict[str, list[float]] = {name: [] for _, name in CASES}
    totals: dict[str, int] = {}
    for _ in range(ROUNDS):
        for key, name in CASES:
            t0 = time.perf_counter()
            tree = build(games[key], name, time_limit=None)
            times[name].append(time.perf_counter() - t0)
            totals[name] = tree.total
    print("## Write-up strategies (issue 14)\n")
    print(machine_line() + "; machine shared with other engineers\n")
    print("| game | strategy | total | median s | runs (s) |")
    print("|---|---|---|---|---|")
    for key, name in CASES:
        runs = ", ".join(f"{t:.2f}" for t in times[name])
        game = f"{key[2]} ({key[0]},{key[1]})"
        print(
            f"| {game} | {name} | {totals[name]} | {statistics.median(times[name]):.2f} | {runs} |"
        )
    ratio = statistics.median(times["optimal-consistent"]) / statistics.median(times["optimal"])
    print(f"\noptimal-consistent / optimal (medians, same run): {ratio:.2f}")


if __name__ == "__main__":
    main()
