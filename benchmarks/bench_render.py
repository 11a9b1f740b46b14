"""Rendering and reports (issue 5): time to draw trees with Graphviz, build the networkx
graph, and write a run report. Prints a Markdown section for benchmarks/RESULTS.md."""

from __future__ import annotations

import json
import os
import platform
import statistics
import sys
import tempfile
import time
from pathlib import Path
from unittest import mock

import numpy as np

from evo.config import load_config
from evo.core.game import make_game
from evo.core.growth import random_breaker
from evo.core.treeio import save_tree
from evo.runs.rundir import write_config
from evo.show.graph import to_networkx
from evo.show.render import render_tree
from evo.show.report import write_report

REPEATS = 3


def timed(fn, repeats: int = REPEATS) -> float:
    """Median wall time of ``repeats`` calls, in seconds."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def make_run_dir(root: Path, tree, generations: int = 30) -> Path:
    """A run directory in the layout of evo.runs.rundir, with a synthetic logbook."""
    game = tree.game
    run = root / "bench-run"
    run.mkdir()
    cfg = {"name": "bench", "game": {"pegs": game.pegs, "colors": game.colors}}
    write_config(run, load_config(cfg))
    lines = []
    for gen in range(generations):
        best = tree.total + 10 * (generations - gen)
        entry = {"gen": gen, "nevals": 100, "min": best, "avg": best + 300.0, "max": best + 900}
        lines.append(json.dumps(entry))
    (run / "logbook.jsonl").write_text("\n".join(lines) + "\n")
    save_tree(tree, run / "best.json")
    summary = {"name": "bench", "generations": generations, "seconds": 1.0}
    (run / "summary.json").write_text(json.dumps(summary))
    return run


def main() -> None:
    rng = np.random.default_rng(2024)
    small = random_breaker(make_game(3, 3), rng=rng)
    big = random_breaker(make_game(4, 6), rng=rng)
    bc = random_breaker(make_game(4, 10, "bulls-cows"), rng=rng)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        out = Path(tmp)
        cases = [
            ("(3,3) random tree, full, SVG", small, {}, "svg"),
            ("(3,3) random tree, full, PNG", small, {}, "png"),
            ("(4,6) random tree, depth 3, SVG", big, {"depth": 3}, "svg"),
            ("(4,6) random tree, depth 3, PNG", big, {"depth": 3}, "png"),
            ("(4,6) random tree, full, SVG", big, {}, "svg"),
            ("Bulls and Cows (4,10) random tree, depth 2, SVG", bc, {"depth": 2}, "svg"),
        ]
        for label, tree, kw, fmt in cases:
            path = out / f"t.{fmt}"
            secs = timed(lambda t=tree, k=kw, p=path, f=fmt: render_tree(t, p, fmt=f, **k))
            drawn = len(tree) if not kw else int((tree.depth <= kw["depth"]).sum())
            rows.append((label, f"{len(tree)} / {drawn}", f"{secs:.2f}", path.stat().st_size))
        secs = timed(lambda: to_networkx(big))
        rows.append(("to_networkx of the (4,6) tree", f"{len(big)} / -", f"{secs:.3f}", "-"))
        run = make_run_dir(out, big)
        with mock.patch.dict(os.environ, EVO_CACHE=str(out / "cache")):  # cold, our own
            for label in ("cold baseline cache", "warm baseline cache"):
                secs = timed(lambda: write_report(run), repeats=1)
                case = f"write_report, (4,6) run, {label}"
                rows.append((case, f"{len(big)} / -", f"{secs:.2f}", "-"))
    print("## Rendering and reports (issue 5)\n")
    print(
        f"Machine: {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()}; {time.strftime('%Y-%m-%d', time.gmtime())}. Command: "
        f"`.venv/bin/python benchmarks/bench_render.py` (median of {REPEATS} runs; "
        "Graphviz `dot` does the layout).\n"
    )
    print("| case | nodes in tree / drawn | seconds | output bytes |")
    print("|---|---|---|---|")
    for row in rows:
        print("| " + " | ".join(str(c) for c in row) + " |")
    sys.stdout.flush()


if __name__ == "__main__":
    main()
