"""The tasks of the exact optimum of a big game, measured (issue 35, docs/CLUSTER.md).

The spread search (evo.search.spread) writes every task it finishes (a leaf: a code set
searched whole) to its results file, with its size, nodes and seconds. This script runs
the optimum of a game for a while with a results file (it gives up at the time limit,
and a later call goes on from the file), or reads the file of a finished proof, and sums
the tasks up by size: how many, their seconds (median, mean, the largest), the total.

    .venv/bin/python benchmarks/plan_cluster.py 5x7 --seconds 3600 --results /tmp/p57.jsonl
    .venv/bin/python benchmarks/plan_cluster.py --summary /tmp/p56.jsonl
"""

from __future__ import annotations

import json
import statistics
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from benchmarks.machine import machine_line  # noqa: E402

#: Sizes of code sets, by class, for the sums.
CLASSES = [(32, 100), (100, 300), (300, 1000), (1000, 3000), (3000, 10**7)]


def summary(path: Path) -> str:
    """A table of the tasks a results file holds, by size."""
    if not path.is_file():
        return f"No results file at {path}: no task finished."
    lines = path.read_text().splitlines()
    head = json.loads(lines[0])
    tasks = [json.loads(line) for line in lines[1:]]
    out = [
        f"Results file of {head.get('game')}: {len(tasks)} tasks "
        f"({sum(t['exact'] for t in tasks)} exact, the others lower bounds).\n",
        "| codes | tasks | seconds a task: median, mean, largest | nodes a task: median | "
        "seconds, all |",
        "|---|---|---|---|---|",
    ]
    total = 0.0
    for lo, hi in CLASSES:
        got = [t for t in tasks if lo <= t["n"] < hi]
        if not got:
            continue
        secs = [t["seconds"] for t in got]
        total += sum(secs)
        out.append(
            f"| {lo}-{hi - 1 if hi < 10**7 else ''} | {len(got)} | {statistics.median(secs):.3f}, "
            f"{statistics.fmean(secs):.3f}, {max(secs):.1f} | "
            f"{statistics.median([t['nodes'] for t in got]):,.0f} | {sum(secs):,.0f} |"
        )
    out.append(f"\nAll tasks: {total:,.0f} s ({total / 3600:,.2f} core-hours).")
    return "\n".join(out)


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    if "--summary" in args:
        print(summary(Path(args[args.index("--summary") + 1])))
        return
    from evo.baselines.optimal import OptimalRefused, Where, optimal
    from evo.core.game import make_game

    pegs, colors = (int(x) for x in args[0].split("x"))
    seconds = float(args[args.index("--seconds") + 1]) if "--seconds" in args else 600
    path = Path(args[args.index("--results") + 1])
    game = make_game(pegs, colors).prepare()
    import importlib

    optmod = importlib.import_module("evo.baselines.optimal")  # the module, not the function
    optmod.MEASURED_SECONDS = {}  # a sample: search until the limit, whatever the estimate
    print(f"## Tasks of the ({pegs},{colors}) optimum (issue 35)\n")
    print(f"Machine: {machine_line()}.\n")
    try:
        tree = optimal(game, time_limit=seconds, where=Where(results=path))
        print(f"Finished: {tree.total}.\n")
    except OptimalRefused as e:
        print(f"Stopped after {seconds:g} s ({e}).\n")
    print(summary(path))


if __name__ == "__main__":
    main()
