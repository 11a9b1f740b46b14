"""How far the proved lower bound gets in a time budget (issue 52): whole processes of
``evo bound --seconds S --threads 1 --workers 1``, with the shipped breaker as upper
bounds (``--against``) and without (levels only, best first), the two turn about.

    .venv/bin/python benchmarks/bench_bounds.py               # (4,8), 120 s, 3 rounds
    .venv/bin/python benchmarks/bench_bounds.py --long        # and (5,6), (4,10), (5,7), (5,8)
    .venv/bin/python benchmarks/bench_bounds.py --game 5x6 --seconds 1800 --rounds 1

Per run: the bound and the gap at the end of the budget (to the optimum where it is
known, else to the shipped breaker), the seconds until the gap first reached the
target, and the peak memory. Medians over the rounds.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.machine import machine_line  # noqa: E402

EVO = [sys.executable, "-c", "import sys; from evo.cli import main; sys.argv[0]='evo'; main()"]


@dataclass(frozen=True)
class Case:
    pegs: int
    colors: int
    seconds: float
    #: The gap asked by issue 52, in percent of the best total.
    target: float


QUICK = [Case(4, 8, 120, 0.5)]
LONG = [
    Case(5, 6, 1800, 0.3),
    Case(4, 10, 1800, 1.0),
    Case(5, 7, 2400, 0.75),
    Case(5, 8, 2400, 1.0),
]


def run(case: Case, against: bool) -> dict:
    """One whole ``evo bound`` process: its JSON, wall seconds and peak memory (MiB)."""
    cmd = [
        *EVO, "bound", "-n", str(case.pegs), "-c", str(case.colors), "--seconds",
        str(case.seconds), "--threads", "1", "--workers", "1", "--json",
    ]  # fmt: skip
    if against:
        cmd += ["--against", f"breakers/mastermind-{case.pegs}-{case.colors}.json"]
    with tempfile.TemporaryFile() as err:
        start = time.perf_counter()
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=err, cwd=HERE.parent)
        assert proc.stdout is not None
        out = proc.stdout.read().decode()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        if os.waitstatus_to_exitcode(status) != 0:
            err.seek(0)
            raise SystemExit(f"{' '.join(cmd)} failed: {err.read().decode()[-500:]}")
    data = json.loads(out)
    return {**data, "wall": wall, "peak_mib": usage.ru_maxrss / 1024}


def best_total(case: Case) -> tuple[int, bool]:
    """The optimum when known (and whether it is), else the shipped breaker's total."""
    from evo.baselines.known import KNOWN_OPTIMA
    from evo.core.treeio import load_tree

    known = KNOWN_OPTIMA.get((case.pegs, case.colors, "mastermind"))
    if known is not None:
        return known, True
    tree = load_tree(HERE.parent / "breakers" / f"mastermind-{case.pegs}-{case.colors}.json")
    return tree.total, False


def reached(history: list, best: int, target: float) -> float | None:
    """The seconds at which the bound first came within ``target`` percent of ``best``."""
    for entry in history:
        if 100 * (best - entry[1]) / best <= target:
            return float(entry[0])
    return None


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--long", action="store_true", help="the big games too (hours)")
    ap.add_argument("--game", help="one game, PxC (with --seconds and --target)")
    ap.add_argument("--seconds", type=float, default=120.0)
    ap.add_argument("--target", type=float, default=1.0)
    ap.add_argument("--rounds", type=int, default=3)
    args = ap.parse_args(argv if argv is not None else [])
    if args.game:
        p, c = (int(x) for x in args.game.lower().split("x"))
        cases = [Case(p, c, args.seconds, args.target)]
    else:
        cases = QUICK + (LONG if args.long else [])
    print(f"### Proved lower bounds in a time budget ({machine_line()})\n")
    print(
        "| game | budget | sides | bound (median) | gap (to the optimum or the best shipped) "
        "| target | seconds to the target (median) | peak MiB |"
    )
    print("|---|---|---|---|---|---|---|---|")
    for case in cases:
        best, known = best_total(case)
        sides: dict[str, list[dict]] = {"--against": [], "levels only": []}
        for r in range(args.rounds):
            order = [True, False] if r % 2 == 0 else [False, True]
            for against in order:
                sides["--against" if against else "levels only"].append(run(case, against))
        for name, runs in sides.items():
            lower = statistics.median(x["lower_bound"] for x in runs)
            gap = 100 * (best - lower) / best
            times = [reached(x["history"], best, case.target) for x in runs]
            hit = [t for t in times if t is not None]
            when = (
                f"{statistics.median(hit):.1f} s ({len(hit)} of {len(runs)})"
                if hit
                else f"not reached ({len(runs)} runs)"
            )
            peak = max(x["peak_mib"] for x in runs)
            print(
                f"| ({case.pegs},{case.colors}) | {case.seconds:g} s | {name} | {lower:,.0f} "
                f"| {gap:.2f}% to {best:,}{' (optimum)' if known else ''} | {case.target}% "
                f"| {when} | {peak:.0f} |",
                flush=True,
            )


if __name__ == "__main__":
    main(sys.argv[1:])
