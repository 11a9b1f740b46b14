"""Speed as a user meets it (issue 23): whole processes from a fresh cache, alternated with
the C++ peers in the same run, and one big job on 1 and 2 threads.

Targets: ``evo baselines -n 4 -c 6 --only knuth`` in at most 0.5 s and ``evo --help``
within 1.5x ``python -c "import numpy"``; whole process at most 3x mmstrat for the (4,6)
optimum and 1.5x mikemag for Knuth (5,8); Knuth (5,8) at least 1.7x faster on 2 threads
than on 1. Each evo process gets an empty ``EVO_CACHE`` (nothing computed before, as on
a first use: a one-step baseline then computes the feedbacks it needs rather than build
the 1 GiB (5,8) table); numba's compiled kernels stay cached, as after installation.
Warm figures (compute only) are those of ``bench_peers.py`` and ``bench_exact.py`` in the
same ``make bench``.

    .venv/bin/python benchmarks/bench_cold.py [--repeats 5] [--quick]   # --quick: no (5,8)
"""

from __future__ import annotations

import argparse
import os
import shutil
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

EVO = [str(Path(sys.executable).with_name("evo"))]

#: Knuth (5,8) in one process on the cached table, with the threads given (compute only:
#: the second tree of the process, once the first has loaded every kernel it calls, the
#: threaded ones included, which a (4,6) tree does not reach).
_KNUTH_58_THREADS = """
import json, sys, time
from evo.core import engine
from evo.core.game import make_game
from evo.search.lookahead import lookahead_tree
engine.set_threads(int(sys.argv[1]))
g = make_game(5, 8, cache=sys.argv[2]).prepare()
lookahead_tree(g, "knuth")  # kernels loaded
t0 = time.perf_counter(); tree = lookahead_tree(g, "knuth")
print(json.dumps({"seconds": time.perf_counter() - t0, "total": tree.total}))
"""


def _wall(cmd: list[str], *, cwd: Path | None = None, fresh_cache: bool = True) -> float:
    """Seconds of one whole process (output discarded), with an empty ``EVO_CACHE``."""
    tmp = tempfile.mkdtemp(prefix="evo-bench-cold-")
    env = dict(os.environ, EVO_CACHE=tmp) if fresh_cache else dict(os.environ)
    try:
        t0 = time.perf_counter()
        subprocess.run(cmd, cwd=cwd, env=env, stdout=subprocess.DEVNULL, check=True)
        return time.perf_counter() - t0
    finally:
        shutil.rmtree(tmp, ignore_errors=True)


def _row(what: str, xs: list[float], ys: list[float], other: str, target: str) -> str:
    a, b = statistics.median(xs), statistics.median(ys)
    spread = f"{min(xs):.2f}-{max(xs):.2f} / {min(ys):.2f}-{max(ys):.2f}"
    return f"| {what} | {a:.3f} s | {b:.3f} s ({other}) | {a / b:.2f}x | {target} | {spread} |"


def rows(repeats: int, quick: bool) -> list[str]:
    out = []
    numpy = [sys.executable, "-c", "import numpy"]
    xs, ys = alternate(
        lambda: _wall([*EVO, "--help"]), lambda: _wall(numpy), repeats * 2, warm_up=True
    )
    out.append(_row("`evo --help`", xs, ys, "`python -c 'import numpy'`", "<= 1.5x"))
    knuth46 = [*EVO, "baselines", "-n", "4", "-c", "6", "--only", "knuth"]
    run = peers_dir() / "mikemag-run"
    xs, ys = alternate(
        lambda: _wall(knuth46),
        lambda: run_peer("mm_Knuth_4_6", cwd=run).seconds,
        repeats,
        warm_up=True,
    )
    out.append(_row("Knuth (4,6): `" + " ".join(knuth46[1:]) + "`", xs, ys, "mikemag", "<= 0.5 s"))
    optimal46 = [*EVO, "baselines", "-n", "4", "-c", "6", "--only", "optimal"]
    mmstrat = ["-r", "mm", "-s", "optimal", "-S", "-q"]
    xs, ys = alternate(
        lambda: _wall(optimal46),
        lambda: run_peer("mmstrat", *mmstrat).seconds,
        repeats,
        warm_up=True,
    )
    out.append(_row("optimum (4,6), 5625", xs, ys, "mmstrat", "<= 3x"))
    if quick:
        return out
    knuth58 = [*EVO, "baselines", "-n", "5", "-c", "8", "--only", "knuth"]
    few = max(1, min(repeats, 3))
    xs, ys = alternate(
        lambda: _wall(knuth58), lambda: run_peer("mm_Knuth_5_8", cwd=run).seconds, few, warm_up=True
    )
    out.append(_row("Knuth (5,8), fresh cache (no table built)", xs, ys, "mikemag", "<= 1.5x"))
    cache = tempfile.mkdtemp(prefix="evo-bench-threads-")
    try:
        by = {}
        for threads in (1, 2, 1, 2, 1, 2)[: 2 * few]:
            done = python_json(_KNUTH_58_THREADS, str(threads), cache)
            by.setdefault(threads, []).append(done["seconds"])
        out.append(
            _row("Knuth (5,8) compute, 2 threads vs 1", by[2], by[1], "1 thread", ">= 1.7x faster")
        )
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    return out


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=5)
    ap.add_argument("--quick", action="store_true", help="leave out Knuth (5,8)")
    args = ap.parse_args([] if argv is None else argv)
    lines = ["## Whole processes from a fresh cache, and threads (issue 23)", ""]
    lines.append(
        f"Machine: {machine_line()}. Command: `.venv/bin/python benchmarks/bench_cold.py "
        f"--repeats {args.repeats}{' --quick' if args.quick else ''}`; medians of alternated "
        "runs, each evo process with an empty `EVO_CACHE`."
    )
    try:
        peers_dir()
    except PeersMissing as e:
        lines += ["", f"Skipped: {e}."]
    else:
        lines += [
            "",
            "| work | evo (median) | other (median) | ratio | target | spread evo / other |",
            "|---|---|---|---|---|---|",
            *rows(args.repeats, args.quick),
        ]
    text = "\n".join(lines)
    print(text)
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
