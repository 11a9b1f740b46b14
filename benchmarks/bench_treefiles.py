"""Tree files of big games (issues 20 and 36): size, save and load time of the JSON form,
of it gzip-compressed (``.json.gz``) and of the compact ``.npz`` form, for the shipped
(5,8) and (6,8) breakers (``5x8``, ``6x8-shipped``) and random breakers of (6,8) and
(6,9) (hundreds of thousands to a million nodes). Loading checks every code, as every
tree file is checked. Prints a Markdown section for benchmarks/RESULTS.md.

    .venv/bin/python benchmarks/bench_treefiles.py [--games 5x8,6x8,6x9,6x8-shipped]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from benchmarks.machine import machine_line  # noqa: E402
from evo.core.game import make_game  # noqa: E402
from evo.core.growth import random_breaker  # noqa: E402
from evo.core.treeio import load_tree, save_tree  # noqa: E402

REPEATS = 3


def median_time(fn) -> float:
    times = []
    for _ in range(REPEATS):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times)


def trees(games: list[str]):
    """(label, tree) of each game asked for."""
    for key in games:
        if key == "5x8":
            yield (
                "(5,8) breakers/mastermind-5-8.json",
                load_tree(ROOT / "breakers/mastermind-5-8.json"),
            )
        elif key == "6x8-shipped":
            yield (
                "(6,8) breakers/mastermind-6-8.json.gz",
                load_tree(ROOT / "breakers/mastermind-6-8.json.gz"),
            )
        else:
            pegs, colors = (int(x) for x in key.split("x"))
            game = make_game(pegs, colors, table=False)
            yield (
                f"({pegs},{colors}) random breaker",
                random_breaker(game, rng=np.random.default_rng(1)),
            )


def main(argv: list[str] | None = None) -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--games", default="5x8,6x8,6x9")
    args = ap.parse_args([] if argv is None else argv)
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for label, tree in trees(args.games.split(",")):
            cells = [label, f"{len(tree):,}"]
            for suffix in (".json", ".json.gz", ".npz"):
                path = Path(tmp) / f"t{suffix}"
                save = median_time(lambda p=path, t=tree: save_tree(t, p))
                load = median_time(lambda p=path, t=tree: load_tree(p, game=t.game))
                cells += [f"{path.stat().st_size / 1e6:.1f}", f"{save:.2f}", f"{load:.2f}"]
            rows.append("| " + " | ".join(cells) + " |")
            print(rows[-1], flush=True)
    print("\n### Tree files of big games (issues 20 and 36)\n")
    print(machine_line() + "\n")
    print(
        f"Medians of {REPEATS}; `.venv/bin/python benchmarks/bench_treefiles.py`. Load checks"
        " the tree on every code.\n"
    )
    print(
        "| tree | nodes | JSON MB | JSON save s | JSON load s | .json.gz MB | .json.gz save s |"
        " .json.gz load s | .npz MB | .npz save s | .npz load s |"
    )
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    print("\n".join(rows))


if __name__ == "__main__":
    main(sys.argv[1:])
