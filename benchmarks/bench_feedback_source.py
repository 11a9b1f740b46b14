"""Feedbacks from the table or computed from packed codes (issue 20): a one-step tree of
(5,8), where both fit, built each way in its own process (kernels loaded, the table
ready), alternated; seconds, peak memory and the total (the same either way).

    .venv/bin/python benchmarks/bench_feedback_source.py [--repeats 3] [--threads 2]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.machine import machine_line  # noqa: E402
from benchmarks.peers import alternate, python_json  # noqa: E402

_ONE = """
import json, sys, time
from evo.core import engine
from evo.core.game import make_game
from evo.search.lookahead import lookahead_tree
heuristic, threads, cache = sys.argv[1], int(sys.argv[2]), sys.argv[4]
table = sys.argv[3] == "table"
engine.set_threads(threads)
lookahead_tree(make_game(4, 6), heuristic, engine="compiled")  # kernels loaded
g = make_game(5, 8, table=table, cache=cache if table else None).prepare()
t0 = time.perf_counter(); tree = lookahead_tree(g, heuristic); seconds = time.perf_counter() - t0
status = open("/proc/self/status").read().splitlines()
hwm = next(int(x.split()[1]) for x in status if x.startswith("VmHWM:"))
print(json.dumps({"seconds": seconds, "total": tree.total, "peak_mib": hwm / 1024}))
"""


def one(heuristic: str, threads: int, table: bool, cache: str, out: list[dict]) -> float:
    out.append(python_json(_ONE, heuristic, str(threads), "table" if table else "none", cache))
    return out[-1]["seconds"]


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--threads", type=int, default=2)
    args = ap.parse_args(argv if argv is not None else [])
    cache = tempfile.mkdtemp(prefix="evo-bench-source-")
    print("## Feedbacks from the table or computed (issue 20)\n")
    print(f"{machine_line()} Command: `.venv/bin/python benchmarks/bench_feedback_source.py`.\n")
    print("| (5,8) | total | table: s (median) | computed: s | table / computed peak MiB |")
    print("|---|---|---|---|---|")
    for heuristic in ("knuth", "kooi"):
        with_table: list[dict] = []
        computed: list[dict] = []
        a, b = alternate(
            lambda h=heuristic, out=with_table: one(h, args.threads, True, cache, out),
            lambda h=heuristic, out=computed: one(h, args.threads, False, cache, out),
            args.repeats,
            warm_up=True,
        )
        totals = {r["total"] for r in with_table + computed}
        assert len(totals) == 1, totals
        print(
            f"| {heuristic}, {args.threads} threads | {totals.pop()} | "
            f"{statistics.median(a):.2f} | {statistics.median(b):.2f} | "
            f"{max(r['peak_mib'] for r in with_table):.0f} / "
            f"{max(r['peak_mib'] for r in computed):.0f} |"
        )


if __name__ == "__main__":
    main(sys.argv[1:])
