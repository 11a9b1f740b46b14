"""Speed of the exact optimum, side by side with fancidev's ``mmstrat -s optimal`` (issue 9).

Targets: the optimum of (4,6) and of Bulls and Cows 4 of 8 within 10x mmstrat; (4,7)
(11228) in 5 minutes or less. Each round runs evo and mmstrat as whole processes, one
after the other, the order alternating between rounds; the figures are medians. evo's
process also reports its compute time: the search and the tree, after the feedback table
is built and the compiled kernels are loaded (numba's start, about a second, is apart).

    .venv/bin/python benchmarks/bench_exact.py          # (4,4), (4,6), B&C 4 of 8; 3 rounds
    .venv/bin/python benchmarks/bench_exact.py --full   # also (4,7) and B&C 4 of 10, once
    .venv/bin/python benchmarks/bench_exact.py --rounds 7   # more rounds for the quick games
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.machine import machine_line  # noqa: E402
from benchmarks.peers import PeersMissing, run_peer  # noqa: E402


@dataclass(frozen=True)
class Case:
    label: str
    pegs: int
    colors: int
    variant: str
    rules: str  # mmstrat's -r
    optimum: int


QUICK = [
    Case("(4,4)", 4, 4, "mastermind", "p4c4r", 905),
    Case("(4,6)", 4, 6, "mastermind", "mm", 5625),
    Case("Bulls and Cows 4 of 8", 4, 8, "bulls-cows", "p4c8n", 7817),
]
FULL = [
    Case("(4,7)", 4, 7, "mastermind", "p4c7r", 11228),
    Case("Bulls and Cows 4 of 10", 4, 10, "bulls-cows", "bc", 26274),
]
TIME_LIMIT = 600.0

#: evo's side: whole process; prints the total and the seconds of each phase.
_EVO = """
import json, sys, time
t0 = time.perf_counter()
import numpy as np
from evo.core.game import make_game
from evo.baselines.optimal import optimal
pegs, colors, variant, limit = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3], float(sys.argv[4])
g = make_game(pegs, colors, variant).prepare()
t1 = time.perf_counter()
small = make_game(2, 2).prepare()
optimal(small, time_limit=limit)  # loads the compiled kernels the search uses
t2 = time.perf_counter()
tree = optimal(g, time_limit=limit)
t3 = time.perf_counter()
print(json.dumps({"total": tree.total, "start": t1 - t0, "kernels": t2 - t1,
                  "compute": t3 - t2}))
"""


def _evo(case: Case) -> tuple[dict, float]:
    args = [str(case.pegs), str(case.colors), case.variant, str(TIME_LIMIT)]
    t0 = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", _EVO, *args], capture_output=True, text=True, cwd=HERE.parent
    )
    wall = time.perf_counter() - t0
    if done.returncode != 0:
        return {"error": done.stderr.strip().splitlines()[-1][:200]}, wall
    return json.loads(done.stdout.strip().splitlines()[-1]), wall


def _peer(case: Case) -> tuple[int, float]:
    run = run_peer("mmstrat", "-r", case.rules, "-s", "optimal", "-S", "-q", timeout=1800)
    return int(run.stdout.strip().split(":")[0]), run.seconds


def _row(case: Case, rounds: int) -> str:
    walls, computes, peers, totals, peer_totals = [], [], [], set(), set()
    for r in range(rounds):
        order = [_evo, _peer] if r % 2 == 0 else [_peer, _evo]
        for fn in order:
            if fn is _evo:
                out, wall = _evo(case)
                if "error" in out:
                    return f"| {case.label} | – | {out['error']} | | | | |"
                walls.append(wall)
                computes.append(out["compute"])
                totals.add(out["total"])
            else:
                total, seconds = _peer(case)
                peers.append(seconds)
                peer_totals.add(total)
    w, c, p = (statistics.median(x) for x in (walls, computes, peers))

    def sec(x: float) -> str:
        return f"{x:.3f} s" if x < 1 else f"{x:.2f} s"

    ok = "" if totals == peer_totals == {case.optimum} else " **MISMATCH**"
    return (
        f"| {case.label} | {'/'.join(map(str, sorted(totals)))}{ok} | {sec(w)} | {sec(c)} "
        f"| {sec(p)} | {w / p:.1f}x | {c / p:.2f}x |"
    )


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    full = "--full" in args
    rounds = int(args[args.index("--rounds") + 1]) if "--rounds" in args else 3
    try:
        run_peer("mmstrat", "-v")
    except (PeersMissing, RuntimeError) as e:
        print(f"## Exact optimum vs mmstrat\n\nskipped: {e}\n")
        return
    print("## Exact optimum: evo vs fancidev's mmstrat (issue 9)\n")
    print(f"Machine: {machine_line()}. Shared with other work; whole processes, alternating.\n")
    print(
        "| game | total | evo whole process | evo compute | mmstrat | ratio (whole) "
        "| ratio (compute) |"
    )
    print("|---|---|---|---|---|---|---|")
    for case in QUICK:
        print(_row(case, rounds), flush=True)
    if full:
        for case in FULL:
            print(_row(case, 1), flush=True)
    print(
        "\nevo compute: the search and the tree, after the table is built and the kernels "
        f"are loaded; mmstrat's figure is its whole process. Medians of {rounds} rounds "
        "(1 for the games of `--full`)."
    )


if __name__ == "__main__":
    main()
