"""evo side by side with the C++ programs people use for the same work (issue 9 targets).

Rows: growth of 1000 random (4,6) breakers against the plain C++ version of the same
algorithm (``rpc``); the one-step heuristics on (4,6) and Knuth on (5,8) against mikemag;
start-up (``evo --help``) against fancidev's ``mmstrat -h``. Compute only where the peer
reports its own compute time (rpc's growth time, mikemag's ``Elapsed``); evo is timed
the same way, its feedback table ready. Runs of evo and of the peer alternate, each is
repeated, and the medians and their ratio are printed. When the peers' sources are not on
this machine (a fresh clone) the section says so and skips them.

    .venv/bin/python benchmarks/bench_peers.py [--repeats 5] [--quick]   # --quick: no (5,8)
"""

from __future__ import annotations

import argparse
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.machine import machine_line  # noqa: E402
from benchmarks.peers import PeersMissing, alternate, peers_dir, python_json, run_peer  # noqa: E402

#: evo's one-step baselines and mikemag's names for the same heuristics.
MIKEMAG_46 = [
    ("knuth", "mm_Knuth_4_6"),
    ("irving", "mm_ExpectedSize_4_6"),
    ("kooi", "mm_MostParts_4_6"),
    ("entropy", "mm_Entropy_4_6"),
]

_KNUTH_58 = """
import json, sys, time
from evo.core.game import make_game
from evo.baselines import build
t0 = time.perf_counter(); g = make_game(5, 8, cache=sys.argv[1]).prepare()
table = time.perf_counter() - t0
t0 = time.perf_counter(); tree = build(g, "knuth"); first = time.perf_counter() - t0
t0 = time.perf_counter(); tree = build(g, "knuth"); seconds = time.perf_counter() - t0
status = dict(l.split(":", 1) for l in open("/proc/self/status").read().splitlines() if ":" in l)
kib = lambda k: int(status.get(k, "0 kB").split()[0])
print(json.dumps({"table": table, "first": first, "seconds": seconds, "total": tree.total,
                  "anon_mib": kib("RssAnon") / 1024, "file_mib": kib("RssFile") / 1024}))
"""


def _median(xs: list[float]) -> float:
    return statistics.median(xs)


def _row(what: str, a: list[float], b: list[float], peer: str, target: str) -> str:
    ma, mb = _median(a), _median(b)
    return (
        f"| {what} | {_fmt(ma)} | {peer} {_fmt(mb)} | {ma / mb:.2f}x | {target} | "
        f"{_fmt(min(a))}–{_fmt(max(a))} / {_fmt(min(b))}–{_fmt(max(b))} |"
    )


def _fmt(s: float) -> str:
    return f"{s * 1000:.1f} ms" if s < 1 else f"{s:.2f} s"


def growth_row(repeats: int) -> str:
    from evo.core.game import make_game
    from evo.core.population import random_population

    game = make_game(4, 6).prepare()
    random_population(game, 20, seed=0)  # loads the compiled kernel
    seeds = iter(range(1, 10 * repeats))

    def evo() -> float:
        t0 = time.perf_counter()
        random_population(game, 1000, seed=next(seeds))
        return time.perf_counter() - t0

    def rpc() -> float:
        out = run_peer("rpc", "4", "6", "1000", "1").stdout
        return float(re.search(r"growth ([0-9.]+) s", out).group(1))

    a, b = alternate(evo, rpc, repeats)
    return _row("1000 random (4,6) breakers, growth only", a, b, "rpc", "<= 2x")


def heuristic_rows(repeats: int) -> list[str]:
    from evo.baselines import build
    from evo.core.game import make_game

    game = make_game(4, 6).prepare()
    cwd = peers_dir() / "mikemag-run"
    rows = []
    for name, peer in MIKEMAG_46:
        build(game, name)  # loads the compiled kernels

        def evo(name=name) -> float:
            t0 = time.perf_counter()
            build(game, name)
            return time.perf_counter() - t0

        def mm(peer=peer) -> float:
            out = run_peer(peer, cwd=cwd).stdout
            return float(re.search(r"Elapsed time ([0-9.]+)s", out).group(1))

        a, b = alternate(evo, mm, repeats)
        rows.append(_row(f"{name} (4,6), compute only", a, b, peer, "<= 3x"))
    return rows


def knuth_58_rows(repeats: int) -> list[str]:
    cwd = peers_dir() / "mikemag-run"
    runs: list[dict] = []
    cache = tempfile.mkdtemp(prefix="evo-bench-peers-")  # the table file, built by the first run

    def evo() -> float:
        runs.append(python_json(_KNUTH_58, cache))
        return runs[-1]["seconds"]

    def mm() -> float:
        out = run_peer("mm_Knuth_5_8", cwd=cwd).stdout
        return float(re.search(r"Elapsed time ([0-9.]+)s", out).group(1))

    a, b = alternate(evo, mm, repeats)
    table = _median([r["table"] for r in runs])
    anon = max(r["anon_mib"] for r in runs)
    mapped = _median([r["file_mib"] for r in runs])
    return [
        _row("Knuth (5,8), compute only, warm", a, b, "mm_Knuth_5_8", "<= 0.6x"),
        f"| Knuth (5,8): the first tree of a process (its kernels loaded) | "
        f"{_fmt(_median([r['first'] for r in runs]))} | - | - | - | |",
        f"| Knuth (5,8): table ready (mapped from the cache file), per process | "
        f"{_fmt(table)} | - | - | - | total {runs[-1]['total']} |",
        f"| Knuth (5,8): private memory (RssAnon) / shared file pages (RssFile) per process | "
        f"{anon:.0f} MiB / {mapped:.0f} MiB | - | - | no second table copy | |",
    ]


def startup_row(repeats: int) -> str:
    evo_bin = Path(sys.executable).with_name("evo")

    def evo() -> float:
        t0 = time.perf_counter()
        subprocess.run([str(evo_bin), "--help"], capture_output=True, check=True)
        return time.perf_counter() - t0

    def mm() -> float:
        return run_peer("mmstrat", "-h").seconds

    a, b = alternate(evo, mm, repeats)
    return _row("start-up: `evo --help` / `mmstrat -h`, whole process", a, b, "mmstrat", "-")


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="leave out Knuth (5,8)")
    args = ap.parse_args([] if argv is None else argv)
    lines = ["## evo side by side with the C++ peers (issue 9)", ""]
    lines.append(
        f"Machine: {machine_line()}; shared with other engineers' jobs while measured, so "
        "only the ratios of alternated runs are meaningful. Command: "
        f"`.venv/bin/python benchmarks/bench_peers.py --repeats {args.repeats}"
        f"{' --quick' if args.quick else ''}`."
    )
    try:
        peers_dir()
    except PeersMissing as e:
        lines += ["", f"Skipped: {e}."]
        text = "\n".join(lines)
        print(text)
        return text
    lines += [
        "",
        "| work | evo (median) | peer (median) | ratio | target | spread evo / peer |",
        "|---|---|---|---|---|---|",
    ]
    lines.append(growth_row(args.repeats))
    lines += heuristic_rows(args.repeats)
    if not args.quick:
        lines += knuth_58_rows(max(1, min(args.repeats, 3)))
    lines.append(startup_row(max(args.repeats, 10)))
    text = "\n".join(lines)
    print(text)
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
