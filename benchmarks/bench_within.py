"""The exact search within a depth limit: compiled (``evo.search.within_kernel``) against
the Python recursion it replaced, each a process of its own, the order turning between
rounds; the search alone is timed (the kernels loaded first), medians, and the totals
compared.

    .venv/bin/python benchmarks/bench_within.py                   # (4,6) in 5, (4,8) in 6
    .venv/bin/python benchmarks/bench_within.py --games 4x6:5 --rounds 5
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.machine import machine_line  # noqa: E402

CHILD = """
import json, sys, time
sys.path.insert(0, {tests!r})
from evo.core.game import make_game
from evo.search.exact import Solver
from support.searches import PythonSolver
pegs, colors, depth, side = int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
game = make_game(pegs, colors)
game.prepare()
solver = (Solver if side == "compiled" else PythonSolver)(game, policy="symmetry")
solver.total(game.all_codes()[:50], depth=3)  # the kernels loaded
wall, cpu = time.perf_counter(), time.process_time()
total = solver.total(game.all_codes(), depth=depth)
print(json.dumps({{"total": total, "wall": time.perf_counter() - wall,
                  "cpu": time.process_time() - cpu}}))
"""


def _option(args: list[str], name: str, default: str) -> str:
    return args[args.index(name) + 1] if name in args else default


def _run(pegs: int, colors: int, depth: int, side: str) -> dict:
    code = CHILD.format(tests=str(HERE.parent / "tests"))
    out = subprocess.run(
        [sys.executable, "-c", code, str(pegs), str(colors), str(depth), side],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    games = _option(args, "--games", "4x6:5,4x8:6").split(",")
    rounds = int(_option(args, "--rounds", "3"))
    sides = ("compiled", "python")
    print("### The exact search within a depth limit: compiled against the Python recursion\n")
    print(machine_line() + "\n")
    print(f"| game | within | side | search (median of {rounds}) | all runs | CPU | total |")
    print("|---|---|---|---|---|---|---|")
    for spec in games:
        shape, depth = spec.split(":")
        pegs, colors = (int(x) for x in shape.split("x"))
        got: dict[str, list[dict]] = {s: [] for s in sides}
        for r in range(rounds):
            for side in sides if r % 2 == 0 else sides[::-1]:
                got[side].append(_run(pegs, colors, int(depth), side))
                print(f"  ({pegs},{colors}) {side}: {got[side][-1]}", file=sys.stderr, flush=True)
        med = {s: statistics.median(x["wall"] for x in got[s]) for s in sides}
        for side in sides:
            runs = ", ".join(f"{x['wall']:.1f}" for x in got[side])
            cpu = statistics.median(x["cpu"] for x in got[side])
            totals = sorted({x["total"] for x in got[side]})
            print(
                f"| ({pegs},{colors}) | {depth} | {side} | {med[side]:.2f} s | {runs} "
                f"| {cpu:.1f} s | {', '.join(map(str, totals))} |"
            )
        same = len({x["total"] for s in sides for x in got[s]}) == 1
        print(
            f"\n({pegs},{colors}) within {depth}: compiled {med['python'] / med['compiled']:.1f}x "
            f"as fast; the same total on both sides: {'yes' if same else 'NO'}.\n"
        )


if __name__ == "__main__":
    main()
