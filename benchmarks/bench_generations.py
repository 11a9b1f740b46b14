"""Generation time of every shipped config, with the compiled kernels (growth and one-step
look-ahead) and with the NumPy engines they replace, side by side in one process.

Both engines draw the same trees from a seed, so each pair of runs does the same work.
One worker (the engine switch is a setting of this process), a few generations each,
the runs of the two engines alternated; the median seconds per generation is reported.

    .venv/bin/python benchmarks/bench_generations.py [--generations 3] [--repeats 3]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.machine import machine_line  # noqa: E402
from evo.config import load_config  # noqa: E402
from evo.core import engine  # noqa: E402
from evo.runs.driver import run_config  # noqa: E402


def seconds_per_generation(path: Path, generations: int, *, compiled: bool) -> float:
    """Median seconds of generations 1..N (generation 0 is the random population)."""
    engine.DEFAULT = "compiled" if compiled else "numpy"
    cfg = load_config(
        path, [f"stop.generations={generations}", "stop.seconds=null", "workers=1", "seed=1"]
    )
    stamps: list[float] = []
    t0 = time.perf_counter()

    def hook(gen, pop, logbook):
        stamps.append(time.perf_counter() - t0)

    run_config(cfg, progress=False, knuth=False, on_generation=hook)
    steps = [b - a for a, b in zip(stamps, stamps[1:])]
    return statistics.median(steps) if steps else float("nan")


def main(argv: list[str] | None = None) -> str:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--generations", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=3)
    args = ap.parse_args([] if argv is None else argv)
    lines = [
        "## Generation time of the shipped configs, compiled kernels vs NumPy engines (issue 9)",
        "",
        f"Machine: {machine_line()}; shared with other engineers' jobs while measured.",
        f"Command: `.venv/bin/python benchmarks/bench_generations.py --generations "
        f"{args.generations} --repeats {args.repeats}` (1 worker, seed 1, medians of "
        "seconds per generation over alternated runs).",
        "",
        "| config | NumPy engines (before) | compiled (after) | speed-up |",
        "|---|---|---|---|",
    ]
    for path in sorted((ROOT / "configs").glob("*.yaml")):
        before, after = [], []
        for _ in range(args.repeats):
            before.append(seconds_per_generation(path, args.generations, compiled=False))
            after.append(seconds_per_generation(path, args.generations, compiled=True))
        b, a = statistics.median(before), statistics.median(after)
        lines.append(f"| `configs/{path.name}` | {b:.3f} s | {a:.3f} s | {b / a:.1f}x |")
        print(lines[-1], file=sys.stderr, flush=True)
    engine.DEFAULT = "auto"
    text = "\n".join(lines)
    print(text)
    return text


if __name__ == "__main__":
    main(sys.argv[1:])
