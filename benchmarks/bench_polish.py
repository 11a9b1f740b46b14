"""``evo polish --workers``: an exact band's nodes on one process and on several, whole
processes one after the other, the order turning between rounds; medians, and the trees
compared (the same file on every side).

    .venv/bin/python benchmarks/bench_polish.py                       # (5,8), 41:80:all
    .venv/bin/python benchmarks/bench_polish.py --rounds 5 --workers 1,2
    .venv/bin/python benchmarks/bench_polish.py --tree breakers/mastermind-5-7.json \
        --band 25:80:all --max-guesses 0

Each process starts cold (its own memo): Python's start and the kernels' load included.
"""

from __future__ import annotations

import statistics
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.bench_spread import EVO, _timed, _tree_digest  # noqa: E402
from benchmarks.machine import machine_line  # noqa: E402


def _option(args: list[str], name: str, default: str) -> str:
    return args[args.index(name) + 1] if name in args else default


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    tree = _option(args, "--tree", str(HERE.parent / "breakers" / "mastermind-5-8.json"))
    band = _option(args, "--band", "41:80:all")
    limit = int(_option(args, "--max-guesses", "7"))
    rounds = int(_option(args, "--rounds", "3"))
    sides = [int(w) for w in _option(args, "--workers", "1,2").split(",")]
    walls: dict[int, list[float]] = {w: [] for w in sides}
    trees: dict[int, set[str]] = {w: set() for w in sides}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(rounds):
            for w in sides if r % 2 == 0 else sides[::-1]:
                out = Path(tmp) / f"w{w}.json"
                cmd = [*EVO, "polish", tree, "--band", band, "--threads", "1"]
                cmd += ["--workers", str(w), "-o", str(out)]
                if limit:
                    cmd += ["--max-guesses", str(limit)]
                wall, _, _ = _timed(cmd)
                walls[w].append(wall)
                trees[w].add(_tree_digest(out))
                print(f"  round {r + 1}: {w} worker(s): {wall:.1f} s", file=sys.stderr, flush=True)
    one = statistics.median(walls[sides[0]])
    within = f" --max-guesses {limit}" if limit else ""
    print(f"### evo polish --workers: `{Path(tree).name} --band {band}{within}`\n")
    print(machine_line() + "\n")
    print(f"| workers | wall (median of {rounds}) | all runs | against {sides[0]} | tree |")
    print("|---|---|---|---|---|")
    for w in sides:
        med = statistics.median(walls[w])
        runs = ", ".join(f"{x:.1f}" for x in walls[w])
        print(f"| {w} | {med:.1f} s | {runs} | {one / med:.2f}x | {' / '.join(sorted(trees[w]))} |")
    same = len(set().union(*trees.values())) == 1
    print(f"\nThe same tree on every side: {'yes' if same else 'NO'}.")


if __name__ == "__main__":
    main()
