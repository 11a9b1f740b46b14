"""Speed of the exhaustive baselines (issue 3 targets).

Targets: Knuth on (4,6) in 0.5 s or less; all eight one-step strategies on (4,6) in 5 s
or less together; Knuth on (5,8) in 2 minutes or less within 4 GiB; Knuth on 4-digit
Bulls and Cows in 30 s or less; the exact optimum of (3,4) in 10 s or less; and the
largest game whose optimum finishes in 10 minutes. Feedback tables are built before the
clocks start (their one-time cost is listed apart). The (5,8) run is a subprocess of its
own, so that its peak memory (``ru_maxrss``) is its alone.

    .venv/bin/python benchmarks/bench_baselines.py           # everything (about 20 min)
    .venv/bin/python benchmarks/bench_baselines.py --quick   # no (5,8), no optimum ladder
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.machine import machine_line  # noqa: E402
from evo.baselines import HEURISTICS, build  # noqa: E402
from evo.baselines.optimal import OptimalRefused, optimal  # noqa: E402
from evo.core.game import make_game  # noqa: E402

#: Games whose optimum is tried, in order of size, each with ten minutes.
LADDER = [
    ("mastermind", 3, 4),
    ("mastermind", 4, 4),
    ("mastermind", 3, 6),
    ("bulls-cows", 4, 6),
    ("mastermind", 4, 5),
    ("bulls-cows", 3, 10),
    ("bulls-cows", 4, 7),
    ("mastermind", 5, 4),
    ("mastermind", 4, 6),
    ("bulls-cows", 4, 8),
    ("mastermind", 4, 7),
]
TEN_MINUTES = 600.0

_KNUTH_58 = """
import json, resource, time
from evo.core.game import make_game
from evo.baselines import build
t0 = time.perf_counter(); g = make_game(5, 8).prepare(); table = time.perf_counter() - t0
t0 = time.perf_counter(); tree = build(g, "knuth"); seconds = time.perf_counter() - t0
print(json.dumps({"table": table, "seconds": seconds, "total": tree.total,
                  "average": tree.average, "worst": tree.worst,
                  "first": g.format_code(int(tree.guess[0])),
                  "maxrss": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss * 1024}))
"""


def _timed(fn):
    t0 = time.perf_counter()
    out = fn()
    return out, time.perf_counter() - t0


def _knuth_58() -> dict:
    proc = subprocess.run(
        [sys.executable, "-c", _KNUTH_58],
        capture_output=True,
        text=True,
        check=True,
        cwd=HERE.parent,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    quick = "--quick" in (sys.argv[1:] if argv is None else argv)
    rows = []
    g46 = make_game(4, 6).prepare()
    times = []
    for _ in range(5):
        tree, s = _timed(lambda: build(g46, "knuth"))
        times.append(s)
    rows.append(
        (
            f"Knuth (4,6): {tree.total}, worst {tree.worst}, first "
            f"{g46.format_code(int(tree.guess[0]))}; median of 5",
            f"{statistics.median(times):.3f} s",
            "<= 0.5 s",
        )
    )
    per = {}
    for name in HEURISTICS:
        t, s = _timed(lambda name=name: build(g46, name))
        per[name] = (t.total, s)
    rows.append(
        (
            "all eight one-step strategies on (4,6), together",
            f"{sum(s for _, s in per.values()):.2f} s",
            "<= 5 s",
        )
    )
    bc = make_game(4, 10, "bulls-cows")
    _, table_s = _timed(bc.prepare)
    tree, s = _timed(lambda: build(bc, "knuth"))
    rows.append(
        (
            f"Knuth, 4-digit Bulls and Cows: {tree.total} (average {tree.average:.4f}, worst "
            f"{tree.worst}); table {table_s:.2f} s apart",
            f"{s:.2f} s",
            "<= 30 s",
        )
    )
    if not quick:
        k = _knuth_58()
        rows.append(
            (
                f"Knuth (5,8): {k['total']} (average {k['average']:.4f}, worst {k['worst']}, "
                f"first {k['first']}); table {k['table']:.1f} s apart",
                f"{k['seconds']:.1f} s (with table {k['seconds'] + k['table']:.1f} s), "
                f"peak {k['maxrss'] / 1024**3:.2f} GiB",
                "<= 120 s, <= 4 GiB",
            )
        )
    g34 = make_game(3, 4).prepare()
    tree, s = _timed(lambda: optimal(g34, None))
    rows.append((f"exact optimum (3,4): {tree.total}", f"{s:.2f} s", "<= 10 s"))

    ladder = []
    if not quick:
        for variant, pegs, colors in LADDER:
            game = make_game(pegs, colors, variant).prepare()
            t0 = time.perf_counter()
            try:
                tree = optimal(game, TEN_MINUTES)
                ladder.append((game, tree.total, tree.worst, time.perf_counter() - t0, None))
            except OptimalRefused as e:
                ladder.append((game, None, None, time.perf_counter() - t0, str(e)))

    print("## Exhaustive baselines (issue 3)\n")
    print(
        f"Machine: {machine_line()}. Command: `make bench` (or "
        "`.venv/bin/python benchmarks/run_all.py baselines`).\n"
    )
    print("| what | measured | target |\n|---|---|---|")
    for r in rows:
        print(f"| {r[0]} | {r[1]} | {r[2]} |")
    print("\nOne-step strategies on (4,6) (all codes as candidates, then consistent only):\n")
    print("| strategy | total | average | time |\n|---|---|---|---|")
    for name, (total, s) in per.items():
        print(f"| {name} | {total} | {total / 1296:.4f} | {s:.3f} s |")
    if ladder:
        print("\nExact optimum, ten minutes per game:\n")
        print("| game | codes | optimum | average | worst | time |\n|---|---|---|---|---|---|")
        for game, total, worst, s, refused in ladder:
            label = f"{game.variant} ({game.pegs},{game.colors})"
            if refused:
                print(f"| {label} | {game.num_codes} | not finished | - | - | {refused} |")
            else:
                print(
                    f"| {label} | {game.num_codes} | {total} | {total / game.num_codes:.4f} | "
                    f"{worst} | {s:.1f} s |"
                )
        done = [x for x in ladder if x[1] is not None]
        if done:
            big = max(done, key=lambda x: x[0].num_codes)[0]
            print(
                f"\nLargest game whose optimum finished in ten minutes: {big.variant} "
                f"({big.pegs},{big.colors}), {big.num_codes} codes."
            )


if __name__ == "__main__":
    main()
